/**
 * What changed from one revision to another, by meaning rather than by line: pages created, edited, moved and
 * deleted; files created, edited and deleted; the space's variables; reusable contents created, edited and deleted.
 * The API's RevisionSemanticChanges (getChangeRequestChanges, getRevisionSemanticChanges) and the MCP server's change
 * requests are made from it. Pure, and linear in the pages and files of the two revisions (sibling orders take
 * k log k): both come parsed, and only pages whose file changed have their markdown compared; long loops let the
 * event loop run between their turns (./turns.ts).
 *
 * - A page is **created** or **deleted** when its id is only in the later or only in the earlier revision.
 * - A page is **moved** when its parent changed, or when its place among its siblings did: of the siblings it kept
 *   (same parent before and after), those outside the longest run still in their old order (so inserting a page
 *   before others moves none of them, and swapping two moves one).
 * - A page is **edited** when one of the attributes the reference names for its type changed (documents: title,
 *   description, slug, document, cover, emoji, layout, variables; groups: title, slug; links: title, target).
 *   `document` is the page's document (its file's blob): it is named when the markdown changed, or when the file
 *   changed in nothing another attribute names (icon, hidden, noIndex, other front matter), so that no change of a
 *   page's file goes unsaid. A page both moved and edited is both: one change of each.
 */
import type { DocumentPage, Page, PageCover, PageLayout, ReusableContent, Revision, RevisionFile } from './model.js';
import { Turns } from './turns.js';

/** What of a revision the changes are read from. */
export type RevisionContent = Pick<Revision, 'pages' | 'files' | 'reusableContents' | 'variables'>;

export type PageAttribute = 'title' | 'description' | 'slug' | 'document' | 'cover' | 'emoji' | 'layout' | 'variables' | 'target';
export type FileAttribute = 'name' | 'downloadURL' | 'size' | 'contentType' | 'dimensions';
export type ReusableContentAttribute = 'title' | 'document';

export type SemanticChange =
  | { type: 'page_created'; page: Page }
  | { type: 'page_deleted'; page: Page }
  /** `page` as it is after, `before` as it was; `attributes` in the reference's order. */
  | { type: 'page_edited'; page: Page; before: Page; attributes: PageAttribute[] }
  | { type: 'page_moved'; page: Page; before: Page; parent: { before?: Page; after?: Page } }
  | { type: 'file_created'; file: RevisionFile }
  | { type: 'file_deleted'; file: RevisionFile }
  | { type: 'file_edited'; file: RevisionFile; before: RevisionFile; attributes: FileAttribute[] }
  | { type: 'variables_edited'; variables: Record<string, { before?: string; after?: string }> }
  | { type: 'reusable_content_created'; reusableContent: ReusableContent }
  | { type: 'reusable_content_deleted'; reusableContent: ReusableContent }
  | { type: 'reusable_content_edited'; reusableContent: ReusableContent; before: ReusableContent; attributes: ReusableContentAttribute[] };

export type SemanticChangeType = SemanticChange['type'];

const EMPTY: RevisionContent = { pages: [], files: [], reusableContents: [], variables: {} };

/** A page where it stands: its parent (none at the top level) and its index among its siblings. */
interface Place {
  page: Page;
  parent: Page | undefined;
  index: number;
  /** Pre-order position in the revision (the order changes are listed in). */
  order: number;
}

async function places(pages: Page[], turns: Turns): Promise<Map<string, Place>> {
  const found = new Map<string, Place>();
  // Iterative pre-order walk: a deep tree never runs out of stack.
  const stack: Array<{ list: Page[]; parent: Page | undefined; at: number }> = [{ list: pages, parent: undefined, at: 0 }];
  while (stack.length > 0) {
    if (turns.due()) await turns.take();
    const top = stack[stack.length - 1];
    if (top.at >= top.list.length) {
      stack.pop();
      continue;
    }
    const index = top.at++;
    const page = top.list[index];
    // An id is a page's once (the first listing keeps it, as the revision's own index does).
    if (!found.has(page.id)) found.set(page.id, { page, parent: top.parent, index, order: found.size });
    if (page.pages.length > 0) stack.push({ list: page.pages, parent: page, at: 0 });
  }
  return found;
}

/**
 * The positions of `sequence` outside one of its longest increasing subsequences (patience sorting, n log n): the
 * siblings that left their old order.
 */
