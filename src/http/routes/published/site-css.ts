/**
 * The stylesheet of published pages, inlined in each page (`style-src 'unsafe-inline'`; no request for it). Colours
 * are custom properties of two palettes: light on `:root`, dark where the reader chose it (`data-theme="dark"` on
 * `<html>`, set by theme.js before the first paint) or, with no choice made (`system`), where the system prefers it.
 * Everything coloured (highlighting, hints, the cover's dark image) reads these properties or the `dark()` rules, so
 * it follows the chosen theme, not only the system's. The syntax palettes are GitHub's (Primer), which meet WCAG AA on
 * their code backgrounds.
 */

const LIGHT = {
  fg: '#1f2328',
  muted: '#59636e',
  bg: '#fff',
  'bg-soft': '#f6f8fa',
  line: '#d1d9e0',
  accent: '#0969da',
  'accent-soft': '#ddf4ff',
  code: '#f6f8fa',
  'hint-info': '#ddf4ff',
  'hint-warning': '#fff8c5',
  'hint-danger': '#ffebe9',
  'hint-success': '#dafbe1',
  'hint-info-mark': '#0969da',
  'hint-warning-mark': '#9a6700',
  'hint-danger-mark': '#cf222e',
  'hint-success-mark': '#1a7f37',
  danger: '#cf222e',
  mark: '#fff8c5',
  'hl-keyword': '#cf222e',
  'hl-string': '#0a3069',
  'hl-constant': '#0550ae',
  'hl-entity': '#8250df',
  'hl-variable': '#953800',
  'hl-tag': '#116329',
  'hl-comment': '#59636e',
  'hl-added': '#116329',
  'hl-added-bg': '#dafbe1',
  'hl-removed': '#82071e',
  'hl-removed-bg': '#ffebe9',
  shadow: 'rgba(31,35,40,.15)',
  backdrop: 'rgba(31,35,40,.45)',
};

const DARK: typeof LIGHT = {
  fg: '#e6edf3',
  muted: '#9198a1',
  bg: '#0d1117',
  'bg-soft': '#151b23',
  line: '#3d444d',
  accent: '#4493f8',
  'accent-soft': '#121d2f',
  code: '#151b23',
  'hint-info': '#0c2d6b',
  'hint-warning': '#4b3a00',
  'hint-danger': '#5d0f12',
  'hint-success': '#0f3d1f',
  'hint-info-mark': '#79c0ff',
  'hint-warning-mark': '#e3b341',
  'hint-danger-mark': '#ff7b72',
  'hint-success-mark': '#56d364',
  danger: '#ff7b72',
  mark: '#5a4a00',
  'hl-keyword': '#ff7b72',
  'hl-string': '#a5d6ff',
  'hl-constant': '#79c0ff',
  'hl-entity': '#d2a8ff',
  'hl-variable': '#ffa657',
  'hl-tag': '#7ee787',
  'hl-comment': '#9198a1',
  'hl-added': '#aff5b4',
  'hl-added-bg': '#033a16',
  'hl-removed': '#ffdcd7',
  'hl-removed-bg': '#67060c',
  shadow: 'rgba(1,4,9,.6)',
  backdrop: 'rgba(1,4,9,.7)',
};

const properties = (palette: typeof LIGHT) =>
  Object.entries(palette)
    .map(([name, value]) => `--${name}:${value}`)
    .join(';');

/** `rules` (selectors and blocks) applied under the dark theme: chosen, or the system's when none is chosen. */
function dark(rules: Array<[selector: string, block: string]>): string {
  const under = (prefix: string) => rules.map(([selector, block]) => `${selector.split(',').map((s) => `${prefix} ${s.trim()}`.trim()).join(',')}{${block}}`).join('');
  return `${under(':root[data-theme=dark]')}@media (prefers-color-scheme:dark){${under(':root:not([data-theme=light])')}}`;
}

