/**
 * The HTML around a published page: the site's header (brand, sections, search, theme switch), the sidebar (the
 * section's variants and the space's table of contents; a drawer on a phone), the page (cover, title, description,
 * content, last update), previous and next, and the "on this page" outline (a column on a wide screen, a collapsible
 * list at the top of the article on a phone). Tabs switch with CSS; the scripts (site-scripts.ts, files of Quire's
 * own origin) only add to a page that works without them. Every value is escaped here (the page's own HTML comes
 * sanitized from src/content/page-html.ts).
 *
 * The same shell (siteShell) frames the site's other pages: its search results (search-page.ts) and its "not found"
 * page (not-found.ts). The stylesheet is site-css.ts.
 */
import { escapeHtml, referencedCharacter } from '../../../content/html-text.js';
import { allowedUrl } from '../../../content/url-scheme.js';
import type { DocumentPage, Page } from '../../../content/model.js';
import { ASSETS } from './site-assets.js';
import { SITE_CSS } from './site-css.js';
import { feedbackHtml } from './feedback-form.js';

export interface NavLink {
  title: string;
  href: string;
  current: boolean;
}

/** A site's own icon (GitBook's `Site.icon`): an emoji, or an image (with its dark-theme variant). */
export type SiteIcon = { emoji: string } | { src: string; dark?: string };

/** What every page of a site shows around its content. */
export interface SiteFrame {
  siteTitle: string;
  siteHref: string;
  /** Where the search box sends its query (`?q=`). */
  searchHref: string;
  /** The script that searches as the reader types (absent: the box only sends its form). */
  liveSearch?: string;
  /** The site's icon, when it has one (Quire's own icon is the favicon otherwise; the header then shows the title alone). */
  icon?: SiteIcon;
  /** The favicon's URL (the site's `favicon.svg`). */
  faviconHref: string;
  sections: NavLink[];
  /** What the reader is previewing (a change request), said above the header of every page; absent on the site itself. */
  previewOf?: string;
}

export interface LayoutInput extends SiteFrame {
  variants: NavLink[];
  /** The table of contents with the current page marked (tocList of the space's pages). */
  toc: string;
  current: DocumentPage;
  html: string;
  outline: Array<{ depth: number; text: string; id: string }>;
  previous?: NavLink;
  next?: NavLink;
  /** Unlisted sites and pages that ask for it. */
  noIndex: boolean;
  cover?: Cover;
  /** Where the page's "Was this page helpful?" form is sent (feedbackAction); absent: no form (a static export). */
  feedbackAction?: string;
}

export interface Cover {
  src: string;
  /** The image for the dark theme. */
  dark?: string;
  size: 'hero' | 'full';
  /** Vertical offset of the image in its frame, in pixels (the platform's `coverY`). */
  yPos: number;
}

/** Both images of a cover with a dark variant, the theme's shown by CSS (a `<source media>` would follow only the system's). */
function coverHtml(cover: Cover): string {
  const style = `object-position:center calc(50% + ${Math.round(cover.yPos)}px)`;
  const image = (src: string, className: string) => `<img${className ? ` class="${className}"` : ''} src="${escapeHtml(src)}" alt="" style="${style}"${className === 'only-dark' ? ' loading="lazy"' : ''}>`;
  return `<div class="cover cover-${cover.size}">${cover.dark ? `${image(cover.src, 'only-light')}${image(cover.dark, 'only-dark')}` : image(cover.src, '')}</div>`;
}

/** Icons of the header, drawn in the text colour (the page's own markup: no request, no script). */
const MENU_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 6h16M4 12h16M4 18h16"/></svg>';
const THEME_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/><path d="M12 3a9 9 0 0 0 0 18Z" fill="currentColor"/></svg>';

/** Code points of a GitBook emoji value (`1f600`, `1f468-200d-1f4bb`) as text; anything else shows nothing. */
export function emojiText(value: string | undefined): string {
  if (!value || !/^[0-9a-f]{1,8}(-[0-9a-f]{1,8}){0,15}$/i.test(value)) return '';
  // Code points past U+10FFFF (or surrogates) show as U+FFFD: String.fromCodePoint would throw on them.
  return value
    .split('-')
    .map((hex) => referencedCharacter(Number.parseInt(hex, 16)))
    .join('');
}

function iconHtml(icon: SiteIcon | undefined): string {
  if (!icon) return '';
  if ('emoji' in icon) return `<span class="emoji" aria-hidden="true">${escapeHtml(icon.emoji)}</span>`;
  // Decorative: the title beside it names the site.
  if (!icon.dark) return `<img src="${escapeHtml(icon.src)}" alt="">`;
  return `<span class="cover"><img class="only-light" src="${escapeHtml(icon.src)}" alt=""><img class="only-dark" src="${escapeHtml(icon.dark)}" alt=""></span>`;
}

