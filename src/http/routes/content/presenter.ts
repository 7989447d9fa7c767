/**
 * Revision, Page and File as the API shows them, in the shape the reference requires of them: document pages
 * always carry `kind: "sheet"`, a full `layout` and `markdown`; groups only at the top level.
 */
import { randomUUID } from 'node:crypto';
import type { DocumentPage, LinkPage, Page, PageCover, ReusableContent, RevisionFile } from '../../../content/model.js';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import type { Urls } from '../../urls.js';
import { markdownToDocument } from '../../../content/document.js';
import type { DocumentContext } from '../../../content/document-nodes.js';
import { documentLinksOf, linkLookups, plainLinkLookups } from '../../../content/links.js';
import type { CpuPool } from '../../../cpu/pool.js';
import { jsonWithParts } from '../../../cpu/json-parts.js';
import type { ContentImportRow } from '../../../store/sql/imports.js';

export interface PresentOptions {
  /** false: leave out git metadata. */
  metadata: boolean;
  format: 'markdown' | 'document';
  /** true: replace `{{ space.vars.X }}` / `{{ page.vars.X }}` with their values. */
  evaluated: boolean;
}

export const DEFAULT_OPTIONS: PresentOptions = { metadata: true, format: 'markdown', evaluated: false };

/**
 * Pages longer than this are converted to a document on the CPU pool: converting takes a few milliseconds per KB of
 * dense markup (links, emphasis), on a thread rather than on the event loop that answers every request.
 */
export const POOLED_DOCUMENT = 16 * 1024;

/** Answers holding more text than this are serialized and encoded on the CPU pool (~20 ms per MB on the event loop). */
export const POOLED_ANSWER = 256 * 1024;

/** Replaces variable expressions (`{{ space.vars.name }}`, `{{ page.vars.name }}`) by their values. */
export function evaluateVariables(markdown: string, spaceVars: Record<string, string>, pageVars: Record<string, string>): string {
  return markdown.replace(/\{\{\s*(space|page)\.vars\.([A-Za-z0-9_-]+)\s*\}\}/g, (whole, scope: string, name: string) => {
    const value = scope === 'page' ? (pageVars[name] ?? spaceVars[name]) : spaceVars[name];
    return value ?? whole;
  });
}


/**
 * The app URL of a page of a space, by its path. Each segment is percent-encoded: slugs keep letters of every script
 * (`快速开始`, `начало`), and a URL must stay a valid URI.
 */
export function pageAppUrl(urls: Urls, spaceId: string, pagePath: string): string {
  return urls.app(`/s/${spaceId}/${pagePath.split('/').map(encodeURIComponent).join('/')}`);
}

/** The ContentRef a link page points at: another page of the space (at an anchor), an anchor, or a URL. */
export function linkTarget(page: LinkPage): Record<string, unknown> {
  if (page.pageId !== undefined) {
    return page.anchor !== undefined ? { kind: 'anchor', page: page.pageId, anchor: page.anchor } : { kind: 'page', page: page.pageId };
  }
  return page.href.startsWith('#') ? { kind: 'anchor', anchor: page.href.slice(1) } : { kind: 'url', url: page.href };
}

/** A file's `downloadURL`: its blob's bytes under its name (downloadFile). */
export function fileDownloadUrl(urls: Urls, spaceId: string, file: Pick<RevisionFile, 'blobOid' | 'name'>): string {
  return urls.api(`/spaces/${spaceId}/files/${file.blobOid}/${encodeURIComponent(file.name)}`);
}

/** A page's cover as the reference's RevisionPageDocumentCover. */
export function coverJson(cover: PageCover | undefined): Record<string, unknown> | undefined {
  return cover
    ? {
        ...(cover.file ? { ref: { kind: 'file', file: cover.file } } : {}),
        ...(cover.fileDark ? { refDark: { kind: 'file', file: cover.fileDark } } : {}),
        yPos: cover.yPos,
      }
    : undefined;
}