/** A CSS mask of an SVG path (24x24 viewBox): icons drawn in `currentColor`, no request made for them. */
const maskOf = (path: string) => `url("data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="${path}"/></svg>`)}")`;

/** The hints' icons: a circled i, a triangle with a bar, an octagon with a cross, a circled check. */
const HINT_ICONS = {
  info: 'M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm1 7v6h-2v-6h2Zm-1-4a1.25 1.25 0 1 1 0 2.5A1.25 1.25 0 0 1 12 7Z',
  warning: 'M12 2.5c.5 0 .96.27 1.2.7l9.6 16.8a1.38 1.38 0 0 1-1.2 2.07H2.4a1.38 1.38 0 0 1-1.2-2.07l9.6-16.8c.24-.43.7-.7 1.2-.7Zm0 3.06L4.02 19.57h15.96L12 5.56ZM13 16v2h-2v-2h2Zm0-7v5.5h-2V9h2Z',
  danger: 'M8.1 2h7.8L22 8.1v7.8L15.9 22H8.1L2 15.9V8.1L8.1 2Zm.83 2L4 8.93v6.14L8.93 20h6.14L20 15.07V8.93L15.07 4H8.93Zm6.36 4.3 1.41 1.41L13.41 13l3.29 3.29-1.41 1.41L12 14.41l-3.29 3.29-1.41-1.41L10.59 13 7.3 9.71 8.71 8.3 12 11.59l3.29-3.29Z',
  success: 'M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm4.3 4.3 1.4 1.4-7.2 7.2-4.2-4.2 1.4-1.4 2.8 2.8 5.8-5.8Z',
};

const BASE = `
:root{color-scheme:light;${properties(LIGHT)}}
:root[data-theme=dark]{color-scheme:dark;${properties(DARK)}}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){color-scheme:dark;${properties(DARK)}}}
*{box-sizing:border-box}html{scroll-padding-top:4.5rem}body{margin:0;font:16px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);-webkit-text-size-adjust:100%}
a{color:var(--accent);text-underline-offset:2px}:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
a.broken-link{color:var(--muted);text-decoration:underline wavy var(--danger);text-underline-offset:3px}img.broken-image{outline:2px dashed var(--danger);outline-offset:2px;min-width:2rem;min-height:2rem}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.skip{position:absolute;left:.5rem;top:-3rem;z-index:50;background:var(--bg);padding:.4rem .8rem;border:1px solid var(--line);border-radius:6px}.skip:focus{top:.5rem}
.preview-banner{background:var(--hint-warning);color:var(--fg);border-bottom:1px solid var(--line);padding:.45rem 1rem;text-align:center;font-size:.9rem}.preview-banner p{margin:0}
`;

