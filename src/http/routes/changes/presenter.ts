/**
 * Semantic changes in the reference's shapes (RevisionSemanticChanges): pages as ChangedRevisionPage, files as
 * ChangedRevisionFile, reusable contents as ChangedRevisionReusableContent, each changed attribute as `{before,
 * after}` of the value the API shows for it elsewhere (a page's documentId, layout, cover, a link's target); and the
 * block diff of a page (a Quire extension).
 */
import type { DocumentPage, Page, ReusableContent, RevisionFile } from '../../../content/model.js';
import type { FileAttribute, PageAttribute, SemanticChange } from '../../../content/semantic-changes.js';
import type { PageDiff, SemanticChanges } from '../../../domain/change-requests/changes.js';
import type { Urls } from '../../urls.js';
import { presentChangeRequest } from '../change-requests/presenter.js';
import { coverJson, fileDownloadUrl, linkTarget, POOLED_ANSWER } from '../content/presenter.js';
import type { CpuPool } from '../../../cpu/pool.js';

const title = (page: Page | ReusableContent) => page.title || 'Untitled';

/** A value's before and after, each left out where it is absent. */
function beforeAfter<T>(before: T | undefined, after: T | undefined): { before?: T; after?: T } {
  return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

function changedPage(page: Page): Record<string, unknown> {
  const type = page.type === 'computed-block' ? 'computed' : page.type;
  return { id: page.id, type, title: title(page), ...(page.type !== 'link' ? { path: page.path } : {}) };
}

const asDocument = (page: Page): DocumentPage | undefined => (page.type === 'document' || page.type === 'computed' ? page : undefined);

function pageAttribute(attribute: PageAttribute, before: Page, after: Page): { before?: unknown; after?: unknown } {
  const [a, b] = [asDocument(before), asDocument(after)];
  switch (attribute) {
    case 'title':
      return beforeAfter(title(before), title(after));
    case 'slug':
      return beforeAfter(before.slug, after.slug);
    case 'description':
      return beforeAfter(a?.description, b?.description);
    case 'document':
      return beforeAfter(a?.blobOid, b?.blobOid);
    case 'cover':
      return beforeAfter(coverJson(a?.cover), coverJson(b?.cover));
    case 'emoji':
      return beforeAfter(a?.emoji, b?.emoji);
    case 'layout':
      return beforeAfter(a?.layout, b?.layout);
    case 'variables':
      return beforeAfter(a?.variables, b?.variables);
    case 'target':
      return beforeAfter(before.type === 'link' ? linkTarget(before) : undefined, after.type === 'link' ? linkTarget(after) : undefined);
  }
}

export class ChangesPresenter {
  constructor(
    private readonly urls: Urls,
    private readonly spaceId: string,
  ) {}

  private file(file: RevisionFile): Record<string, unknown> {
    return { id: file.id, name: file.name, contentType: file.contentType, downloadURL: fileDownloadUrl(this.urls, this.spaceId, file) };
  }

  private fileAttribute(attribute: FileAttribute, before: RevisionFile, after: RevisionFile): { before?: unknown; after?: unknown } {
    switch (attribute) {
      case 'downloadURL':
        return beforeAfter(fileDownloadUrl(this.urls, this.spaceId, before), fileDownloadUrl(this.urls, this.spaceId, after));
      default:
        return beforeAfter(before[attribute], after[attribute]);
    }
  }

  change(change: SemanticChange): Record<string, unknown> {
    switch (change.type) {
      case 'page_created':
      case 'page_deleted':
        return { type: change.type, page: changedPage(change.page) };
      case 'page_edited':
        return {
          type: change.type,
          page: changedPage(change.page),
          attributes: Object.fromEntries(change.attributes.map((attribute) => [attribute, pageAttribute(attribute, change.before, change.page)])),
        };
      case 'page_moved':
        return {
          type: change.type,
          page: changedPage(change.page),
          parent: {
            ...(change.parent.before ? { before: changedPage(change.parent.before) } : {}),
            ...(change.parent.after ? { after: changedPage(change.parent.after) } : {}),
          },
        };
      case 'file_created':
      case 'file_deleted':
        return { type: change.type, file: this.file(change.file) };
      case 'file_edited':
        return {
          type: change.type,
          file: this.file(change.file),
          attributes: Object.fromEntries(change.attributes.map((attribute) => [attribute, this.fileAttribute(attribute, change.before, change.file)])),
        };
      case 'variables_edited':
        return { type: change.type, variables: change.variables };
      case 'reusable_content_created':
      case 'reusable_content_deleted':
        return { type: change.type, reusableContent: reusableContent(change.reusableContent) };
      case 'reusable_content_edited':
        return {
          type: change.type,
          reusableContent: reusableContent(change.reusableContent),
          attributes: Object.fromEntries(
            change.attributes.map((attribute) => [
              attribute,
              attribute === 'title' ? beforeAfter(title(change.before), title(change.reusableContent)) : beforeAfter(change.before.blobOid, change.reusableContent.blobOid),
            ]),
          ),
        };
    }
  }

  changes(result: SemanticChanges): Record<string, unknown> {
    return {
      ...(result.mergedFrom ? { mergedFrom: presentChangeRequest(this.urls, result.mergedFrom) } : {}),
      changes: result.changes.map((change) => this.change(change)),
      more: result.more,
    };
  }
}

function reusableContent(reusable: ReusableContent): Record<string, unknown> {
  return { id: reusable.id, title: title(reusable), document: reusable.blobOid };
}

export function presentPageDiff(diff: PageDiff) {
  return {
    page: { id: diff.page.id, title: title(diff.page), path: diff.page.path },
    ...(diff.base ? { base: diff.base } : {}),
    ...(diff.head ? { head: diff.head } : {}),
    blocks: diff.blocks,
    markdown: diff.markdown,
    ...(diff.hunks ? { hunks: diff.hunks } : {}),
  };
}

/**
 * The page diff's answer as JSON: serialized and encoded on the CPU pool when it holds more than POOLED_ANSWER
 * characters of text (a big page's two versions, as markdown and as HTML: tens of milliseconds a megabyte here).
 */
export async function pageDiffJson(diff: PageDiff, cpu: CpuPool): Promise<string | Uint8Array> {
  const value = presentPageDiff(diff);
  let text = (diff.markdown.before?.length ?? 0) + (diff.markdown.after?.length ?? 0);
  for (const block of diff.blocks) text += (block.before?.length ?? 0) + (block.after?.length ?? 0);
  for (const hunk of diff.hunks ?? []) for (const line of hunk.lines) text += line.text.length;
  return text <= POOLED_ANSWER ? JSON.stringify(value) : cpu.run('answerBytes', { value, prefix: '', parts: [] });
}
