/**
 * A published space's pages rendered ahead of their readers, on the CPU pool: the first page read of a revision of a
 * published space starts it, and the rest of the space's pages are rendered in batches on the pool's threads and kept
 * with the revision, as a reader's request would keep them. A crawler (or a reader going through the pages) then
 * finds them rendered, and the event loop is not the one rendering them.
 *
 * - One batch per free thread at a time: readers' own work on the pool (a big page, a search) waits behind a batch,
 *   never behind all of them.
 * - A request for a page of a batch under way waits for the batch rather than rendering the page a second time.
 * - Only what renders the same for every reader: pages without OpenAPI blocks (their specs are read per request),
 *   `{% if %}` blocks as for a reader without claims (a reader's variant is rendered for them).
 * - Only pages a reader's request would render on the event loop: a big page, or one with much code, is rendered on
 *   the pool when asked for (render.ts), and rendering all of them ahead would keep the pool busy for nothing.
 * - A batch holds at most MAX_BATCH_CHARACTERS of markdown.
 */
import type { Context } from '../../../domain/context.js';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import { documentPages, type PublishedSpace } from '../../../domain/sites/published.js';
import { openApiRefsOf } from '../../../content/openapi-html.js';
import type { PageHtml } from '../../../content/page-html.js';
import type { DocumentPage } from '../../../content/model.js';
import type { PlainSiteLinks } from '../../../content/site-links.js';
import type { PageSection } from '../../../content/search-text.js';
import { keptAnswer } from '../../answer-cache.js';

/** Pages per batch, and characters of markdown at most in one (a batch is one task of a thread). */
const PAGES_PER_BATCH = 16;
const MAX_BATCH_CHARACTERS = 256 * 1024;

export interface PrerenderPlace {
  /** The key a page's content is kept under with its revision (as the page route keeps it). */
  keyOf(page: DocumentPage): string;
  /** Whether a page is rendered ahead: those a reader's request would render on the event loop. */
  wanted(page: DocumentPage): boolean;
  /** The site's facts the pages' links are answered from, as plain data. */
  links(): PlainSiteLinks;
  /** Keeps a rendered page with its revision. */
  keep(page: DocumentPage, html: PageHtml): void;
  /** Told each page's search sections from its render's parse, when given (see renderSpacePages). */
  sections?(page: DocumentPage, sections: PageSection[]): void;
}

/** Per revision: the places (site and space prefix) whose prerendering started, and the batches under way by key. */
const started = new WeakMap<IndexedRevision, Set<string>>();
const underWay = new WeakMap<IndexedRevision, Map<string, Promise<void>>>();

/** The batch rendering the page kept under `key`, when one is under way. */
export function prerendering(content: IndexedRevision, key: string): Promise<void> | undefined {
  return underWay.get(content)?.get(key);
}

function batches(pages: DocumentPage[]): DocumentPage[][] {
  const out: DocumentPage[][] = [];
  let batch: DocumentPage[] = [];
  let characters = 0;
  for (const page of pages) {
    if (batch.length > 0 && (batch.length === PAGES_PER_BATCH || characters + page.markdown.length > MAX_BATCH_CHARACTERS)) {
      out.push(batch);
      batch = [];
      characters = 0;
    }
    batch.push(page);
    characters += page.markdown.length;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}

/**
 * Starts rendering the space's pages not yet kept (once per revision and `placeKey`); resolves when all are done.
 * Failures are the pages' own requests' to meet (each renders its page when asked): logged here, not thrown.
 */
export function prerenderSpace(ctx: Context, space: PublishedSpace, placeKey: string, place: PrerenderPlace, threads: number): Promise<void> {
  const { content } = space;
  const places = started.get(content) ?? new Set<string>();
  started.set(content, places);
  if (places.has(placeKey)) return Promise.resolve();
  places.add(placeKey);
  const waiting = underWay.get(content) ?? new Map<string, Promise<void>>();
  underWay.set(content, waiting);
  const pages = documentPages(content.revision.pages).filter(
    (page) => place.wanted(page) && keptAnswer(content, place.keyOf(page)) === undefined && openApiRefsOf(page.markdown).length === 0,
  );
  const queue = batches(pages);
  let links: PlainSiteLinks | undefined;
  const spaceVariables = content.revision.variables;
  const renderNext = async (): Promise<void> => {
    for (let batch = queue.shift(); batch; batch = queue.shift()) {
      const todo = batch.filter((page) => keptAnswer(content, place.keyOf(page)) === undefined);
      if (todo.length === 0) continue;
      links ??= place.links();
      const rendering = ctx.cpu.run('sitePagesHtml', {
        links,
        spaceVariables,
        pages: todo.map((page) => ({ id: page.id, gitPath: page.gitPath, markdown: page.markdown, variables: page.variables ?? {} })),
        ...(place.sections ? { sections: true } : {}),
      });
      const done = rendering.then(
        (rendered) =>
          rendered.forEach(({ sections, ...html }, i) => {
            place.keep(todo[i], html);
            if (sections) place.sections?.(todo[i], sections);
          }),
        (error: unknown) => ctx.log.warn({ err: (error as Error).message, space: content.spaceId }, 'pages not rendered ahead'),
      );
      const keys = todo.map((page) => place.keyOf(page));
      for (const key of keys) waiting.set(key, done);
      await done;
      for (const key of keys) waiting.delete(key);
    }
  };
  // Never rejects: its callers do not wait for it (a failure is the pages' own requests' to meet).
  return Promise.all(Array.from({ length: Math.max(1, threads) }, renderNext)).then(
    () => undefined,
    (error: unknown) => ctx.log.warn({ err: (error as Error).message, space: content.spaceId }, 'pages not rendered ahead'),
  );
}