const HEADER = `
header.site{position:sticky;top:0;z-index:20;background:var(--bg);border-bottom:1px solid var(--line)}
header.site .bar{display:flex;align-items:center;gap:.75rem;height:3.5rem;padding:0 1.25rem;max-width:90rem;margin:0 auto}
header.site .brand{display:flex;align-items:center;gap:.5rem;min-width:0;font-weight:650;font-size:1.05rem;color:var(--fg);text-decoration:none}
header.site .brand span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}header.site .brand img{width:1.75rem;height:1.75rem;object-fit:contain;border-radius:4px}
header.site .brand .emoji{font-size:1.4rem;line-height:1}
.icon-button{display:inline-flex;align-items:center;justify-content:center;width:2.25rem;height:2.25rem;padding:0;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
.icon-button:hover{background:var(--bg-soft)}.icon-button svg,.theme-switch svg{width:1.15rem;height:1.15rem;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.menu-button{display:none}
form.search{margin-left:auto;position:relative;display:flex;align-items:center}
form.search input{font:inherit;font-size:.95rem;width:16rem;padding:.35rem .7rem;border:1px solid var(--line);border-radius:6px;background:var(--bg-soft);color:var(--fg)}form.search input::placeholder{color:var(--muted)}
.theme-switch{position:relative;display:inline-flex;align-items:center;color:var(--fg)}.theme-switch svg{position:absolute;left:.55rem;pointer-events:none}
.theme-switch select{font:inherit;font-size:.9rem;height:2.25rem;padding:0 .5rem 0 2rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
html:not(.js) .theme-switch,html:not(.js) .menu-button{display:none}
nav.sections{display:flex;gap:.25rem;overflow-x:auto;padding:0 1.25rem;max-width:90rem;margin:0 auto}
nav.sections a{padding:.5rem .75rem;color:var(--muted);text-decoration:none;white-space:nowrap;border-bottom:2px solid transparent}nav.sections a:hover{color:var(--fg)}
nav.sections a[aria-current=page]{color:var(--fg);font-weight:600;border-bottom-color:var(--accent)}
.search-live{position:absolute;right:0;top:2.6rem;width:min(28rem,92vw);max-height:70vh;overflow:auto;z-index:30;background:var(--bg);border:1px solid var(--line);border-radius:8px;box-shadow:0 8px 24px var(--shadow);padding:.5rem}
.search-live ul{list-style:none;margin:0;padding:0}.search-live a{display:block;padding:.4rem .6rem;border-radius:4px;text-decoration:none;color:var(--fg)}.search-live a:hover,.search-live a:focus{background:var(--bg-soft)}
.search-live span{display:block;color:var(--muted);font-size:.85rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.search-live .all{color:var(--accent);font-size:.9rem}
`;

const LAYOUT = `
.layout{display:grid;grid-template-columns:17rem minmax(0,1fr) 14rem;gap:0 2.5rem;max-width:90rem;margin:0 auto;padding:0 1.25rem}
.layout.wide{max-width:none}.layout.no-toc{grid-template-columns:minmax(0,1fr) 14rem}.layout.single{grid-template-columns:minmax(0,1fr)}
.sidebar{position:sticky;top:3.5rem;align-self:start;max-height:calc(100vh - 3.5rem);overflow-y:auto;padding:1.5rem .5rem 2rem 0;overscroll-behavior:contain}
nav.variants{display:flex;flex-wrap:wrap;gap:.25rem;margin-bottom:1rem;padding:.25rem;border:1px solid var(--line);border-radius:8px;background:var(--bg-soft)}
nav.variants a{flex:1;text-align:center;padding:.25rem .5rem;border-radius:6px;color:var(--muted);text-decoration:none;font-size:.9rem}nav.variants a[aria-current=page]{background:var(--bg);color:var(--fg);font-weight:600;box-shadow:0 1px 2px var(--shadow)}
nav.toc ul{list-style:none;margin:0;padding:0}nav.toc ul ul{margin-left:.75rem;padding-left:.5rem;border-left:1px solid var(--line)}
nav.toc .group+ul{margin-left:0;padding-left:0;border-left:0}nav.toc li{margin:1px 0}nav.toc a,nav.toc li>span{display:block;padding:.3rem .75rem;border-radius:6px;color:var(--muted);text-decoration:none;font-size:.93rem;line-height:1.4}
nav.toc a:hover{color:var(--fg);background:var(--bg-soft)}
nav.toc a[aria-current=page]{color:var(--accent);background:var(--accent-soft);font-weight:600;box-shadow:inset 3px 0 0 var(--accent)}
nav.toc .group{margin:1.25rem 0 .35rem;padding:0 .75rem;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;color:var(--fg)}nav.toc>ul>li:first-child>.group{margin-top:0}
main{min-width:0;padding:2rem 0 4rem}main>article,main>.page-end{max-width:48rem}.layout.wide main>article,.layout.wide main>.page-end{max-width:none}
aside.outline{position:sticky;top:3.5rem;align-self:start;max-height:calc(100vh - 3.5rem);overflow-y:auto;padding:2rem 0;font-size:.875rem}
aside.outline .heading,details.outline-mobile summary{font-weight:600;font-size:.8rem;letter-spacing:.04em;text-transform:uppercase;margin:0 0 .5rem}
.outline-list{list-style:none;margin:0;padding:0;border-left:1px solid var(--line)}.outline-list a{display:block;padding:.2rem .75rem;margin-left:-1px;border-left:2px solid transparent;color:var(--muted);text-decoration:none;line-height:1.4}
.outline-list .d3 a{padding-left:1.5rem}.outline-list a:hover{color:var(--fg)}.outline-list a.active{color:var(--accent);border-left-color:var(--accent);font-weight:600}
details.outline-mobile{display:none;margin:0 0 1.5rem;border:1px solid var(--line);border-radius:8px;padding:.5rem .9rem;background:var(--bg-soft)}details.outline-mobile summary{cursor:pointer;margin:0}details.outline-mobile[open] summary{margin-bottom:.5rem}
.backdrop{position:fixed;inset:0;z-index:39;background:var(--backdrop)}
@media (max-width:60rem){
.layout,.layout.no-toc{grid-template-columns:minmax(0,1fr);padding:0 1rem}aside.outline{display:none}details.outline-mobile{display:block}
header.site .bar{padding:0 .75rem;gap:.5rem}form.search input{width:100%;min-width:0}form.search{flex:1;min-width:0}.theme-switch select{width:2.25rem;padding:0;color:transparent}.theme-switch select option{color:var(--fg)}
.menu-button{display:inline-flex;flex:none}nav.sections{padding:0 .75rem}
html:not(.js) .sidebar{position:static;max-height:none;order:2;border-top:1px solid var(--line);padding:1.5rem 0}
html.js .sidebar{position:fixed;top:0;bottom:0;left:0;z-index:40;width:min(20rem,85vw);max-height:none;padding:1rem;background:var(--bg);border-right:1px solid var(--line);box-shadow:0 0 24px var(--shadow);transform:translateX(-105%);visibility:hidden;transition:transform .2s ease,visibility 0s linear .2s}
html.js .sidebar.open{transform:none;visibility:visible;transition:transform .2s ease}
main{padding-top:1.25rem}}
@media (max-width:60rem) and (prefers-reduced-motion:reduce){html.js .sidebar,html.js .sidebar.open{transition:none}}
`;

