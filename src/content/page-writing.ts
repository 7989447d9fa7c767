/**
 * A page file written back (writePageFile), keeping what Quire did not change byte for byte. Apart from reading
 * (./page.ts): it reads the original only to learn what to keep.
 */
import { parseFrontMatter, stringifyFrontMatter, type FrontMatter } from './frontmatter.js';
import type { PageLayout } from './model.js';
import { ContentError } from './problems.js';
import { DEFAULT_LAYOUT, isMapping, LAYOUT_FLAGS, readFrontMatterFields, type FrontMatterFields } from './page-front-matter.js';
import { pageTitle, splitTitle } from './page-title.js';

/** What Quire writes for a page: the fields a person edits through the API. */
export interface PageWrite extends FrontMatterFields {
  title: string;
  markdown: string;
  /** Written as front matter `id` (Quire's own commits); undefined keeps whatever the file had. */
  id?: string;
  layout?: Partial<PageLayout>;
  /** Cover image paths relative to the page's folder, and the vertical offset. */
  cover?: { path?: string; pathDark?: string; yPos?: number };
  computed?: Record<string, unknown>;
  computedSeed?: string;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The text of a page file. With `original` (the file as it is), only what differs from it changes: unknown keys
 * and the order of keys are kept, a key whose value did not change is left as written, and when nothing changed
 * the original is returned byte for byte. Timestamps are never written.
 *
 * `summaryTitle` is the original's SUMMARY.md title, read as parsePage reads it. When the original's body has no
 * heading that is its title (SUMMARY.md gives another, or none is written), the title lives in SUMMARY.md only and
 * the body is written as `markdown` alone: no heading is added (the caller writes a new title to SUMMARY.md).
 * Otherwise the body is `# title` followed by `markdown`, as the seen files have it.
 */
export function writePageFile(page: PageWrite, original?: string, options: { summaryTitle?: string } = {}): string {
  let base: FrontMatter = { data: {}, present: false, body: '', bodyLine: 1, yamlText: '' };
  if (original !== undefined) {
    const split = parseFrontMatter(original, 'page');
    if (!split.ok) throw new ContentError([split.problem]);
    base = split.value;
  }
  const old = readFrontMatterFields(base, 'page', []);
  const data: Record<string, unknown> = { ...base.data };

  const scalar = (key: string, desired: unknown, current: unknown, isDefault: (v: unknown) => boolean): void => {
    if (same(desired ?? null, current ?? null) || (isDefault(desired) && isDefault(current))) return;
    if (isDefault(desired)) delete data[key];
    else data[key] = desired;
  };
  const absent = (v: unknown): boolean => v === undefined;
  const falsy = (v: unknown): boolean => v === undefined || v === false;

  if (page.id !== undefined) scalar('id', page.id, old.id, absent);
  scalar('description', page.description, old.description, absent);
  scalar('emoji', page.emoji, old.emoji, absent);
  scalar('icon', page.icon, old.icon, absent);
  scalar('cover', page.cover?.path, old.coverPath, absent);
  scalar('coverDark', page.cover?.pathDark, old.coverDarkPath, absent);
  scalar('coverY', page.cover?.yPos ?? 0, old.coverY, (v) => v === undefined || v === 0);
  scalar('hidden', page.hidden, old.hidden, falsy);
  scalar('noIndex', page.noIndex, old.noIndex, falsy);
  scalar('noRobotsIndex', page.noRobotsIndex, old.noRobotsIndex, falsy);
  const emptyVars = (v: unknown): boolean => v === undefined || (isMapping(v) && Object.keys(v).length === 0);
  scalar('vars', page.variables, old.variables, emptyVars);

  if (page.layout) {
    const desired: PageLayout = { ...DEFAULT_LAYOUT, ...page.layout };
    let layout: Record<string, unknown> | undefined;
    const layoutObject = (): Record<string, unknown> => {
      layout ??= isMapping(data.layout) ? { ...data.layout } : {};
      return layout;
    };
    if (desired.width !== old.layout.width) layoutObject().width = desired.width;
    for (const key of LAYOUT_FLAGS) {
      const coverSizeChanged = key === 'cover' && desired.coverSize !== old.layout.coverSize;
      if (desired[key] === old.layout[key] && !coverSizeChanged) continue;
      const target = layoutObject();
      const entry: Record<string, unknown> = isMapping(target[key]) ? { ...(target[key] as Record<string, unknown>) } : {};
      if (desired[key] !== old.layout[key]) entry.visible = desired[key];
      if (coverSizeChanged) entry.size = desired.coverSize;
      target[key] = entry;
    }
    if (layout) data.layout = layout;
  }
  scalar('computed', page.computed, old.computed, absent);
  scalar('computedSeed', page.computedSeed, old.computedSeed, absent);

  const titleLine = `# ${page.title.replace(/\s+/g, ' ').trim()}`;
  const previous = pageTitle(base.body, splitTitle(base.body), options.summaryTitle, page.title);
  const bodyUnchanged = original !== undefined && previous.title === page.title && previous.markdown === page.markdown;
  // With SUMMARY.md's title and no title heading in the body, the body is the markdown alone.
  const headingless = original !== undefined && options.summaryTitle !== undefined && !previous.titleInBody;
  const markdown = page.markdown === '' || page.markdown.endsWith('\n') ? page.markdown : `${page.markdown}\n`;
  // Blank lines between the front matter and the title: as the file had them; one for a new file (the seen files).
  const leading = original !== undefined ? /^(?:[ \t]*\r?\n)*/.exec(base.body)![0] : Object.keys(data).length > 0 ? '\n' : '';
  const body = bodyUnchanged ? base.body : headingless ? `${leading}${markdown}` : `${leading}${titleLine}\n${markdown === '' ? '' : `\n${markdown}`}`;

  if (original !== undefined && same(data, base.data) && Object.keys(data).join() === Object.keys(base.data).join()) {
    if (bodyUnchanged) return original;
    return original.slice(0, original.length - base.body.length) + body;
  }
  return stringifyFrontMatter(data, body);
}
