/**
 * The HTML around a published page: the site's sections as top navigation, the site spaces of the section as a
 * variant switcher, the space's table of contents, the page (title, description, last update, content), previous
 * and next, and the "on this page" outline. Tabs switch with CSS (the only script is the search box's, optional), and every value is escaped here (the
 * page's own HTML comes sanitized from src/content/page-html.ts).
 */
import { escapeHtml, referencedCharacter } from '../../../content/html-text.js';
import { allowedUrl } from '../../../content/url-scheme.js';
import type { DocumentPage, Page } from '../../../content/model.js';

export interface NavLink {
  title: string;
  href: string;
  current: boolean;
}

export interface LayoutInput {
  siteTitle: string;
  siteHref: string;
  /** Where the search box sends its query (`?q=`). */
  searchHref: string;
  /** The script that searches as the reader types (absent: the box only sends its form). */
  liveSearch?: string;
  sections: NavLink[];
  variants: NavLink[];
  pages: Page[];
  pageHref(page: Page): string | undefined;
  current: DocumentPage;
  html: string;
  outline: Array<{ depth: number; text: string; id: string }>;
  previous?: NavLink;
  next?: NavLink;
  /** Unlisted sites and pages that ask for it. */
  noIndex: boolean;
  cover?: Cover;
}

export interface Cover {
  src: string;
  /** The image for a dark colour scheme. */
  dark?: string;
  size: 'hero' | 'full';
  /** Vertical offset of the image in its frame, in pixels (the platform's `coverY`). */
  yPos: number;
}

function coverHtml(cover: Cover): string {
  const position = `object-position:center calc(50% + ${Math.round(cover.yPos)}px)`;
  return `<picture class="cover cover-${cover.size}">${cover.dark ? `<source srcset="${escapeHtml(cover.dark)}" media="(prefers-color-scheme: dark)">` : ''}<img src="${escapeHtml(cover.src)}" alt="" style="${position}"></picture>`;
}