const CONTENT = `
article h1{font-size:2.1rem;line-height:1.2;margin:.25rem 0 .75rem;letter-spacing:-.01em}article h2{font-size:1.5rem;line-height:1.3;margin:2.25rem 0 .75rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}article h3{font-size:1.2rem;margin:1.75rem 0 .5rem}
.description{color:var(--muted);font-size:1.15rem;margin-top:0}.updated{color:var(--muted);font-size:.85rem;margin-top:3rem}
table{border-collapse:collapse}td,th{border:1px solid var(--line);padding:.45rem .7rem}th{background:var(--bg-soft)}
article img,article video{max-width:100%;height:auto}article table{display:block;max-width:100%;overflow-x:auto}
article figure{margin:1.5rem 0;text-align:center}article figure img{border-radius:6px}article figcaption{color:var(--muted);font-size:.9rem;margin-top:.4rem}article figcaption p{margin:0}
article blockquote{margin:1rem 0;padding:0 1rem;border-left:4px solid var(--line);color:var(--muted)}article hr{border:0;border-top:1px solid var(--line);margin:2rem 0}
article mark{background:var(--mark);color:inherit;border-radius:2px}
.hint{display:grid;grid-template-columns:1.25rem minmax(0,1fr);gap:.75rem;align-items:start;padding:.75rem 1rem;border-radius:8px;margin:1.25rem 0;background:var(--hint-info);border:1px solid color-mix(in srgb,var(--hint-info-mark) 30%,transparent);--mark-colour:var(--hint-info-mark)}
.hint-warning{background:var(--hint-warning);border-color:color-mix(in srgb,var(--hint-warning-mark) 30%,transparent);--mark-colour:var(--hint-warning-mark)}
.hint-danger{background:var(--hint-danger);border-color:color-mix(in srgb,var(--hint-danger-mark) 30%,transparent);--mark-colour:var(--hint-danger-mark)}
.hint-success{background:var(--hint-success);border-color:color-mix(in srgb,var(--hint-success-mark) 30%,transparent);--mark-colour:var(--hint-success-mark)}
.hint-label{display:block;width:1.25rem;height:1.25rem;margin-top:.2rem;overflow:hidden;white-space:nowrap;color:transparent;background:var(--mark-colour);-webkit-mask:var(--icon) center/contain no-repeat;mask:var(--icon) center/contain no-repeat}
${Object.entries(HINT_ICONS)
  .map(([style, path]) => `.hint-${style} .hint-label{--icon:${maskOf(path)}}`)
  .join('')}
.hint-body>:first-child{margin-top:0}.hint-body>:last-child{margin-bottom:0}
.tabs{display:flex;flex-wrap:wrap;border:1px solid var(--line);border-radius:8px;margin:1.25rem 0}.tabs .tab-switch{position:absolute;opacity:0}.tabs .tab-label{padding:.5rem 1rem;cursor:pointer;border-bottom:2px solid transparent;color:var(--muted)}
.tabs .tab-panel{display:none;order:99;width:100%;padding:0 1rem;border-top:1px solid var(--line)}.tabs .tab-switch:checked+.tab-label{border-color:var(--accent);font-weight:600;color:var(--fg)}.tabs .tab-switch:checked+.tab-label+.tab-panel{display:block}
.tabs .tab-switch:focus-visible+.tab-label{outline:2px solid var(--accent)}
.content-ref a.card,.file a{display:block;border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;text-decoration:none}.content-ref a.card:hover,.file a:hover{border-color:var(--accent)}
details.expandable{border:1px solid var(--line);border-radius:8px;padding:.5rem 1rem;margin:1rem 0}details.expandable summary{cursor:pointer;font-weight:600}.columns{display:flex;gap:1.5rem}.columns .column{flex:1;min-width:0}
ol.stepper{list-style:none;counter-reset:step;padding-left:0}ol.stepper>li{counter-increment:step;position:relative;padding-left:2.75rem;margin:1rem 0}ol.stepper>li::before{content:counter(step);position:absolute;left:0;top:.1rem;width:1.9rem;height:1.9rem;border-radius:50%;background:var(--accent-soft);color:var(--accent);font-weight:700;display:flex;align-items:center;justify-content:center}
nav.pagination{display:grid;grid-template-columns:1fr 1fr;gap:1rem;margin-top:3rem}nav.pagination a{display:block;padding:.75rem 1rem;border:1px solid var(--line);border-radius:8px;text-decoration:none;color:var(--fg)}
nav.pagination a:hover{border-color:var(--accent)}nav.pagination a small{display:block;color:var(--muted);font-size:.8rem}nav.pagination a[rel=next]{grid-column:2;text-align:right}
.cover img{display:block;width:100%;height:14rem;object-fit:cover;border-radius:8px;margin-bottom:1rem}.cover-full img{height:22rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:1rem;margin:1rem 0}.cards.cards-large{grid-template-columns:repeat(auto-fill,minmax(20rem,1fr))}
.cards .card{display:flex;flex-direction:column;border:1px solid var(--line);border-radius:8px;overflow:hidden;color:var(--fg);background:var(--bg);text-decoration:none}.cards a.card:hover,.cards a.card:focus-visible{border-color:var(--accent)}
.cards .card-cover{display:block;width:100%;aspect-ratio:16/9;object-fit:cover;background:var(--bg-soft)}.cards .card-body{padding:.75rem 1rem}.cards .card-text p{margin:.2rem 0}.cards .card-text+.card-text{color:var(--muted);font-size:.95rem}
.openapi-operation{border:1px solid var(--line);border-radius:8px;padding:.25rem 1rem 1rem;margin:1.5rem 0}.openapi-heading{font-size:1.05rem}.openapi-method{display:inline-block;min-width:4.5em;text-align:center;padding:.1rem .5rem;border-radius:4px;font-weight:600;font-size:.85rem;color:#fff;background:#59636e}
.openapi-method-get{background:#1a7f37}.openapi-method-post{background:#0969da}.openapi-method-put,.openapi-method-patch{background:#9a6700}.openapi-method-delete{background:#cf222e}.openapi-deprecated,.schema-required{color:var(--danger);font-size:.85rem}
.openapi-operation h4{margin:1.25rem 0 .5rem}.openapi-parameters{width:100%}.openapi-parameters p{margin:0}.openapi-status{font-family:ui-monospace,monospace;font-weight:600}.openapi-status-2xx{color:var(--hl-tag)}.openapi-status-4xx,.openapi-status-5xx{color:var(--danger)}
ul.schema{list-style:none;padding-left:1rem;border-left:1px solid var(--line);margin:.25rem 0}ul.schema li{margin:.3rem 0}.schema-type{color:var(--muted);font-size:.9rem}.schema-description p{margin:.1rem 0}
.math-display{overflow-x:auto;margin:1rem 0}.katex-error{color:var(--danger);font-family:ui-monospace,monospace}
`;