function navLinks(links: NavLink[]): string {
  return links.map((link) => `<a href="${escapeHtml(link.href)}"${link.current ? ' aria-current="page"' : ''}>${escapeHtml(link.title)}</a>`).join('');
}

/** The site's sections as tabs below the header (their titles as render.ts's siteFrame words them). */
function sectionsNav(frame: SiteFrame): string {
  if (frame.sections.length < 2) return '';
  return `<nav class="sections" aria-label="Sections">${navLinks(frame.sections)}</nav>`;
}

/** The header of every page of a site: menu button (with a sidebar), brand, search, theme switch, then the sections. */
export function siteHeader(frame: SiteFrame, options: { query?: string; sidebar?: boolean } = {}): string {
  const menu = options.sidebar
    ? `<button type="button" class="icon-button menu-button" aria-controls="sidebar" aria-expanded="false" aria-label="Menu">${MENU_ICON}</button>`
    : '';
  const search = `<form class="search" role="search" action="${escapeHtml(frame.searchHref)}" method="get"><input type="search" name="q" aria-label="Search" placeholder="Search…" value="${escapeHtml(options.query ?? '')}"></form>`;
  const theme = `<label class="theme-switch">${THEME_ICON}<span class="sr-only">Theme</span><select><option value="system">System</option><option value="light">Light</option><option value="dark">Dark</option></select></label>`;
  return `<header class="site"><div class="bar">${menu}<a class="brand" href="${escapeHtml(frame.siteHref || '/')}">${iconHtml(frame.icon)}<span>${escapeHtml(frame.siteTitle)}</span></a>${search}${theme}</div>${sectionsNav(frame)}</header>`;
}

function previewBanner(frame: SiteFrame): string {
  return frame.previewOf ? `<aside class="preview-banner" aria-label="Preview"><p>${escapeHtml(frame.previewOf)}</p></aside>` : '';
}

/**
 * A whole page of a site: its head (title, the theme script before anything is painted, the stylesheet, the deferred
 * scripts) and body (skip link, header, then `body`).
 */