export function outOfOrder(sequence: readonly number[]): Set<number> {
  const tails: number[] = []; // positions in `sequence`, by subsequence length - 1
  const previous = new Array<number>(sequence.length).fill(-1);
  for (let i = 0; i < sequence.length; i++) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (sequence[tails[mid]] < sequence[i]) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[i] = tails[low - 1];
    tails[low] = i;
  }
  const kept = new Set<number>();
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) kept.add(i);
  const moved = new Set<number>();
  for (let i = 0; i < sequence.length; i++) if (!kept.has(i)) moved.add(i);
  return moved;
}

const isDocument = (page: Page): page is DocumentPage => page.type === 'document' || page.type === 'computed';

function sameCover(a: PageCover | undefined, b: PageCover | undefined): boolean {
  if (!a || !b) return a === b;
  return a.file === b.file && a.fileDark === b.fileDark && a.yPos === b.yPos;
}

function sameLayout(a: PageLayout, b: PageLayout): boolean {
  return (Object.keys(a) as Array<keyof PageLayout>).every((key) => a[key] === b[key]) && Object.keys(a).length === Object.keys(b).length;
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (!a || !b) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/** The attributes of a page that changed, in the order the reference lists them for its type. */
export function pageAttributes(before: Page, after: Page): PageAttribute[] {
  const changed: PageAttribute[] = [];
  if (before.title !== after.title) changed.push('title');
  if (isDocument(before) && isDocument(after)) {
    const fileChanged = before.blobOid !== after.blobOid;
    // What comes from the file alone is the same when the file is.
    if (fileChanged && before.description !== after.description) changed.push('description');
    if (before.slug !== after.slug) changed.push('slug');
    const markdownChanged = fileChanged && before.markdown !== after.markdown;
    const cover = !sameCover(before.cover, after.cover);
    const emoji = fileChanged && before.emoji !== after.emoji;
    const layout = fileChanged && !sameLayout(before.layout, after.layout);
    const variables = fileChanged && !sameRecord(before.variables, after.variables);
    const saidElse = changed.includes('description') || emoji || layout || variables || cover;
    if (markdownChanged || (fileChanged && !saidElse)) changed.push('document');
    if (cover) changed.push('cover');
    if (emoji) changed.push('emoji');
    if (layout) changed.push('layout');
    if (variables) changed.push('variables');
    return changed;
  }
  if (before.type === 'link' && after.type === 'link') {
    if (before.href !== after.href || before.pageId !== after.pageId || before.anchor !== after.anchor) changed.push('target');
    return changed;
  }
  if (before.slug !== after.slug) changed.push('slug');
  return changed;
}

function fileAttributes(before: RevisionFile, after: RevisionFile): FileAttribute[] {
  const changed: FileAttribute[] = [];
  if (before.name !== after.name) changed.push('name');
  // The download URL names the blob and the name.
  if (before.blobOid !== after.blobOid || before.name !== after.name) changed.push('downloadURL');
  if (before.size !== after.size) changed.push('size');
  if (before.contentType !== after.contentType) changed.push('contentType');
  const a = before.dimensions;
  const b = after.dimensions;
  if ((a === undefined) !== (b === undefined) || (a && b && (a.width !== b.width || a.height !== b.height))) changed.push('dimensions');
  return changed;
}

function reusableAttributes(before: ReusableContent, after: ReusableContent): ReusableContentAttribute[] {
  const changed: ReusableContentAttribute[] = [];
  if (before.title !== after.title) changed.push('title');
  if (before.blobOid !== after.blobOid && (before.markdown !== after.markdown || changed.length === 0)) changed.push('document');
  return changed;
}

async function pageChanges(before: Page[], after: Page[], turns: Turns): Promise<SemanticChange[]> {
  const was = await places(before, turns);
  const now = await places(after, turns);
  // Kept pages under the same parent, by parent: their old indexes in their new order.
  const siblings = new Map<string, Array<{ id: string; old: number }>>();
  const moved = new Set<string>();
  for (const [id, place] of now) {
    if (turns.due()) await turns.take();
    const old = was.get(id);
    if (!old) continue;
    if (old.parent?.id !== place.parent?.id) {
      moved.add(id);
      continue;
    }
    const key = place.parent?.id ?? '';
    const list = siblings.get(key) ?? [];
    if (list.length === 0) siblings.set(key, list);
    list.push({ id, old: old.index });
  }
  for (const list of siblings.values()) {
    if (turns.due()) await turns.take();
    // Listed in their new order (the walk's); those outside the longest run of old indexes moved.
    for (const i of outOfOrder(list.map((sibling) => sibling.old))) moved.add(list[i].id);
  }

  const changes: SemanticChange[] = [];
  for (const [id, place] of now) {
    if (turns.due()) await turns.take();
    const old = was.get(id);
    if (!old) {
      changes.push({ type: 'page_created', page: place.page });
      continue;
    }
    const attributes = pageAttributes(old.page, place.page);
    if (attributes.length > 0) changes.push({ type: 'page_edited', page: place.page, before: old.page, attributes });
    if (moved.has(id)) changes.push({ type: 'page_moved', page: place.page, before: old.page, parent: { before: old.parent, after: place.parent } });
  }
  for (const [id, place] of was) if (!now.has(id)) changes.push({ type: 'page_deleted', page: place.page });
  return changes;
}

function byId<T extends { id: string }>(items: readonly T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) if (!map.has(item.id)) map.set(item.id, item);
  return map;
}