const CODE = `
code{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;font-size:.875em}:not(pre)>code{background:var(--bg-soft);border:1px solid var(--line);border-radius:4px;padding:.1em .35em}
pre{margin:0;padding:.9rem 1rem;overflow:auto;background:var(--code);line-height:1.55;tab-size:4}article>pre,.hint-body>pre,.tab-panel>pre,li>pre{border-radius:8px;margin:1rem 0}
.code-block{position:relative;margin:1.25rem 0;text-align:left;border:1px solid var(--line);border-radius:8px;overflow:hidden;background:var(--code)}
.code-header{display:flex;align-items:center;gap:.75rem;min-height:2.4rem;padding:0 .5rem 0 1rem;border-bottom:1px solid var(--line);background:var(--bg-soft);font-size:.85rem}
.code-title{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.code-lang{margin-left:auto;color:var(--muted);font-size:.78rem;text-transform:uppercase;letter-spacing:.04em}
.copy-button{display:inline-flex;align-items:center;gap:.3rem;font:inherit;font-size:.8rem;padding:.2rem .55rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}.copy-button:hover{border-color:var(--accent)}
.code-lang+.copy-button{margin-left:0}.code-header>.copy-button:first-child{margin-left:auto}.copy-button svg{width:.95rem;height:.95rem;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.numbered{display:flex}.numbered .gutter{flex:none;color:var(--muted);text-align:right;user-select:none;padding-right:.75rem;border-right:1px solid var(--line)}.numbered .gutter+pre{flex:1;min-width:0}
.code-block.wrap pre:not(.gutter){white-space:pre-wrap;overflow-wrap:anywhere}
.hljs-keyword,.hljs-selector-tag,.hljs-doctag,.hljs-template-tag,.hljs-meta .hljs-keyword,.hljs-bullet,.hljs-operator{color:var(--hl-keyword)}
.hljs-string,.hljs-regexp,.hljs-meta .hljs-string,.hljs-link,.hljs-char.escape_{color:var(--hl-string)}
.hljs-number,.hljs-literal,.hljs-symbol,.hljs-variable.constant_,.hljs-selector-attr,.hljs-selector-class,.hljs-selector-id,.hljs-property,.hljs-code,.hljs-meta{color:var(--hl-constant)}
.hljs-title,.hljs-title.function_,.hljs-title.class_,.hljs-section{color:var(--hl-entity)}.hljs-section{font-weight:600}
.hljs-variable,.hljs-params,.hljs-template-variable,.hljs-type,.hljs-built_in,.hljs-title.class_.inherited__,.hljs-variable.language_{color:var(--hl-variable)}
.hljs-attr,.hljs-attribute,.hljs-name,.hljs-tag,.hljs-selector-pseudo,.hljs-quote{color:var(--hl-tag)}
.hljs-comment{color:var(--hl-comment);font-style:italic}.hljs-subst,.hljs-punctuation{color:var(--fg)}
.hljs-addition{color:var(--hl-added);background:var(--hl-added-bg)}.hljs-deletion{color:var(--hl-removed);background:var(--hl-removed-bg)}.hljs-emphasis{font-style:italic}.hljs-strong{font-weight:700}
`;