export function siteShell(frame: SiteFrame, input: { title: string; head?: string; body: string; query?: string; sidebar?: boolean }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>${input.head ?? ''}
<link rel="icon" href="${escapeHtml(frame.faviconHref)}" type="image/svg+xml">
<script src="${ASSETS.theme.path}"></script>
<style>${SITE_CSS}</style>
<script src="${ASSETS.site.path}" defer></script>${frame.liveSearch ? `\n<script src="${escapeHtml(frame.liveSearch)}" defer></script>` : ''}
</head>
<body><a class="skip" href="#content">Skip to content</a>${previewBanner(frame)}${siteHeader(frame, input)}
${input.body}
</body></html>
`;
}

/** The table of contents: groups, nesting, hidden pages left out, the current page marked. */
export function tocList(pages: Page[], pageHref: (page: Page) => string | undefined, currentId: string | undefined): string {
  return markedToc(markableToc(pages, pageHref), currentId);
}

/**
 * The table of contents with no page marked, and where the link of each document page ends its opening tag (by page
 * id): made once, it is every page's table of contents (markedToc), a space's pages share it.
 */
export interface MarkableToc {
  html: string;
  marks: ReadonlyMap<string, number[]>;
}

/** tocList's HTML and where it marks each page (see MarkableToc). */
export function markableToc(pages: Page[], pageHref: (page: Page) => string | undefined): MarkableToc {
  const parts: string[] = [];
  let length = 0;
  const marks = new Map<string, number[]>();
  const put = (part: string) => {
    parts.push(part);
    length += part.length;
  };
  const list = (items: Page[]) => {
    const shown = items.filter((page) => !(page.type === 'document' && page.hidden));
    if (shown.length === 0) return;
    put('<ul>');
    for (const page of shown) {
      const title = escapeHtml(page.tocTitle ?? page.title);
      if (page.type === 'group') {
        put(`<li><div class="group">${title}</div>`);
        list(page.pages);
        put('</li>');
        continue;
      }
      // Where a link item becomes an href, the URL rule of content links, whatever made the tree (a SUMMARY.md
      // parse leaves such items out already, with a warning).
      const written = pageHref(page);
      const href = written === undefined ? undefined : allowedUrl(written);
      const emoji = page.type === 'document' ? emojiText(page.emoji) : '';
      if (href) {
        put(`<li><a href="${escapeHtml(href)}"`);
        if (page.type === 'document') marks.set(page.id, [...(marks.get(page.id) ?? []), length]);
        put(`>${emoji ? `${emoji} ` : ''}${title}</a>`);
      } else put(`<li><span>${title}</span>`);
      list(page.pages);
      put('</li>');
    }
    put('</ul>');
  };
  list(pages);
  return { html: parts.join(''), marks };
}

/** A table of contents (markableToc) with the page `currentId` marked as the current one. */
export function markedToc(toc: MarkableToc, currentId: string | undefined): string {
  const at = currentId === undefined ? undefined : toc.marks.get(currentId);
  if (!at) return toc.html;
  let html = '';
  let from = 0;
  for (const offset of at) {
    html += `${toc.html.slice(from, offset)} aria-current="page"`;
    from = offset;
  }
  return html + toc.html.slice(from);
}

/** The sidebar: the variants of the section, then the table of contents (`#sidebar`: the drawer the menu button opens). */
export function sidebarHtml(variants: NavLink[], toc: string): string {
  const variantsNav = variants.length > 1 ? `<nav class="variants" aria-label="Variants">${navLinks(variants)}</nav>` : '';
  return `<div class="sidebar" id="sidebar">${variantsNav}<nav class="toc" aria-label="Table of contents">${toc}</nav></div>`;
}

function outlineList(outline: LayoutInput['outline']): string {
  return `<ul class="outline-list">${outline.map((item) => `<li class="d${item.depth}"><a href="#${escapeHtml(item.id)}">${escapeHtml(item.text)}</a></li>`).join('')}</ul>`;
}

function pagination(input: LayoutInput): string {
  const link = (rel: 'prev' | 'next', target: NavLink) => `<a rel="${rel}" href="${escapeHtml(target.href)}"><small>${rel === 'prev' ? 'Previous' : 'Next'}</small>${escapeHtml(target.title)}</a>`;
  if (!input.previous && !input.next) return '';
  return `<nav class="pagination" aria-label="Pages">${input.previous ? link('prev', input.previous) : ''}${input.next ? link('next', input.next) : ''}</nav>`;
}

export function renderLayout(input: LayoutInput): string {
  const page = input.current;
  const shown = page.layout;
  const outline = shown.outline ? input.outline.filter((item) => item.depth >= 2) : [];
  const updated = page.updatedAt ? `<p class="updated">Last updated <time datetime="${escapeHtml(page.updatedAt)}">${escapeHtml(page.updatedAt.slice(0, 10))}</time></p>` : '';
  const head = `${input.noIndex ? '\n<meta name="robots" content="noindex">' : ''}${page.description ? `\n<meta name="description" content="${escapeHtml(page.description)}">` : ''}`;
  const layoutClass = ['layout', ...(shown.width === 'wide' ? ['wide'] : []), ...(shown.tableOfContents ? [] : ['no-toc'])].join(' ');
  const sidebar = shown.tableOfContents ? sidebarHtml(input.variants, input.toc) : '';
  const mobileOutline = outline.length > 0 ? `<details class="outline-mobile"><summary>On this page</summary>${outlineList(outline)}</details>` : '';
  const body = `<div class="${layoutClass}">${sidebar}
<main id="content">${input.cover ? coverHtml(input.cover) : ''}<article>${shown.title ? `<h1>${escapeHtml(page.title)}</h1>` : ''}${shown.description && page.description ? `<p class="description">${escapeHtml(page.description)}</p>` : ''}${mobileOutline}
${input.html}
${shown.metadata ? updated : ''}</article>
${feedbackHtml(page.id, input.feedbackAction)}
${shown.pagination ? pagination(input) : ''}</main>
<aside class="outline" aria-label="On this page">${outline.length > 0 ? `<p class="heading">On this page</p>${outlineList(outline)}` : ''}</aside></div>`;
  return siteShell(input, { title: `${page.title} | ${input.siteTitle}`, head, body, sidebar: shown.tableOfContents });
}

/** The head and styles of Quire's plain pages (outside any site): the theme the system prefers. */
function plainPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><meta name="robots" content="noindex"><link rel="icon" href="${ASSETS.icon.path}" type="image/svg+xml"><style>${SITE_CSS}</style></head>
<body><main class="plain">${body}</main></body></html>
`;
}

/** A plain page for what is not there (or not for this reader), outside any site the reader may see. */
export function renderNotFound(): string {
  return plainPage('Not found', '<h1>Page not found</h1><p>There is no published page here, or it is not published for you.</p>');
}

/** A site, section or space whose root has nothing to show yet (200: the address is right, the content is to come). */
export function renderNothingYet(siteTitle: string): string {
  return plainPage(siteTitle, `<h1>${escapeHtml(siteTitle)}</h1><p>Nothing is published here yet.</p>`);
}