export class ContentPresenter {
  constructor(
    private readonly urls: Urls,
    private readonly content: IndexedRevision,
    private readonly options: PresentOptions = DEFAULT_OPTIONS,
    /** The ref the revision was read at, shown as `git.ref`. */
    private readonly ref?: string,
  ) {}

  private links?: (page: DocumentPage) => DocumentContext;

  /** Link resolution for documents, made once per presenter (one revision). */
  private documentLinks(): (page: DocumentPage) => DocumentContext {
    this.links ??= documentLinksOf(this.content.revision);
    return this.links;
  }

  private pageApp(page: Page): string {
    return pageAppUrl(this.urls, this.content.spaceId, page.path);
  }

  page(page: Page): Record<string, unknown> {
    const base = { id: page.id, title: page.title || 'Untitled' };
    // Link and computed pages have no children in the hosted platform; SUMMARY.md may still nest items under them,
    // and those are shown rather than lost.
    const nested = page.pages.length > 0 ? { pages: page.pages.map((p) => this.page(p)) } : {};
    if (page.type === 'group') {
      return { ...base, kind: 'group', type: 'group', slug: page.slug, path: page.path, pages: page.pages.map((p) => this.page(p)) };
    }
    if (page.type === 'link') return { ...base, kind: 'link', type: 'link', target: linkTarget(page), href: page.href, ...nested };
    if (page.type === 'computed-block') {
      // The source of a computed page declared in SUMMARY.md; nothing is computed here yet, the source is shown.
      return { ...base, type: 'computed', slug: page.slug, path: page.path, computed: page.computed, ...nested };
    }
    return this.documentPage(page);
  }

  private markdownOf(page: DocumentPage): string {
    return this.options.evaluated ? evaluateVariables(page.markdown, this.content.revision.variables, page.variables ?? {}) : page.markdown;
  }

  /**
   * While pageJson builds an answer: the big pages whose documents the CPU pool converts (by their marker's number),
   * and the characters of text the answer holds.
   */
  private pooled?: { prefix: string; pages: DocumentPage[]; text: number };

  /**
   * A page's answer as JSON (text, or UTF-8 bytes), as `page` gives it, but the documents of big pages (the page's
   * own, its children's) are converted on the CPU pool and put in as the JSON the threads wrote, and an answer holding
   * more than POOLED_ANSWER characters of text is serialized there too.
   */
  async pageJson(page: Page, cpu: CpuPool): Promise<string | Uint8Array> {
    // Markers nobody can write in a page stand for the documents in the answer, then are replaced by them.
    const pooled = { prefix: randomUUID(), pages: [] as DocumentPage[], text: 0 };
    this.pooled = pooled;
    let value: Record<string, unknown>;
    try {
      value = this.page(page);
    } finally {
      this.pooled = undefined;
    }
    let parts: string[] = [];
    if (pooled.pages.length > 0) {
      const lookups = plainLinkLookups(linkLookups(this.content.revision));
      parts = await Promise.all(
        pooled.pages.map((big) => cpu.run('pageDocument', { markdown: this.markdownOf(big), page: { id: big.id, gitPath: big.gitPath }, lookups })),
      );
      pooled.text += parts.reduce((sum, part) => sum + part.length, 0);
    }
    if (pooled.text <= POOLED_ANSWER) return jsonWithParts(value, pooled.prefix, parts);
    return cpu.run('answerBytes', { value, prefix: pooled.prefix, parts });
  }

  /** A page's document, or the marker of one the CPU pool will convert (see pageJson). */
  private documentOf(page: DocumentPage, markdown: string): unknown {
    if (!this.pooled || markdown.length <= POOLED_DOCUMENT) return markdownToDocument(markdown, this.documentLinks()(page));
    this.pooled.pages.push(page);
    return `${this.pooled.prefix}:${this.pooled.pages.length - 1}`;
  }