const PAGES = `
.page-end{margin-top:3rem}form.search-again{margin:1.5rem 0}form.search-again input{width:min(24rem,100%)}
.not-found h1{font-size:2rem}.nearest{list-style:none;padding:0;margin:1rem 0}.nearest li{margin:.4rem 0}.nearest a{display:block;padding:.6rem .9rem;border:1px solid var(--line);border-radius:8px;text-decoration:none}
.nearest a:hover{border-color:var(--accent)}.nearest small{display:block;color:var(--muted);font-size:.8rem}
.search-page{max-width:48rem}.filters{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0 1.5rem;padding:0;list-style:none}
.filters a{display:inline-block;padding:.25rem .8rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;color:var(--fg);font-size:.9rem}.filters a[aria-current=page]{background:var(--accent);border-color:var(--accent);color:var(--bg);font-weight:600}
ol.results{list-style:none;padding:0;margin:0}ol.results>li{padding:1rem 0;border-bottom:1px solid var(--line)}ol.results .result-title{font-size:1.1rem;font-weight:600}
ol.results .result-section{display:inline-block;margin-left:.5rem;padding:0 .5rem;border-radius:999px;background:var(--bg-soft);border:1px solid var(--line);color:var(--muted);font-size:.78rem;vertical-align:middle}
ol.results ul{list-style:none;padding-left:0;margin:.4rem 0 0}ol.results ul li{margin:.35rem 0;padding-left:.75rem;border-left:2px solid var(--line)}ol.results ul a{font-size:.95rem}
ol.results p{color:var(--muted);margin:.15rem 0 0;font-size:.92rem}ol.results mark,.search-live mark{background:var(--mark);color:var(--fg);border-radius:2px;padding:0 1px}ol.results a mark{background:none;color:inherit;font-weight:700;padding:0}
.plain{max-width:42rem;margin:4rem auto;padding:0 1.5rem}
`;

