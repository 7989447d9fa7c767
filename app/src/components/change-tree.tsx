/**
 * What a change request does to the table of contents, as one tree: the pages at its head, each marked added, moved
 * or renamed, and the pages it removes put back where their path says they stood (under the page of their folder, or
 * at the top). Marks are words and signs in the text, not colours alone.
 */
import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { Show } from './status.js';

interface TreePage {
  id: string;
  title: string;
  path?: string;
  pages?: TreePage[];
}

/** The changes of getChangeRequestChanges the tree needs. */
export interface PageChangeSummary {
  type: string;
  page?: { id: string; title: string; path?: string };
  attributes?: { title?: { before?: string; after?: string } };
  parent?: { before?: { title: string }; after?: { title: string } };
}

interface Mark {
  sign: string;
  words: string;
  kind: 'added' | 'removed' | 'moved' | 'renamed';
}

function marksOf(changes: PageChangeSummary[]): Map<string, Mark[]> {
  const marks = new Map<string, Mark[]>();
  const add = (id: string, mark: Mark) => marks.set(id, [...(marks.get(id) ?? []), mark]);
  for (const change of changes) {
    if (!change.page) continue;
    if (change.type === 'page_created') add(change.page.id, { sign: '+', words: 'added', kind: 'added' });
    else if (change.type === 'page_deleted') add(change.page.id, { sign: '−', words: 'removed', kind: 'removed' });
    else if (change.type === 'page_moved') {
      const from = change.parent && 'before' in change.parent ? (change.parent.before?.title ?? 'the top level') : undefined;
      add(change.page.id, { sign: '↕', words: from && from !== (change.parent?.after?.title ?? 'the top level') ? `moved from ${from}` : 'moved', kind: 'moved' });
    } else if (change.type === 'page_edited' && change.attributes?.title?.before !== undefined) {
      add(change.page.id, { sign: '✎', words: `renamed from “${change.attributes.title.before}”`, kind: 'renamed' });
    }
  }
  return marks;
}

/** The head's tree with the removed pages put back: under the page whose path is their folder, or at the end of the top. */
function withRemoved(pages: TreePage[], changes: PageChangeSummary[]): TreePage[] {
  const copy = (list: TreePage[]): TreePage[] => list.map((page) => ({ ...page, pages: copy(page.pages ?? []) }));
  const tree = copy(pages);
  const byPath = new Map<string, TreePage>();
  const index = (list: TreePage[]) => list.forEach((page) => (page.path !== undefined && byPath.set(page.path, page), index(page.pages ?? [])));
  index(tree);
  for (const change of changes) {
    if (change.type !== 'page_deleted' || !change.page) continue;
    const folder = change.page.path?.includes('/') ? change.page.path.slice(0, change.page.path.lastIndexOf('/')) : undefined;
    const parent = folder !== undefined ? byPath.get(folder) : undefined;
    (parent ? parent.pages! : tree).push({ id: change.page.id, title: change.page.title, path: change.page.path, pages: [] });
  }
  return tree;
}

/** Whether the page or one under it is marked. */
function holdsMark(page: TreePage, marks: Map<string, Mark[]>): boolean {
  return marks.has(page.id) || (page.pages ?? []).some((child) => holdsMark(child, marks));
}

/**
 * One level of the tree. The pages with no change at or under them are counted, not listed: a change request in a
 * space of thousands of pages shows the branches it touches.
 */
function Branch({ pages, marks }: { pages: TreePage[]; marks: Map<string, Mark[]> }) {
  const shown = pages.filter((page) => holdsMark(page, marks));
  const unchanged = pages.length - shown.length;
  return (
    <ul>
      {shown.map((page) => {
        const mine = marks.get(page.id) ?? [];
        return (
          <li key={page.id} class={mine.map((mark) => `tree-${mark.kind}`).join(' ')}>
            {mine.map((mark) => (
              <span key={mark.kind} class="tree-mark" aria-hidden="true">
                {mark.sign}
              </span>
            ))}
            {mine.some((mark) => mark.kind === 'removed') ? <del>{page.title}</del> : page.title}
            {mine.length > 0 && <span class="tree-words"> ({mine.map((mark) => mark.words).join(', ')})</span>}
            {(page.pages?.length ?? 0) > 0 && <Branch pages={page.pages!} marks={marks} />}
          </li>
        );
      })}
      {unchanged > 0 && (
        <li class="tree-unchanged">
          {unchanged} unchanged {unchanged === 1 ? 'page' : 'pages'}
        </li>
      )}
    </ul>
  );
}

/** The table of contents at the change request's head, its changes marked (see the module's comment). */
export function ChangeTree({ spaceId, number, changes }: { spaceId: string; number: string; changes: PageChangeSummary[] }) {
  const marks = marksOf(changes);
  // Read only when there is something to mark: a change request that edits pages in place leaves the tree as it was.
  const [pages] = useApi(marks.size > 0 ? `${spaceId}:${number}:tree` : undefined, (signal) => api<{ pages: TreePage[] }>(`/spaces/${spaceId}/change-requests/${number}/content/pages`, { signal }));
  return (
    <section aria-labelledby="tree-title">
      <h2 id="tree-title">Table of contents</h2>
      {marks.size === 0 ? (
        <p>The table of contents is the same.</p>
      ) : (
        <Show loaded={pages} what="the table of contents">
          {(value) => (
            <div class="change-tree">
              <Branch pages={withRemoved(value.pages, changes)} marks={marks} />
            </div>
          )}
        </Show>
      )}
    </section>
  );
}
