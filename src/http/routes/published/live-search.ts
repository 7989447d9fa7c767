/**
 * Search as you type on published pages: a script of served pages, loaded from Quire's own origin (`script-src
 * 'self'`; served and named as site-assets.ts says). Without it the search box still works: the form sends the query
 * to the results page.
 *
 * As the reader types (150 ms after the last key, two characters at least), it asks for the results (ASK_SERVER: the
 * same results page, as JSON) and shows the best pages under the box; the last word counts as a prefix ("instal"
 * finds "install"). Keys: ArrowDown/ArrowUp move between the box and the results, Escape closes them, Enter on the
 * box opens the results page. Answers that arrive late for an older query are dropped. A static export, which has no
 * server to ask, runs the same code with another source of results (export-search.ts: its prebuilt index).
 */

/** Where served pages get results: the results page (the form's action) asked for JSON. */
const ASK_SERVER = `async (query, signal) => {
    const response = await fetch(form.action + '?q=' + encodeURIComponent(query), { headers: { accept: 'application/json' }, signal });
    return response.ok ? response.json() : undefined;
  }`;

/**
 * The script, its results from `ask`: the source of a function `(query, signal) => Promise<{ results } | undefined>`
 * (the results as the results page's SearchResult), which may use `form`, the search box's form.
 */
export function liveSearchScript(ask: string): string {
  return `(() => {
  'use strict';
  const form = document.querySelector('form.search');
  const input = form && form.querySelector('input[name=q]');
  if (!input) return;
  const box = document.createElement('div');
  box.id = 'search-live';
  box.className = 'search-live';
  box.hidden = true;
  box.setAttribute('role', 'region');
  box.setAttribute('aria-label', 'Search results');
  box.setAttribute('aria-live', 'polite');
  form.append(box);
  input.setAttribute('aria-controls', box.id);
  input.setAttribute('autocomplete', 'off');
  const source = ${ask};
  let timer;
  let asked = 0;
  let controller;
  // (No aria-expanded on the box: a searchbox may not carry it; the results region is announced as it changes.)
  const close = () => { box.hidden = true; };
  const show = (children) => { box.replaceChildren(...children); box.hidden = false; };
  async function ask() {
    const query = input.value.trim();
    const mine = ++asked;
    if (controller) controller.abort();
    if (query.length < 2) return close();
    controller = new AbortController();
    let answer;
    try {
      answer = await source(query, controller.signal);
    } catch {
      return;
    }
    if (!answer) return;
    // An answer for an older query, or one arriving while the reader moves through the results shown: dropped
    // (re-drawing the list would take the focus from under them).
    if (mine !== asked || box.contains(document.activeElement)) return;
    if (answer.results.length === 0) {
      const none = document.createElement('p');
      none.textContent = 'No results for \\u201c' + query + '\\u201d';
      return show([none]);
    }
    const list = document.createElement('ul');
    for (const result of answer.results.slice(0, 8)) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = result.sections.length > 0 ? result.sections[0].href : result.href;
      const title = document.createElement('strong');
      title.textContent = result.title;
      link.append(title);
      if (result.sections.length > 0) {
        const section = document.createElement('span');
        section.textContent = result.sections[0].title === result.title ? result.sections[0].body : result.sections[0].title + ': ' + result.sections[0].body;
        link.append(section);
      }
      item.append(link);
      list.append(item);
    }
    const all = document.createElement('a');
    all.href = form.action + '?q=' + encodeURIComponent(query);
    all.className = 'all';
    all.textContent = 'All results';
    show([list, all]);
  }
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') { close(); input.focus(); return; }
    if (box.hidden || (event.key !== 'ArrowDown' && event.key !== 'ArrowUp')) return;
    const stops = [input, ...box.querySelectorAll('a')];
    const at = stops.indexOf(document.activeElement);
    const next = stops[(at + (event.key === 'ArrowDown' ? 1 : stops.length - 1)) % stops.length];
    event.preventDefault();
    next.focus();
  });
  document.addEventListener('click', (event) => { if (!form.contains(event.target)) close(); });
})();
`;
}

export const LIVE_SEARCH_SCRIPT = liveSearchScript(ASK_SERVER);
