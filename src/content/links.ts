/**
 * The links of a revision: every link of every document page, parsed with the GitBook-flavoured markdown parser
 * (src/content/gitbook-markdown.ts), resolved against the revision the way the git format lays it out. Pure: no git, no
 * SQL.
 *
 * What counts as a link of a page:
 * - markdown links and images `[t](href)` / `![a](src)`, reference-style links and images `[t][ref]` (through their
 *   definition; a reference without a definition is plain text, as CommonMark renders it), autolinks `<https://…>`
 *   and GFM's literal autolinks (`https://…`, `www.…`, e-mail addresses);
 * - the GitBook blocks `{% include "…" %}` (relation `dependsOn`), `{% embed url="…" %}`, `{% file src="…" %}` and
 *   `{% content-ref url="…" %}` (relation `reference`);
 * - the page's cover and dark cover (front matter `cover`, `coverDark`): references to their files.
 * Code (fenced, indented, inline) and raw HTML are not read. Link pages of SUMMARY.md are pages, not links, and the
 * bodies of reusable contents are not pages, so neither is a location.
 *
 * How a link resolves (status `ok` or `broken`; `in-app` is told apart when read, see src/domain/content/link-lists.ts):
 * - a URL with a scheme (`https:`, `mailto:`) or `//host`: kind `url`, always `ok`. External URLs are never fetched.
 *   http(s) URLs are normalized (`new URL(href).href`: lower-case scheme and host, default port dropped).
 * - `#anchor` alone: the page itself at that anchor (anchors are not checked against the headings).
 * - anything else is a path, percent-decoded when the written form does not match, relative to the page's file (or to
 *   the content root when it starts with `/`), without its `?query`; `#anchor` is kept for pages. It resolves to a
 *   page (its file), a folder's page (`folder/` or `folder` -> `folder/README.md`), a reusable content
 *   (`.gitbook/includes/*.md`, also at the top of the repository outside the content root) or a file of the revision
 *   (`.gitbook/assets/*`, and any other blob under the root, including `.md` files SUMMARY.md does not list). Names
 *   compare in Unicode's composed form (NFC); a `#` or `?` that is part of a file name works written as is or
 *   percent-encoded. Otherwise, or when it leaves the content root, it is `broken` (kind `missing`, the path it
 *   resolved to).
 */