const CSS = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d1d9e0;--accent:#0969da;--hint-info:#ddf4ff;--hint-warning:#fff8c5;--hint-danger:#ffebe9;--hint-success:#dafbe1;--code:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--line:#3d444d;--accent:#4493f8;--hint-info:#0c2d6b;--hint-warning:#4b3a00;--hint-danger:#5d0f12;--hint-success:#0f3d1f;--code:#151b23}}
*{box-sizing:border-box}body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a.broken-link{color:var(--muted);text-decoration:underline wavy #cf222e;text-underline-offset:3px}header.site{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;padding:.75rem 1.5rem;border-bottom:1px solid var(--line)}
header.site .title{font-weight:600;font-size:1.1rem;color:var(--fg);text-decoration:none}nav.sections a,nav.variants a{margin-right:1rem;text-decoration:none}
nav a[aria-current=page]{font-weight:600;color:var(--fg)}.layout{display:grid;grid-template-columns:16rem minmax(0,1fr) 14rem;gap:2rem;max-width:90rem;margin:0 auto;padding:1.5rem}
nav.toc ul{list-style:none;padding-left:1rem;margin:.25rem 0}nav.toc>ul{padding-left:0}nav.toc a{text-decoration:none;color:var(--muted)}nav.toc .group{font-weight:600;margin-top:1rem;text-transform:uppercase;font-size:.8rem}
main{min-width:0}article h1{font-size:2rem;line-height:1.25}.description{color:var(--muted);font-size:1.1rem}.updated{color:var(--muted);font-size:.85rem}
pre{background:var(--code);padding:1rem;overflow:auto;border-radius:6px}code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
figure.code{margin:1rem 0}figure.code figcaption{font-size:.85rem;color:var(--muted)}table{border-collapse:collapse}td,th{border:1px solid var(--line);padding:.4rem .6rem}
article img,article video{max-width:100%;height:auto}article table{display:block;max-width:100%;overflow-x:auto}article figure{margin:1rem 0}article figcaption{color:var(--muted);font-size:.9rem}
.hint{border-left:4px solid var(--accent);padding:.5rem 1rem;border-radius:6px;margin:1rem 0;background:var(--hint-info)}.hint-warning{background:var(--hint-warning);border-color:#bf8700}.hint-danger{background:var(--hint-danger);border-color:#cf222e}.hint-success{background:var(--hint-success);border-color:#1a7f37}
.tabs{display:flex;flex-wrap:wrap;border:1px solid var(--line);border-radius:6px;margin:1rem 0}.tabs .tab-switch{position:absolute;opacity:0}.tabs .tab-label{padding:.5rem 1rem;cursor:pointer;border-bottom:2px solid transparent}
.tabs .tab-panel{display:none;order:99;width:100%;padding:0 1rem;border-top:1px solid var(--line)}.tabs .tab-switch:checked+.tab-label{border-color:var(--accent);font-weight:600}.tabs .tab-switch:checked+.tab-label+.tab-panel{display:block}
.tabs .tab-switch:focus-visible+.tab-label{outline:2px solid var(--accent)}.content-ref a.card,.file a{display:block;border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem;text-decoration:none}
details.expandable{border:1px solid var(--line);border-radius:6px;padding:.5rem 1rem;margin:1rem 0}.columns{display:flex;gap:1.5rem}.columns .column{flex:1}
nav.pagination{display:flex;justify-content:space-between;margin-top:3rem;border-top:1px solid var(--line);padding-top:1rem}aside.outline{font-size:.9rem}aside.outline ul{list-style:none;padding-left:0}aside.outline .d3{padding-left:1rem}
.numbered{display:flex}.numbered pre{margin:0}.numbered .gutter{color:var(--muted);text-align:right;user-select:none;border-right:1px solid var(--line);border-radius:6px 0 0 6px}.numbered .gutter+pre{flex:1;border-radius:0 6px 6px 0}
.code.wrap pre{white-space:pre-wrap}.hljs-keyword,.hljs-selector-tag,.hljs-built_in{color:#cf222e}.hljs-string,.hljs-attr{color:#0a3069}.hljs-number,.hljs-literal{color:#0550ae}.hljs-comment{color:#59636e;font-style:italic}.hljs-title,.hljs-section{color:#8250df}.hljs-variable,.hljs-params{color:#953800}
@media (prefers-color-scheme:dark){.hljs-keyword,.hljs-selector-tag,.hljs-built_in{color:#ff7b72}.hljs-string,.hljs-attr{color:#a5d6ff}.hljs-number,.hljs-literal{color:#79c0ff}.hljs-comment{color:#8b949e}.hljs-title,.hljs-section{color:#d2a8ff}.hljs-variable,.hljs-params{color:#ffa657}}
form.search{margin-left:auto;position:relative}.search-live{position:absolute;right:0;top:2.4rem;width:min(28rem,90vw);max-height:70vh;overflow:auto;z-index:10;background:var(--bg);border:1px solid var(--line);border-radius:6px;box-shadow:0 8px 24px rgba(0,0,0,.15);padding:.5rem}
.search-live ul{list-style:none;margin:0;padding:0}.search-live a{display:block;padding:.4rem .6rem;border-radius:4px;text-decoration:none;color:var(--fg)}.search-live a:hover,.search-live a:focus{background:var(--code)}.search-live span{display:block;color:var(--muted);font-size:.85rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.search-live .all{color:var(--accent);font-size:.9rem}
form.search input{font:inherit;padding:.3rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}ol.results ul{list-style:none;padding-left:1rem}ol.results p{color:var(--muted);margin:.2rem 0 .6rem}
.cover img{display:block;width:100%;height:14rem;object-fit:cover;border-radius:8px;margin-bottom:1rem}.cover-full img{height:22rem}.layout.wide{max-width:none}.layout.no-toc{grid-template-columns:minmax(0,1fr) 14rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem;margin:1rem 0}.cards.cards-large{grid-template-columns:repeat(auto-fill,minmax(20rem,1fr))}
.cards .card{display:flex;flex-direction:column;border:1px solid var(--line);border-radius:8px;overflow:hidden;color:var(--fg);background:var(--bg);text-decoration:none}.cards a.card:hover,.cards a.card:focus-visible{border-color:var(--accent)}
.cards .card-cover{display:block;width:100%;aspect-ratio:16/9;object-fit:cover;background:var(--code)}.cards .card-body{padding:.75rem 1rem}.cards .card-text p{margin:.2rem 0}.cards .card-text+.card-text{color:var(--muted);font-size:.95rem}
.openapi-operation{border:1px solid var(--line);border-radius:8px;padding:.25rem 1rem 1rem;margin:1.5rem 0}.openapi-heading{font-size:1.05rem}.openapi-method{display:inline-block;min-width:4.5em;text-align:center;padding:.1rem .5rem;border-radius:4px;font-weight:600;font-size:.85rem;color:#fff;background:var(--muted)}
.openapi-method-get{background:#1a7f37}.openapi-method-post{background:#0969da}.openapi-method-put,.openapi-method-patch{background:#9a6700}.openapi-method-delete{background:#cf222e}.openapi-deprecated,.schema-required{color:#cf222e;font-size:.85rem}
.openapi-operation h4{margin:1.25rem 0 .5rem}.openapi-parameters{width:100%}.openapi-parameters p{margin:0}.openapi-status{font-family:ui-monospace,monospace;font-weight:600}.openapi-status-2xx{color:#1a7f37}.openapi-status-4xx,.openapi-status-5xx{color:#cf222e}
ul.schema{list-style:none;padding-left:1rem;border-left:1px solid var(--line);margin:.25rem 0}ul.schema li{margin:.3rem 0}.schema-type{color:var(--muted);font-size:.9rem}.schema-description p{margin:.1rem 0}
.math-display{overflow-x:auto;margin:1rem 0}.katex-error{color:#cf222e;font-family:ui-monospace,monospace}
@media (max-width:60rem){.layout{grid-template-columns:1fr}aside.outline{display:none}nav.toc{border-bottom:1px solid var(--line)}}
`;

function navList(links: NavLink[], label: string, className: string): string {
  if (links.length < 2) return '';
  return `<nav class="${className}" aria-label="${label}">${links.map((link) => `<a href="${escapeHtml(link.href)}"${link.current ? ' aria-current="page"' : ''}>${escapeHtml(link.title)}</a>`).join('')}</nav>`;
}

function tocList(pages: Page[], input: LayoutInput): string {
  const items = pages
    .filter((page) => !(page.type === 'document' && page.hidden))
    .map((page) => {
      const title = escapeHtml(page.tocTitle ?? page.title);
      if (page.type === 'group') return `<li><div class="group">${title}</div>${tocList(page.pages, input)}</li>`;
      // Where a link item becomes an href, the URL rule of content links, whatever made the tree (a SUMMARY.md
      // parse leaves such items out already, with a warning).
      const written = input.pageHref(page);
      const href = written === undefined ? undefined : allowedUrl(written);
      const current = page.type === 'document' && page.id === input.current.id;
      // Code points past U+10FFFF (or surrogates) show as U+FFFD: String.fromCodePoint would throw on them.
      const emoji = page.type === 'document' && page.emoji && /^[0-9a-f]{1,8}(-[0-9a-f]{1,8}){0,15}$/i.test(page.emoji) ? `${page.emoji.split('-').map((hex) => referencedCharacter(Number.parseInt(hex, 16))).join('')} ` : '';
      const link = href ? `<a href="${escapeHtml(href)}"${current ? ' aria-current="page"' : ''}>${emoji}${title}</a>` : `<span>${title}</span>`;
      return `<li>${link}${page.pages.length > 0 ? tocList(page.pages, input) : ''}</li>`;
    });
  return items.length > 0 ? `<ul>${items.join('')}</ul>` : '';
}

function header(input: { siteTitle: string; siteHref: string; searchHref: string; sections?: NavLink[]; variants?: NavLink[]; query?: string }): string {
  return `<header class="site"><a class="title" href="${escapeHtml(input.siteHref)}">${escapeHtml(input.siteTitle)}</a>${navList(input.sections ?? [], 'Sections', 'sections')}${navList(input.variants ?? [], 'Variants', 'variants')}<form class="search" role="search" action="${escapeHtml(input.searchHref)}" method="get"><input type="search" name="q" aria-label="Search" placeholder="Search" value="${escapeHtml(input.query ?? '')}"></form></header>`;
}

export interface SearchResult {
  title: string;
  href: string;
  /** Sections of the page that match, with an excerpt. */
  sections: Array<{ title: string; href: string; body: string }>;
}

/** The results page of the search box (works without JavaScript). */
export function renderSearch(input: { siteTitle: string; siteHref: string; searchHref: string; query: string; results: SearchResult[] }): string {
  const results = input.results
    .map(
      (result) =>
        `<li><a href="${escapeHtml(result.href)}">${escapeHtml(result.title)}</a>${
          result.sections.length > 0
            ? `<ul>${result.sections.map((section) => `<li><a href="${escapeHtml(section.href)}">${escapeHtml(section.title)}</a><p>${escapeHtml(section.body)}</p></li>`).join('')}</ul>`
            : ''
        }</li>`,
    )
    .join('');
  const summary = input.query === '' ? '' : input.results.length === 0 ? `<p>No results for “${escapeHtml(input.query)}”.</p>` : `<ol class="results">${results}</ol>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Search${input.query ? `: ${escapeHtml(input.query)}` : ''} | ${escapeHtml(input.siteTitle)}</title><meta name="robots" content="noindex"><style>${CSS}</style></head>
<body>${header({ ...input })}<main style="max-width:48rem;margin:2rem auto;padding:0 1.5rem"><h1>Search</h1>${summary}</main></body></html>
`;
}

export function renderLayout(input: LayoutInput): string {
  const page = input.current;
  const shown = page.layout;
  const outline = shown.outline ? input.outline.filter((item) => item.depth >= 2) : [];
  const updated = page.updatedAt ? `<p class="updated">Last updated <time datetime="${escapeHtml(page.updatedAt)}">${escapeHtml(page.updatedAt.slice(0, 10))}</time></p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} | ${escapeHtml(input.siteTitle)}</title>${input.noIndex ? '\n<meta name="robots" content="noindex">' : ''}${input.liveSearch ? `\n<script src="${escapeHtml(input.liveSearch)}" defer></script>` : ''}
${page.description ? `<meta name="description" content="${escapeHtml(page.description)}">\n` : ''}<style>${CSS}</style></head>
<body>${header(input)}
<div class="${['layout', ...(shown.width === 'wide' ? ['wide'] : []), ...(shown.tableOfContents ? [] : ['no-toc'])].join(' ')}">${shown.tableOfContents ? `<nav class="toc" aria-label="Table of contents">${tocList(input.pages, input)}</nav>` : ''}
<main>${input.cover ? coverHtml(input.cover) : ''}<article>${shown.title ? `<h1>${escapeHtml(page.title)}</h1>` : ''}${shown.description && page.description ? `<p class="description">${escapeHtml(page.description)}</p>` : ''}
${input.html}
${shown.metadata ? updated : ''}</article>
${shown.pagination ? `<nav class="pagination" aria-label="Pages">${input.previous ? `<a rel="prev" href="${escapeHtml(input.previous.href)}">← ${escapeHtml(input.previous.title)}</a>` : '<span></span>'}${input.next ? `<a rel="next" href="${escapeHtml(input.next.href)}">${escapeHtml(input.next.title)} →</a>` : ''}</nav>` : ''}</main>
<aside class="outline" aria-label="On this page">${outline.length > 0 ? `<p><strong>On this page</strong></p><ul>${outline.map((item) => `<li class="d${item.depth}"><a href="#${escapeHtml(item.id)}">${escapeHtml(item.text)}</a></li>`).join('')}</ul>` : ''}</aside></div>
</body></html>
`;
}

/** A plain page for what is not there (or not for this reader). */
export function renderNotFound(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found</title><meta name="robots" content="noindex"><style>${CSS}</style></head>
<body><main style="max-width:40rem;margin:4rem auto;padding:0 1.5rem"><h1>Page not found</h1><p>There is no published page here, or it is not published for you.</p></main></body></html>
`;
}

/** A site, section or space whose root has nothing to show yet (200: the address is right, the content is to come). */
export function renderNothingYet(siteTitle: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(siteTitle)}</title><meta name="robots" content="noindex"><style>${CSS}</style></head>
<body><main style="max-width:40rem;margin:4rem auto;padding:0 1.5rem"><h1>${escapeHtml(siteTitle)}</h1><p>Nothing is published here yet.</p></main></body></html>
`;
}

/**
 * What an `urls.app` address shows when no published page answers it: Quire has no editor in the browser; the page
 * says how to reach the content (the API, a git clone), whether or not it exists (nothing is revealed).
 */
export function renderAppPage(input: { api: string; spaceId?: string; git?: string }): string {
  const space = input.spaceId
    ? `<p>With an API token of yours: <code>curl -H "Authorization: Bearer $TOKEN" ${escapeHtml(input.api)}/spaces/${escapeHtml(input.spaceId)}</code>, or clone it and edit the markdown:
<code>git clone ${escapeHtml(input.git ?? '')}</code> (the token as password).</p>`
    : `<p>Everything here is reachable through the API (<code>${escapeHtml(input.api)}</code>, its OpenAPI document at <code>${escapeHtml(input.api)}/openapi.json</code>) with an API token of yours.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Quire</title><meta name="robots" content="noindex"><style>${CSS}</style></head>
<body><main style="max-width:44rem;margin:4rem auto;padding:0 1.5rem"><h1>This content lives in Quire</h1>
<p>Quire has no editor in the browser: its content is edited through its API or in a git checkout, and read on published sites.</p>
${space}</main></body></html>
`;
}
