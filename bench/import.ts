/**
 * Content import performance line (run by hand: `npx tsx bench/import.ts`): importing a website of 200 nested pages,
 * each with an image, a code block, a table and links, served by node:http on 127.0.0.1; target < 20 s. The import is
 * real: the domain function records the row and waits for the import-content job (in-process driver), which crawls
 * through the guarded fetcher (QUIRE_FETCH_ALLOW=127.0.0.1), converts, writes one commit and moves main.
 */
import { performance } from 'node:perf_hooks';
import { importContent } from '../src/domain/imports/imports.js';
import { createSpace } from '../src/domain/content/spaces.js';
import { startFileServer, type Route } from '../test/helpers/file-server.js';
import { tinyPng } from '../test/helpers/content.js';
import { machine, startBenchServer } from './lib.js';

const PAGES = Number(process.env.PAGES ?? 200);
const SECTIONS = Number(process.env.SECTIONS ?? 10);
const TARGET_MS = 20_000;

/** `/` links every section; `/section-s/` links its pages; every page links the sections and its neighbours. */
function site(): Record<string, Route> {
  const routes: Record<string, Route> = {};
  const perSection = Math.ceil((PAGES - 1 - SECTIONS) / SECTIONS);
  const sections = Array.from({ length: SECTIONS }, (_, s) => `/section-${s}/`);
  const nav = sections.map((href, s) => `<li><a href="${href}">Section ${s}</a></li>`).join('');
  const page = (title: string, body: string, image: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title} | Bench docs</title>
<meta name="description" content="About ${title}"></head><body><header><a href="/">Bench docs</a></header><nav><ul>${nav}</ul></nav>
<main><h1>${title}</h1>${body}
<p><img src="${image}" alt="${title} diagram"></p>
<pre><code class="language-sh">bench install --page "${title}"
bench run --verbose</code></pre>
<table><thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead><tbody>
<tr><td>port</td><td>8080</td><td>Where ${title} listens</td></tr><tr><td>mode</td><td>fast</td><td>How it runs</td></tr></tbody></table>
${'<p>Paragraph with <strong>bold</strong>, <em>emphasis</em> and <code>code</code>: install, configure and run the service; see the reference for every option it takes.</p>'.repeat(6)}
</main><footer>Footer</footer></body></html>`;
  let images = 0;
  const image = () => {
    const n = images++;
    routes[`/assets/img-${n}.png`] = { contentType: 'image/png', body: tinyPng(40 + (n % 50), 30 + (n % 20)) };
    return `/assets/img-${n}.png`;
  };
  routes['/'] = { body: page('Home', `<p>Welcome. Sections:</p><ul>${nav}</ul>`, image()) };
  let made = 1 + SECTIONS;
  for (let s = 0; s < SECTIONS; s++) {
    const leaves: string[] = [];
    for (let p = 0; p < perSection && made < PAGES; p++, made++) leaves.push(`/section-${s}/page-${p}.html`);
    routes[`/section-${s}/`] = { body: page(`Section ${s}`, `<ul>${leaves.map((l, i) => `<li><a href="${l}">Page ${s}.${i}</a></li>`).join('')}</ul>`, image()) };
    leaves.forEach((leaf, i) => {
      const next = leaves[(i + 1) % leaves.length];
      routes[leaf] = { body: page(`Page ${s}.${i}`, `<p>Next: <a href="${next}">page ${s}.${(i + 1) % leaves.length}</a>; back to <a href="../">the section</a>.</p>`, image()) };
    });
  }
  return routes;
}

const routes = site();
const pageCount = Object.keys(routes).filter((r) => !r.startsWith('/assets/')).length;
const web = await startFileServer(routes);
const server = await startBenchServer({ fetchAllow: ['127.0.0.1'] });
try {
  const user = await server.container.ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
  const caller = { user };
  const rounds: number[] = [];
  let result: Awaited<ReturnType<typeof importContent>> | undefined;
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    const space = await createSpace(server.container.ctx, caller, server.organizationId, { title: `Import ${round}` });
    web.requests.length = 0;
    const start = performance.now();
    result = await importContent(server.container.ctx, caller, space.space.id, undefined, { url: `${web.base}/`, source: 'website' });
    rounds.push(performance.now() - start);
    if (result.importedResources !== pageCount * 2) throw new Error(`imported ${result.importedResources} of ${pageCount * 2}: ${JSON.stringify(result)}`);
  }
  const median = [...rounds].sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
  console.log(`machine: ${machine()}`);
  console.log(`site: ${pageCount} pages (nested in ${SECTIONS} sections), ${pageCount} images, served by node:http on 127.0.0.1; ${web.requests.length} requests per import`);
  console.log(`import (crawl, convert, one commit, main moved): ${rounds.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')}; median ${(median / 1000).toFixed(2)} s`);
  console.log(`result: importedResources ${result!.importedResources}, totalResources ${result!.totalResources}`);
  console.log(`ratio to the 20 s target: ${(median / TARGET_MS).toFixed(3)} (target < 1)`);
} finally {
  await server.close();
  await web.close();
}