import crypto from 'node:crypto';
import type { Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { visit } from 'unist-util-visit';
import { gitbookMarkdownParser, type GitbookNode } from './gitbook-markdown.js';
import type { DocumentContext } from './document-nodes.js';
import type { DocumentPage, Page, Revision } from './model.js';
import { boundedParagraphs } from './bounded-markdown.js';
import { htmlUrls } from './html-text.js';
import { decodePath, folderOf, isUnder, isUrl, resolvePath } from './paths.js';

export type LinkRelation = 'reference' | 'dependsOn';
export type LinkTargetKind = 'page' | 'file' | 'url' | 'reusable-content' | 'missing';
export type LinkStatus = 'ok' | 'broken';

/** A link as written in a page. */
export interface RawLink {
  href: string;
  relation: LinkRelation;
}

/** A link of a revision, resolved: one per page, relation and target. */
export interface RevisionLink {
  pageId: string;
  /** The page's place in the revision's page order (0 for the first page). */
  pageOrder: number;
  relation: LinkRelation;
  kind: LinkTargetKind;
  /** Page, file or reusable-content id; the URL; the path that resolves to nothing. */
  value: string;
  /** For page targets: the `#anchor` of the link. */
  anchor?: string;
  status: LinkStatus;
  /** The key every link to the same target (and anchor) shares. */
  target: string;
}

const parser = gitbookMarkdownParser().freeze();

// Without one of these a body has no link at all, and is not parsed (most paragraphs of prose have none).
const MAY_LINK = /[[<@{]|:\/\/|www\./i;

const BLOCKS: Array<{ pattern: RegExp; relation: LinkRelation }> = [
  { pattern: /\{%\s*include\s+"([^"]+)"\s*%\}/g, relation: 'dependsOn' },
  { pattern: /\{%\s*embed\s+url="([^"]+)"[^%]*%\}/g, relation: 'reference' },
  { pattern: /\{%\s*file\s+src="([^"]+)"[^%]*%\}/g, relation: 'reference' },
  { pattern: /\{%\s*content-ref\s+url="([^"]+)"\s*%\}/g, relation: 'reference' },
];

const BLANK = /^[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
// A line that may open or continue a container or a block spanning blank lines: indented, a list item, a quote, a
// table row, HTML.
const STRUCTURAL = /^(?:[ \t]|[-+*][ \t]|\d{1,9}[.)][ \t]|[>|<])/;

/**
 * The body with every plain paragraph that cannot hold a link replaced by `x`, so that remark parses only what
 * matters (prose is most of a page, and parsing is most of the cost of indexing). A chunk (lines between blank
 * lines, fenced code taken whole) is replaced only when none of its lines starts like a container or a block that
 * spans blank lines (indentation, list marker, `>`, `|`, `<`, a fence), and it has none of `[ < > @ {`, `://`,
 * `www.`: such a chunk is a paragraph, a heading or a thematic break at the top level, and after a blank line any
 * of those closes what came before it, like the `x` paragraph put in its place. Everything else is kept as
 * written, so the links remark finds are the links of the whole body.
 */
export function linkBearingText(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  const chunks: string[] = [];
  let current: string[] = [];
  let plain = true;
  const close = () => {
    if (current.length === 0) return;
    const text = current.join('\n');
    chunks.push(plain && !MAY_LINK.test(text) && !text.includes('>') ? 'x' : text);
    current = [];
    plain = true;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (BLANK.test(line)) {
      close();
      continue;
    }
    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[1][0] === '`' && fence[2].includes('`'))) {
      // Fenced code, blank lines included, up to its closing fence (or the end): kept whole.
      plain = false;
      current.push(line);
      const closing = new RegExp(`^ {0,3}${fence[1][0] === '`' ? '`' : '~'}{${fence[1].length},}[ \t]*$`);
      for (i += 1; i < lines.length; i++) {
        current.push(lines[i]);
        if (closing.test(lines[i])) break;
      }
      continue;
    }
    if (STRUCTURAL.test(line)) plain = false;
    current.push(line);
  }
  close();
  return chunks.join('\n\n');
}

/** The links written in a markdown body, in order (duplicates kept). */
export function extractLinks(markdown: string): RawLink[] {
  if (!MAY_LINK.test(markdown)) return [];
  const tree = parser.runSync(parser.parse(boundedParagraphs(linkBearingText(markdown)).text)) as Root;
  // Definitions may come after the references that use them. Identifiers are normalized by the parser.
  const definitions = new Map<string, string>();
  visit(tree, 'definition', (node) => {
    if (!definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
  });
  const links: RawLink[] = [];
  const add = (href: string | undefined, relation: LinkRelation = 'reference') => {
    if (href !== undefined && href.trim() !== '') links.push({ href: href.trim(), relation });
  };
  visit(tree, (visited) => {
    const node = visited as GitbookNode;
    switch (node.type) {
      case 'link':
      case 'image':
        add(node.url);
        break;
      case 'linkReference':
      case 'imageReference':
        add(definitions.get(node.identifier));
        break;
      case 'html':
        // Raw HTML: GitBook's figures (`<figure><img src>`), pictures, tables of links and cards.
        for (const url of htmlUrls(node.value)) add(url);
        break;
      case 'liquidTag':
        tagLinks(`{% ${node.value} %}`, add);
        break;
      case 'liquidBlock':
        tagLinks(`{% ${node.name} ${node.args} %}`, add);
        break;
      case 'paragraph':
        // A tag written inside a paragraph, with text beside it, is text; the platform still reads it.
        tagLinks(toString(node, { includeHtml: false }), add);
        break;
    }
  });
  return links;
}

/** The targets of GitBook's tags in `text` (a tag as written, or a paragraph's plain text). */
function tagLinks(text: string, add: (href: string, relation: LinkRelation) => void): void {
  if (!text.includes('{%')) return;
  for (const { pattern, relation } of BLOCKS) {
    for (const match of text.matchAll(pattern)) add(match[1], relation);
  }
}

/** http(s) URLs in their normal form; anything else as written. */
export function normalizeUrl(href: string): string {
  if (!/^https?:/i.test(href)) return href;
  try {
    return new URL(href).href;
  } catch {
    return href;
  }
}

const MAX_KEY = 512;

/**
 * The key every link to the same target (and anchor) shares. Keys long enough to strain an index (long URLs) are
 * hashed; the value keeps the whole text.
 */
export function targetKey(kind: LinkTargetKind, value: string, anchor?: string): string {
  const key = `${kind}:${value}${anchor !== undefined ? `#${anchor}` : ''}`;
  if (key.length <= MAX_KEY) return key;
  return `${kind}:sha256:${crypto.createHash('sha256').update(key).digest('hex')}`;
}

/** Every document page in page order (a pre-order walk of the tree). */
export function documentPages(pages: Page[], out: DocumentPage[] = []): DocumentPage[] {
  for (const page of pages) {
    if (page.type === 'document' || page.type === 'computed') out.push(page);
    documentPages(page.pages, out);
  }
  return out;
}

/** What the paths of a revision resolve to, as resolveLink reads them. */
export interface LinkLookups {
  root: string;
  pages: Map<string, Pick<DocumentPage, 'id'>>;
  /** Folder (no trailing slash) -> the page of its README.md. */
  readmes: Map<string, Pick<DocumentPage, 'id'>>;
  files: Map<string, string>;
  reusable: Map<string, string>;
}

/** LinkLookups as plain data, for a CPU pool thread: each map's paths with the ids they lead to. */
export interface PlainLinkLookups {
  root: string;
  pages: Array<[string, string]>;
  readmes: Array<[string, string]>;
  files: Array<[string, string]>;
  reusable: Array<[string, string]>;
}

export function plainLinkLookups(lookups: LinkLookups): PlainLinkLookups {
  const ids = (map: Map<string, Pick<DocumentPage, 'id'>>) => [...map].map(([path, page]): [string, string] => [path, page.id]);
  return { root: lookups.root, pages: ids(lookups.pages), readmes: ids(lookups.readmes), files: [...lookups.files], reusable: [...lookups.reusable] };
}

export function linkLookupsFromPlain(plain: PlainLinkLookups): LinkLookups {
  const pages = (entries: Array<[string, string]>) => new Map(entries.map(([path, id]) => [path, { id }]));
  return { root: plain.root, pages: pages(plain.pages), readmes: pages(plain.readmes), files: new Map(plain.files), reusable: new Map(plain.reusable) };
}

/** The lookups of a revision whose document pages (in page order) are `pages`. */
export function linkLookups(revision: Revision, pages: DocumentPage[] = documentPages(revision.pages)): LinkLookups {
  const readmes = new Map<string, DocumentPage>();
  for (const page of pages) {
    const slash = page.gitPath.lastIndexOf('/');
    if (page.gitPath.slice(slash + 1).toLowerCase() === 'readme.md') readmes.set(page.gitPath.slice(0, Math.max(slash, 0)).normalize('NFC'), page);
  }
  return {
    root: revision.root,
    pages: new Map(pages.map((p) => [p.gitPath.normalize('NFC'), p])),
    readmes,
    files: new Map(revision.files.map((f) => [f.gitPath.normalize('NFC'), f.id])),
    reusable: new Map(revision.reusableContents.map((r) => [r.gitPath.normalize('NFC'), r.id])),
  };
}

/**
 * What each path that resolves to something resolves to, as `kind:id` (`reusable-content:…`, `page:…`, `file:…`):
 * a link's target depends on the revision only through these answers at the paths it tries (and the content root).
 * Two revisions with the same root resolve a page's links alike unless an answer differs at a path the page tries
 * (the incremental index compares them, src/domain/content/link-index.ts).
 */
export function linkAnswers(lookups: LinkLookups): Map<string, string> {
  const answers = new Map<string, string>();
  const paths = new Set([...lookups.reusable.keys(), ...lookups.pages.keys(), ...lookups.readmes.keys(), ...lookups.files.keys()]);
  for (const path of paths) {
    const answer = answerAt(path, lookups);
    if (answer !== undefined) answers.set(path, `${answer.kind}:${answer.value}`);
  }
  return answers;
}

/** What one path (NFC) resolves to, in resolveLink's order; undefined for nothing. */
function answerAt(gitPath: string, lookups: LinkLookups): Pick<RevisionLink, 'kind' | 'value'> | undefined {
  // Reusable contents may live at the top of the repository, outside the content root.
  const reusable = lookups.reusable.get(gitPath);
  if (reusable) return { kind: 'reusable-content', value: reusable };
  if (!isUnder(gitPath, lookups.root)) return undefined;
  const page = lookups.pages.get(gitPath) ?? lookups.readmes.get(gitPath);
  if (page) return { kind: 'page', value: page.id };
  const file = lookups.files.get(gitPath);
  if (file) return { kind: 'file', value: file };
  return undefined;
}

type Resolved = Pick<RevisionLink, 'kind' | 'value' | 'anchor' | 'status'>;

/**
 * Resolves one link written in `page` (see the rules at the top of this file); undefined for an empty link. Each
 * path it tries and finds nothing at is added to `probes` (a later revision with something there resolves it
 * otherwise).
 */
function resolveLink(href: string, page: Pick<DocumentPage, 'id' | 'gitPath'>, lookups: LinkLookups, probes?: Set<string>): Resolved | undefined {
  if (isUrl(href)) return { kind: 'url', value: normalizeUrl(href), status: 'ok' };
  const hash = href.indexOf('#');
  const anchor = hash >= 0 ? href.slice(hash + 1) : undefined;
  let path = hash >= 0 ? href.slice(0, hash) : href;
  const query = path.indexOf('?');
  if (query >= 0) path = path.slice(0, query);
  if (path === '') return anchor ? { kind: 'page', value: page.id, anchor, status: 'ok' } : undefined;
  const { root } = lookups;
  let firstResolved: string | undefined;
  // A `#` or `?` may also be part of a file's name (`C#.md`, `image?.png`), written as is: the whole href is tried
  // after the path without them.
  const written = [path, ...(hash >= 0 || query >= 0 ? [href] : [])];
  for (const candidate of new Set(written.flatMap((w) => [w, decodePath(w)]))) {
    const resolved = candidate.startsWith('/') ? resolvePath(root, candidate.replace(/^\/+/, '')) : resolvePath(folderOf(page.gitPath), candidate);
    if (resolved === undefined) continue;
    // Names compare in Unicode's composed form (macOS writes some names decomposed).
    const gitPath = resolved.normalize('NFC');
    if (isUnder(gitPath, root)) firstResolved ??= gitPath;
    const answer = answerAt(gitPath, lookups);
    if (answer?.kind === 'page') {
      const at = candidate === path || candidate === decodePath(path) ? anchor : undefined;
      return { ...answer, ...(at ? { anchor: at } : {}), status: 'ok' };
    }
    if (answer) return { ...answer, status: 'ok' };
    probes?.add(gitPath);
  }
  const missing = firstResolved !== undefined ? firstResolved.slice(root.length) : decodePath(path);
  return { kind: 'missing', value: missing, status: 'broken' };
}

/**
 * How the links of `page` resolve, for a JSONDocument (src/content/document.ts): the rules above, a target that
 * resolves to nothing kept as the URL written. Build one per revision (`documentLinksOf(revision)`), then ask it
 * per page: the lookups are made once.
 */
export function documentLinksOf(revision: Revision): (page: DocumentPage) => DocumentContext {
  const lookups = linkLookups(revision);
  return (page) => documentLinks(lookups, page);
}

/** How the links of `page` resolve for a JSONDocument, with the lookups of its revision (see documentLinksOf). */
export function documentLinks(lookups: LinkLookups, page: Pick<DocumentPage, 'id' | 'gitPath'>): DocumentContext {
  return {
    resolveLink(href) {
      const resolved = resolveLink(href, page, lookups);
      switch (resolved?.kind) {
        case 'url':
          return { kind: 'url', url: resolved.value };
        case 'page':
          return resolved.anchor !== undefined ? { kind: 'anchor', anchor: resolved.anchor, page: resolved.value } : { kind: 'page', page: resolved.value };
        case 'file':
          return { kind: 'file', file: resolved.value };
        case 'reusable-content':
          return { kind: 'reusable-content', reusableContent: resolved.value };
        default:
          return { kind: 'url', url: href };
      }
    },
    resolveInclude(path) {
      const resolved = resolveLink(path, page, lookups);
      return resolved?.kind === 'reusable-content' ? resolved.value : undefined;
    },
  };
}

/**
 * The links of one document page, resolved against `lookups`, one per relation and target, in the order written
 * (its covers first). `rawLinks` are the links written in its body; each path a link tried and found nothing at is
 * added to `probes`.
 */
export function pageLinks(page: DocumentPage, pageOrder: number, rawLinks: RawLink[], lookups: LinkLookups, probes?: Set<string>): RevisionLink[] {
  const out: RevisionLink[] = [];
  const seen = new Set<string>();
  const push = (relation: LinkRelation, resolved: Resolved) => {
    const target = targetKey(resolved.kind, resolved.value, resolved.anchor);
    const key = `${relation}\0${target}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ pageId: page.id, pageOrder, relation, ...resolved, target });
  };
  for (const file of [page.cover?.file, page.cover?.fileDark]) {
    if (file) push('reference', { kind: 'file', value: file, status: 'ok' });
  }
  for (const link of rawLinks) {
    const resolved = resolveLink(link.href, page, lookups, probes);
    if (resolved) push(link.relation, resolved);
  }
  return out;
}

/**
 * Every link of every document page of a revision, resolved, one per page, relation and target. `rawLinksOf`
 * reads a page's links (extractLinks of its body by default; callers may cache it by blob).
 */
export function revisionLinks(revision: Revision, rawLinksOf: (page: DocumentPage) => RawLink[] = (page) => extractLinks(page.markdown)): RevisionLink[] {
  const pages = documentPages(revision.pages);
  const lookups = linkLookups(revision, pages);
  return pages.flatMap((page, pageOrder) => pageLinks(page, pageOrder, rawLinksOf(page), lookups));
}
