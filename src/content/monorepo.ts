/**
 * Monorepos: one repository holding the content of several spaces, each in its project directory, and optionally a
 * `docs.yaml` at the repository's root describing the site they make (the hosted platform's `GitSyncSiteConfig`,
 * `$schema: https://api.gitbook.com/openapi.yaml#/components/schemas/GitSyncSiteConfig`; its documentation calls the
 * file `docs.yaml`, newer pages `gitbook-docs.yaml`: both are read, `docs.yaml` first).
 *
 * The format, from the hosted platform's "Content configuration" and "Monorepos" pages:
 *
 * ```yaml
 * site:
 *   title: Documentation
 *   structure:                      # spaces (a site without sections), or sections and section groups
 *     - type: section-group         # children: sections
 *       key: products
 *       title: Products
 *       icon: box
 *       children: [...]
 *     - type: section               # children: spaces (its variants, e.g. one per language)
 *       key: documentation          # stable identity of the item
 *       title: Documentation
 *       path: documentation         # one URL segment
 *       icon: book
 *       description: ...
 *       default: true
 *       children:
 *         - type: space
 *           key: docs-en
 *           title: English
 *           path: docs
 *           default: true
 *           content:
 *             directory: ./docs/en  # `./x` and `x`: from docs.yaml's folder (here the root); `/x`: from the root
 *             language: en          # null directory: a space not synced from this repository
 * ```
 * Also documented, accepted and not (yet) shown by Quire: `hidden`, `localizedTitle`, `localizedDescription`.
 *
 * Without docs.yaml, the project directories are found: every folder holding a `.gitbook.yaml`, and every folder
 * holding a SUMMARY.md that is not inside another project directory (a `.gitbook.yaml`'s root, or a folder with its
 * own SUMMARY.md above it); with none, the repository's root. Pure: no git, no SQL.
 */
import yaml from 'js-yaml';
import { CONFIG_PATH, parseGitbookConfig } from './config.js';
import type { ContentProblem } from './model.js';
import type { TreeSource } from './tree-source.js';
import { normalizeProjectDirectory } from './project-directory.js';

export const SITE_CONFIG_PATHS = ['docs.yaml', 'gitbook-docs.yaml'] as const;

export interface SiteSpaceItem {
  type: 'space';
  key: string;
  title?: string;
  path?: string;
  default: boolean;
  /** The project directory ('' or `a/b/`). */
  directory: string;
  language?: string;
}

export interface SiteSectionItem {
  type: 'section';
  key: string;
  title?: string;
  path?: string;
  icon?: string;
  description?: string;
  default: boolean;
  children: SiteSpaceItem[];
}

export interface SiteSectionGroupItem {
  type: 'section-group';
  key: string;
  title?: string;
  icon?: string;
  children: SiteSectionItem[];
}

export interface SitePlan {
  title?: string;
  /** Either only spaces, or only sections and section groups. */
  structure: Array<SiteSpaceItem | SiteSectionItem | SiteSectionGroupItem>;
}

/** One space to make: its project directory, and what docs.yaml says of it. */
export interface ProjectPlan {
  key: string;
  directory: string;
  title?: string;
  language?: string;
}

export interface MonorepoPlan {
  projects: ProjectPlan[];
  /** From docs.yaml, when the repository has one. */
  site?: SitePlan;
  /** Which file described the site. */
  siteConfigPath?: string;
  /** Keys of docs.yaml's spaces whose directory is null (not synced from this repository). */
  skipped: string[];
}