async function fileChanges(before: RevisionFile[], after: RevisionFile[], turns: Turns): Promise<SemanticChange[]> {
  const was = byId(before);
  const now = byId(after);
  const changes: SemanticChange[] = [];
  for (const [id, file] of now) {
    if (turns.due()) await turns.take();
    const old = was.get(id);
    if (!old) changes.push({ type: 'file_created', file });
    else {
      const attributes = fileAttributes(old, file);
      if (attributes.length > 0) changes.push({ type: 'file_edited', file, before: old, attributes });
    }
  }
  for (const [id, file] of was) if (!now.has(id)) changes.push({ type: 'file_deleted', file });
  return changes;
}

function variableChanges(before: Record<string, string>, after: Record<string, string>): SemanticChange[] {
  const variables: Record<string, { before?: string; after?: string }> = {};
  for (const [name, value] of Object.entries(after)) {
    const old = Object.hasOwn(before, name) ? before[name] : undefined;
    if (old !== value) variables[name] = { ...(old !== undefined ? { before: old } : {}), after: value };
  }
  for (const [name, value] of Object.entries(before)) if (!Object.hasOwn(after, name)) variables[name] = { before: value };
  return Object.keys(variables).length > 0 ? [{ type: 'variables_edited', variables }] : [];
}

async function reusableChanges(before: ReusableContent[], after: ReusableContent[], turns: Turns): Promise<SemanticChange[]> {
  const was = byId(before);
  const now = byId(after);
  const changes: SemanticChange[] = [];
  for (const [id, reusableContent] of now) {
    if (turns.due()) await turns.take();
    const old = was.get(id);
    if (!old) changes.push({ type: 'reusable_content_created', reusableContent });
    else {
      const attributes = reusableAttributes(old, reusableContent);
      if (attributes.length > 0) changes.push({ type: 'reusable_content_edited', reusableContent, before: old, attributes });
    }
  }
  for (const [id, reusableContent] of was) if (!now.has(id)) changes.push({ type: 'reusable_content_deleted', reusableContent });
  return changes;
}

/** The first `limit` changes (a whole number, at least 0), and how many were left out. */
export function limitChanges(changes: SemanticChange[], limit: number): { changes: SemanticChange[]; more: number } {
  return { changes: changes.slice(0, limit), more: Math.max(0, changes.length - limit) };
}

/**
 * The semantic changes from `before` (undefined: nothing, as before a first commit) to `after`: pages (in `after`'s
 * order, then the deleted ones in `before`'s), files, reusable contents, then the space's variables.
 */
export async function semanticChanges(before: RevisionContent | undefined, after: RevisionContent): Promise<SemanticChange[]> {
  const from = before ?? EMPTY;
  // 10,000 pages take tens of milliseconds: other requests run between turns.
  const turns = new Turns();
  return [
    ...(await pageChanges(from.pages, after.pages, turns)),
    ...(await fileChanges(from.files, after.files, turns)),
    ...(await reusableChanges(from.reusableContents, after.reusableContents, turns)),
    ...variableChanges(from.variables, after.variables),
  ];
}