/** The "Was this page helpful?" form under a served page (feedback-form.ts). */
const FEEDBACK = `form.page-feedback{margin-top:2.5rem;padding-top:1rem;border-top:1px solid var(--line)}form.page-feedback fieldset{border:0;margin:0;padding:0;min-width:0}
form.page-feedback legend{padding:0;margin-bottom:.5rem;font-weight:600}form.page-feedback label{display:block;margin-bottom:.25rem;color:var(--muted);font-size:.9rem}
form.page-feedback textarea{display:block;width:100%;max-width:32rem;font:inherit;padding:.4rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
.page-feedback-ratings{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.6rem}.page-feedback-ratings button{font:inherit;padding:.3rem .9rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
.page-feedback-ratings button:hover{border-color:var(--accent)}.page-feedback-ratings button:focus-visible,form.page-feedback textarea:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.page-feedback-thanks{display:none;margin:.75rem 0 0}.page-feedback-thanks:target{display:block;font-weight:600}
`;

/**
 * The palette, the base rules and the content's blocks without the site's frame: what the app (app/) shows content
 * with, so that a page reads there as on its site.
 */
export const CONTENT_CSS = [BASE, CONTENT, CODE].join('').trim();

export const SITE_CSS = [
  BASE,
  HEADER,
  LAYOUT,
  CONTENT,
  CODE,
  PAGES,
  FEEDBACK,
  dark([['.cover .only-light', 'display:none'], ['.cover .only-dark', 'display:block']]),
  '.cover .only-dark{display:none}',
].join('').trim();