/** The problem found in docs.yaml, naming the field (`site.structure[1].children[0].content.directory`). */
class SiteConfigProblem extends Error {}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(item: Record<string, unknown>, key: string, field: string): string | undefined {
  const value = item[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SiteConfigProblem(`${field}.${key}: must be a string`);
  return value;
}

function optionalBoolean(item: Record<string, unknown>, key: string, field: string): boolean {
  const value = item[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new SiteConfigProblem(`${field}.${key}: must be true or false`);
  return value;
}

/** One URL segment (what sites accept as a path). */
const PATH = /^[^/?#\s]+$/u;

interface Walk {
  keys: Set<string>;
  /** Spaces whose directory is null: not synced from this repository, so not imported. */
  skipped: string[];
}

function itemBase(raw: unknown, field: string, walk: Walk): { item: Record<string, unknown>; key: string; type: string } {
  if (!isMapping(raw)) throw new SiteConfigProblem(`${field}: must be a mapping with type, key and title`);
  const type = raw.type;
  if (type !== 'space' && type !== 'section' && type !== 'section-group') throw new SiteConfigProblem(`${field}.type: must be space, section or section-group`);
  const key = raw.key;
  if (typeof key !== 'string' || key.trim() === '') throw new SiteConfigProblem(`${field}.key: must be a non-empty string (the item's stable identity)`);
  // Spaces are matched by key among spaces, sections and groups among theirs.
  const scoped = `${type === 'space' ? 'space' : 'section'}:${key}`;
  if (walk.keys.has(scoped)) throw new SiteConfigProblem(`${field}.key: "${key}" is used by another ${type === 'space' ? 'space' : 'section or group'}; keys are unique`);
  walk.keys.add(scoped);
  const path = optionalString(raw, 'path', field);
  if (path !== undefined && !PATH.test(path)) throw new SiteConfigProblem(`${field}.path: must be one URL path segment (no "/", "?", "#" or spaces)`);
  return { item: raw, key, type };
}

function uniqueAmong(items: Array<{ path?: string; default?: boolean }>, field: string): void {
  const paths = new Set<string>();
  items.forEach((item, i) => {
    if (item.path === undefined) return;
    if (paths.has(item.path)) throw new SiteConfigProblem(`${field}[${i}].path: "${item.path}" is used by an item beside it`);
    paths.add(item.path);
  });
  if (items.filter((item) => item.default).length > 1) throw new SiteConfigProblem(`${field}: more than one item says default: true`);
}

function parseSpace(raw: unknown, field: string, walk: Walk): SiteSpaceItem | undefined {
  const { item, key, type } = itemBase(raw, field, walk);
  if (type !== 'space') throw new SiteConfigProblem(`${field}.type: must be space here`);
  const content = item.content;
  if (!isMapping(content)) throw new SiteConfigProblem(`${field}.content: must be a mapping with directory`);
  if (content.directory === null || content.directory === undefined) {
    walk.skipped.push(key);
    return undefined;
  }
  if (typeof content.directory !== 'string') throw new SiteConfigProblem(`${field}.content.directory: must be a string or null`);
  const directory = normalizeProjectDirectory(content.directory);
  if (directory === undefined) throw new SiteConfigProblem(`${field}.content.directory: "${content.directory}" is not a folder inside the repository`);
  return {
    type: 'space',
    key,
    title: optionalString(item, 'title', field),
    path: optionalString(item, 'path', field),
    default: optionalBoolean(item, 'default', field),
    directory,
    language: optionalString(content, 'language', `${field}.content`),
  };
}

function children(item: Record<string, unknown>, field: string): unknown[] {
  const list = item.children;
  if (!Array.isArray(list) || list.length === 0) throw new SiteConfigProblem(`${field}.children: must be a non-empty list`);
  return list;
}

function parseSection(raw: unknown, field: string, walk: Walk): SiteSectionItem | undefined {
  const { item, key } = itemBase(raw, field, walk);
  const spaces = children(item, field)
    .map((child, i) => parseSpace(child, `${field}.children[${i}]`, walk))
    .filter((space): space is SiteSpaceItem => space !== undefined);
  uniqueAmong(spaces, `${field}.children`);
  if (spaces.length === 0) return undefined;
  return {
    type: 'section',
    key,
    title: optionalString(item, 'title', field),
    path: optionalString(item, 'path', field),
    icon: optionalString(item, 'icon', field),
    description: optionalString(item, 'description', field),
    default: optionalBoolean(item, 'default', field),
    children: spaces,
  };
}

/**
 * Parses docs.yaml. Throws an Error whose message names the file and the field when it does not follow the format
 * (or when it mixes spaces with sections at the top level, which a site cannot show).
 */
export function parseSiteConfig(text: string, fileName = 'docs.yaml'): { site: SitePlan; skipped: string[] } {
  try {
    let data: unknown;
    try {
      data = yaml.load(text, { schema: yaml.CORE_SCHEMA });
    } catch (error) {
      const e = error as yaml.YAMLException;
      throw new SiteConfigProblem(`not valid YAML${e.mark ? ` (line ${e.mark.line + 1})` : ''}: ${e.reason ?? e.message}`);
    }
    if (!isMapping(data) || !isMapping(data.site)) throw new SiteConfigProblem('site: must be a mapping with title and structure');
    const site = data.site;
    if (!Array.isArray(site.structure) || site.structure.length === 0) throw new SiteConfigProblem('site.structure: must be a non-empty list');
    const walk: Walk = { keys: new Set(), skipped: [] };
    const structure: SitePlan['structure'] = [];
    const kinds = new Set<string>();
    site.structure.forEach((raw, i) => {
      const field = `site.structure[${i}]`;
      const type = isMapping(raw) ? raw.type : undefined;
      kinds.add(type === 'space' ? 'space' : 'section');
      if (type === 'space') {
        const space = parseSpace(raw, field, walk);
        if (space) structure.push(space);
      } else if (type === 'section-group') {
        const { item, key } = itemBase(raw, field, walk);
        const sections = children(item, field)
          .map((child, j) => {
            if (isMapping(child) && child.type !== 'section') throw new SiteConfigProblem(`${field}.children[${j}].type: must be section here`);
            return parseSection(child, `${field}.children[${j}]`, walk);
          })
          .filter((section): section is SiteSectionItem => section !== undefined);
        if (sections.length > 0) structure.push({ type: 'section-group', key, title: optionalString(item, 'title', field), icon: optionalString(item, 'icon', field), children: sections });
      } else {
        const section = parseSection(raw, field, walk);
        if (section) structure.push(section);
      }
    });
    if (kinds.size > 1) throw new SiteConfigProblem('site.structure: mixes spaces with sections; a site holds either spaces or sections, so put those spaces in a section');
    uniqueAmong(
      structure.filter((item) => item.type !== 'section-group'),
      'site.structure',
    );
    const sections = structure.flatMap((item) => (item.type === 'section' ? [item] : item.type === 'section-group' ? item.children : []));
    const paths = new Set<string>();
    for (const section of sections) {
      if (section.path === undefined) continue;
      if (paths.has(section.path)) throw new SiteConfigProblem(`site.structure: two sections use the path "${section.path}"; section paths are unique in a site`);
      paths.add(section.path);
    }
    if (sections.filter((s) => s.default).length > 1) throw new SiteConfigProblem('site.structure: more than one section says default: true');
    return { site: { title: optionalString(site, 'title', 'site'), structure }, skipped: walk.skipped };
  } catch (error) {
    if (error instanceof SiteConfigProblem) throw new Error(`${fileName}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The spaces of a site plan, in the order of the file. */
export function spacesOfSite(site: SitePlan): SiteSpaceItem[] {
  return site.structure.flatMap((item) =>
    item.type === 'space' ? [item] : item.type === 'section' ? item.children : item.children.flatMap((section) => section.children),
  );
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

/**
 * What a repository's tree makes: the project directories and, with docs.yaml, the site. `problems` name the file
 * (docs.yaml's are about the file; a directory docs.yaml names that holds nothing is one too).
 */
export async function planMonorepo(source: TreeSource): Promise<{ plan: MonorepoPlan; problems: ContentProblem[] }> {
  const siteConfig = SITE_CONFIG_PATHS.map((path) => source.entries.find((entry) => entry.path === path)).find((entry) => entry !== undefined);
  if (siteConfig) {
    let parsed: ReturnType<typeof parseSiteConfig>;
    try {
      parsed = parseSiteConfig((await source.readBlob(siteConfig.oid)).toString('utf8'), siteConfig.path);
    } catch (error) {
      return { plan: { projects: [], skipped: [] }, problems: [{ path: siteConfig.path, message: (error as Error).message.slice(siteConfig.path.length + 2) }] };
    }
    const problems: ContentProblem[] = [];
    const projects = spacesOfSite(parsed.site).map((space) => ({ key: space.key, directory: space.directory, title: space.title, language: space.language }));
    for (const project of projects) {
      if (project.directory !== '' && !source.entries.some((entry) => entry.path.startsWith(project.directory))) {
        problems.push({ path: siteConfig.path, message: `space "${project.key}": content.directory "${project.directory}" holds no files in this repository` });
      }
    }
    if (projects.length === 0) problems.push({ path: siteConfig.path, message: 'site.structure: names no space with a content.directory in this repository' });
    return { plan: { projects, site: parsed.site, siteConfigPath: siteConfig.path, skipped: parsed.skipped }, problems };
  }

  // No docs.yaml: the folders that hold a .gitbook.yaml, then those with a SUMMARY.md not inside another project.
  const configured = new Map<string, string>();
  for (const entry of source.entries) {
    if (entry.path === CONFIG_PATH || entry.path.endsWith(`/${CONFIG_PATH}`)) {
      const directory = folderOf(entry.path);
      const { config } = parseGitbookConfig((await source.readBlob(entry.oid)).toString('utf8'), entry.path);
      configured.set(directory, directory + config.root);
    }
  }
  const summaries = source.entries
    .filter((entry) => /(^|\/)summary\.md$/i.test(entry.path))
    .map((entry) => folderOf(entry.path))
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const directories = [...configured.keys()];
  for (const folder of summaries) {
    const claimed = [...configured.values()].some((root) => folder.startsWith(root)) || directories.some((d) => folder.startsWith(d));
    if (!claimed) directories.push(folder);
  }
  if (directories.length === 0) directories.push('');
  directories.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { plan: { projects: directories.map((directory) => ({ key: directory.replace(/\/$/, '') || '.', directory })), skipped: [] }, problems: [] };
}