  private documentPage(page: DocumentPage): Record<string, unknown> {
    const { options } = this;
    if (page.type === 'computed' && page.computed) {
      // Computed pages are generated from their source; nothing is computed here yet, the source is shown.
      return { id: page.id, title: page.title || 'Untitled', createdAt: page.createdAt, updatedAt: page.updatedAt, type: 'computed', computed: page.computed };
    }
    const markdown = this.markdownOf(page);
    if (this.pooled) this.pooled.text += markdown.length;
    const body = options.format !== 'document' ? { markdown } : { document: this.documentOf(page, markdown) };
    const cover = coverJson(page.cover);
    return {
      id: page.id,
      title: page.title || 'Untitled',
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      createdAt: page.createdAt,
      updatedAt: page.updatedAt,
      kind: 'sheet',
      type: 'document',
      urls: { app: this.pageApp(page) },
      slug: page.slug,
      path: page.path,
      ...(page.description !== undefined ? { description: page.description } : {}),
      documentId: page.blobOid,
      ...body,
      pages: page.pages.map((p) => this.page(p)),
      ...(options.metadata ? { git: { oid: page.blobOid, path: page.gitPath } } : {}),
      layout: page.layout,
      ...(cover ? { cover } : {}),
      ...(page.variables ? { variables: page.variables } : {}),
      ...(page.hidden !== undefined ? { hidden: page.hidden } : {}),
      ...(page.noIndex !== undefined ? { noIndex: page.noIndex } : {}),
      ...(page.noRobotsIndex !== undefined ? { noRobotsIndex: page.noRobotsIndex } : {}),
    };
  }

  file(file: RevisionFile): Record<string, unknown> {
    return {
      id: file.id,
      name: file.name,
      contentType: file.contentType,
      downloadURL: fileDownloadUrl(this.urls, this.content.spaceId, file),
      size: file.size,
      ...(file.dimensions ? { dimensions: file.dimensions } : {}),
      ...(this.options.metadata ? { git: { oid: file.blobOid, path: file.gitPath } } : {}),
    };
  }

  reusableContent(r: ReusableContent): Record<string, unknown> {
    return {
      id: r.id,
      title: r.title || 'Untitled',
      document: r.blobOid,
      ...(this.options.metadata ? { git: { oid: r.blobOid, path: r.gitPath } } : {}),
    };
  }

  pages(): Record<string, unknown>[] {
    return this.content.revision.pages.map((p) => this.page(p));
  }

  revision(): Record<string, unknown> {
    const { revision } = this.content;
    const { commit } = revision;
    return {
      object: 'revision',
      id: commit.oid,
      type: 'edits',
      parents: commit.parents,
      pages: this.pages(),
      files: this.content.files.map((f) => this.file(f)),
      reusableContents: revision.reusableContents.map((r) => this.reusableContent(r)),
      variables: revision.variables,
      createdAt: commit.createdAt,
      ...(this.options.metadata
        ? {
            git: {
              oid: commit.oid,
              message: commit.message.trim(),
              createdByGitBook: commit.createdByQuire,
              ...(this.ref ? { ref: this.ref } : {}),
            },
          }
        : {}),
      urls: { app: this.urls.app(`/s/${this.content.spaceId}/~/revisions/${commit.oid}`) },
    };
  }
}

/** A content import as it stands (see ContentImportSchema). */
export function presentContentImport(urls: Urls, row: ContentImportRow) {
  return {
    object: 'content-import' as const,
    id: row.id,
    url: row.url,
    source: row.source,
    status: row.status as 'pending' | 'running' | 'done' | 'failed',
    ...(row.change_request_id ? { changeRequest: row.change_request_id } : {}),
    importedResources: row.imported_resources ?? 0,
    totalResources: row.total_resources ?? 0,
    ...(row.result_revision ? { revision: row.result_revision } : {}),
    ...(row.status === 'failed' && row.error ? { error: row.error } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: { location: urls.api(`/spaces/${row.space_id}/content/imports/${row.id}`) },
  };
}
