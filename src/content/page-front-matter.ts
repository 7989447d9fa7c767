/**
 * A page file's front matter keys -> DocumentPage fields (docs/git-format.md "A page file"), with the defaults of a
 * page's layout. A key set to null (`description:` with nothing after it) counts as absent. Any other value of the
 * wrong type is a problem, never silently dropped. Apart from the title and the cover (./page-title.ts, ./page.ts):
 * these keys are read the same way when a page is written back (./page-writing.ts).
 */
import { frontMatterKeyLine, type FrontMatter } from './frontmatter.js';
import type { ContentProblem, DocumentPage, PageCover, PageLayout } from './model.js';

export const DEFAULT_LAYOUT: Readonly<PageLayout> = Object.freeze({
  width: 'default',
  cover: true,
  coverSize: 'hero',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
});

/** Layout flags kept as `layout.<key>.visible`, in the order they are written. */
export const LAYOUT_FLAGS = ['cover', 'title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata'] as const;

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** The DocumentPage fields a page file gives, before ids, slugs and timestamps are assigned. */
/** The optional page fields that come straight from front matter. */
export type FrontMatterFields = Pick<DocumentPage, 'description' | 'emoji' | 'icon' | 'hidden' | 'noIndex' | 'noRobotsIndex' | 'variables'>;

export interface PageFields extends FrontMatterFields {
  /** Front matter `id`, when written. */
  id?: string;
  type: 'document' | 'computed';
  /** The SUMMARY.md title, else the body's title heading, else the file name. */
  title: string;
  /** True when the body's title heading is the title (and so is not part of `markdown`). */
  titleInBody: boolean;
  markdown: string;
  layout: PageLayout;
  /** `cover` / `coverDark` as written (relative to the page) and `coverY`. */
  coverPath?: string;
  coverDarkPath?: string;
  coverY: number;
  /** Resolved cover (file ids), when `fileIdOf` was given. */
  cover?: PageCover;
  computed?: Record<string, unknown>;
  computedSeed?: string;
  frontMatter: Record<string, unknown>;
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Reads the known keys of front matter `data`; problems for wrong types (line of the top-level key). */
export function readFrontMatterFields(
  frontMatter: FrontMatter,
  path: string,
  problems: ContentProblem[],
): Omit<PageFields, 'title' | 'titleInBody' | 'markdown' | 'cover'> {
  const data = frontMatter.data;
  const wrong = (key: string, expected: string, value: unknown, shownKey = key): void => {
    problems.push({
      path,
      line: frontMatterKeyLine(frontMatter, key),
      message: `front matter \`${shownKey}\` must be ${expected}, found ${describe(value)}`,
    });
  };
  const get = (key: string): unknown => (data[key] === null ? undefined : data[key]);
  const string = (key: string, opts: { integers?: boolean } = {}): string | undefined => {
    const value = get(key);
    if (value === undefined || typeof value === 'string') return value;
    if (opts.integers && typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    wrong(key, 'a string', value);
    return undefined;
  };
  const boolean = (key: string): boolean | undefined => {
    const value = get(key);
    if (value === undefined || typeof value === 'boolean') return value;
    wrong(key, 'true or false', value);
    return undefined;
  };

  const fields: Omit<PageFields, 'title' | 'titleInBody' | 'markdown' | 'cover'> = {
    type: 'document',
    layout: { ...DEFAULT_LAYOUT },
    coverY: 0,
    frontMatter: data,
  };
  const id = string('id', { integers: true });
  if (id !== undefined) {
    if (ID_PATTERN.test(id)) fields.id = id;
    else problems.push({ path, line: frontMatterKeyLine(frontMatter, 'id'), message: 'front matter `id` may hold only letters, digits, `_` and `-`' });
  }
  const set = <K extends keyof typeof fields>(key: K, value: (typeof fields)[K] | undefined): void => {
    if (value !== undefined) fields[key] = value;
  };
  set('description', string('description'));
  set('emoji', string('emoji', { integers: true }));
  set('icon', string('icon'));
  set('hidden', boolean('hidden'));
  set('noIndex', boolean('noIndex'));
  set('noRobotsIndex', boolean('noRobotsIndex'));
  set('coverPath', string('cover'));
  set('coverDarkPath', string('coverDark'));
  set('computedSeed', string('computedSeed'));

  const coverY = get('coverY');
  if (coverY !== undefined) {
    if (typeof coverY === 'number' && Number.isFinite(coverY)) fields.coverY = coverY;
    else wrong('coverY', 'a number', coverY);
  }

  const vars = get('vars');
  if (vars !== undefined) {
    if (!isMapping(vars)) wrong('vars', 'a mapping of names to strings', vars);
    else {
      const variables: Record<string, string> = {};
      for (const [name, value] of Object.entries(vars)) {
        if (typeof value === 'string') variables[name] = value;
        else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value))) variables[name] = String(value);
        else wrong('vars', 'a string (quote numbers such as 3.10 to keep them as written)', value, `vars.${name}`);
      }
      fields.variables = variables;
    }
  }

  const computed = get('computed');
  if (computed !== undefined) {
    if (isMapping(computed)) {
      fields.computed = computed;
      fields.type = 'computed';
    } else wrong('computed', 'a mapping', computed);
  }

  const layout = get('layout');
  if (layout !== undefined) {
    if (!isMapping(layout)) wrong('layout', 'a mapping', layout);
    else {
      for (const key of LAYOUT_FLAGS) {
        const entry = layout[key];
        if (entry === undefined || entry === null) continue;
        if (!isMapping(entry)) {
          wrong('layout', 'a mapping such as `{visible: true}`', entry, `layout.${key}`);
          continue;
        }
        const visible = entry.visible;
        if (visible !== undefined && visible !== null) {
          if (typeof visible === 'boolean') fields.layout[key] = visible;
          else wrong('layout', 'true or false', visible, `layout.${key}.visible`);
        }
        if (key === 'cover' && entry.size !== undefined && entry.size !== null) {
          const size = entry.size;
          if (size === 'hero' || size === 'full') fields.layout.coverSize = size;
          else if (size === 'background') fields.layout.coverSize = 'full';
          else wrong('layout', '`hero`, `full` or `background`', size, 'layout.cover.size');
        }
      }
      const width = layout.width;
      if (width !== undefined && width !== null) {
        if (width === 'default' || width === 'wide') fields.layout.width = width;
        else wrong('layout', '`default` or `wide`', width, 'layout.width');
      }
    }
  }
  return fields;
}
