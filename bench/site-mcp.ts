/**
 * A published site's MCP server answering `searchDocumentation` (run by hand: `npx tsx bench/site-mcp.ts`):
 * - a public site of one space of PAGES pages (1,000 by default), pushed through a real git checkout, served by the
 *   app in this process as bench/published.ts serves it;
 * - an agent's side: the protocol SDK's own client (Client + StreamableHTTPClientTransport) connected to
 *   `{site}/~quire/mcp`, calling `searchDocumentation` with QUERIES queries (200 by default: one word, or two words
 *   of one page, all words of the pages), one at a time: p50 and p99 of the call as the client times it;
 * - the baseline, measured in the same run: the same queries through the site's own search, its results page
 *   (`GET {site}/~search?q=`, the same search rendered as HTML), one at a time. Each query is asked of both in turn,
 *   which one first alternating from query to query and from round to round (ROUNDS rounds, 3 by default), so that
 *   neither pays alone for what the other warmed; the ratio of the p50s is printed.
 * Target (issue 40): MCP `searchDocumentation` p50 < 30 ms on a 1,000-page site.
 * PAGES, QUERIES and ROUNDS change the sizes: `PAGES=1000 QUERIES=200 ROUNDS=3 npx tsx bench/site-mcp.ts`.
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

/** The words the pages are about: each page has three of them in its title, headings and text. */
const TOPICS = [
  'authentication', 'billing', 'webhooks', 'deployment', 'caching', 'logging', 'metrics', 'permissions', 'migrations', 'backups',
  'encryption', 'pagination', 'throttling', 'sessions', 'templates', 'plugins', 'notifications', 'scheduling', 'invoices', 'exports',
  'imports', 'tokens', 'redirects', 'domains', 'certificates', 'queues', 'workers', 'replicas', 'snapshots', 'quotas',
  'analytics', 'dashboards', 'alerts', 'firewalls', 'sandboxes', 'pipelines', 'artifacts', 'secrets', 'tenants', 'regions',
];
const topic = (n: number) => TOPICS[n % TOPICS.length];
/** The three topics of page `i`. */
const topicsOf = (i: number) => [topic(i), topic(i * 7 + 3), topic(i * 13 + 5)];

function body(i: number): string {
  const [a, b, c] = topicsOf(i);
  return [
    `# ${a[0].toUpperCase()}${a.slice(1)} ${i}`,
    '',
    `How to set up ${a} together with ${b}, and what to check when ${c} misbehaves.`,
    '',
    `## Configure ${b}`,
    '',
    `${'Some **bold** text and `code`, with a [link](https://example.com). '.repeat(6)}Turn on ${b} before ${a}.`,
    '',
    '```bash',
    `quire configure --${a} --${b}`,
    '```',
    '',
    `## Troubleshooting ${c}`,
    '',
    `${'When a request fails, read the log line and the status first. '.repeat(6)}Most ${c} problems come from ${a}.`,
    '',
  ].join('\n');
}

/** Query `q`: one topic, or two topics of one page (every other query). */
const queryOf = (q: number) => (q % 2 === 0 ? topic(q) : topicsOf(q).slice(0, 2).join(' '));

const server = await startBenchServer();
let client: Client | undefined;
try {
  const { spaceId, checkout } = await spaceWithPages(server, PAGES, { body });
  await checkout.dispose();
  const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const created = await fetch(`${server.url}/v1/orgs/${server.organizationId}/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Bench docs', visibility: 'public', spaces: [spaceId] }) });
  const site = (await created.json()) as { urls: { published: string }; agentsContext: string };
  if (created.status !== 201 || site.agentsContext !== 'included') throw new Error(`the site was not created serving agents: ${created.status} ${JSON.stringify(site)}`);
  const base = `${server.url}${new URL(site.urls.published).pathname}`;

  // The push's search indexing is a job: wait until the site's search finds the last page's own pair of words.
  const last = topicsOf(PAGES - 1).slice(0, 2).join(' ');
  for (let tries = 0; ; tries++) {
    const answer = (await (await fetch(`${base}/~search?q=${encodeURIComponent(last)}`, { headers: { accept: 'application/json' } })).json()) as { results: unknown[] };
    if (answer.results.length > 0) break;
    if (tries > 1200) throw new Error('the site search found nothing in 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  client = new Client({ name: 'quire-bench-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/~quire/mcp`)));
  let empty = 0;
  const viaMcp = async (query: string) => {
    const started = performance.now();
    const result = (await client!.callTool({ name: 'searchDocumentation', arguments: { query } })) as { content: Array<{ text: string }>; isError?: boolean };
    const elapsed = performance.now() - started;
    if (result.isError) throw new Error(`searchDocumentation(${query}): ${result.content[0]?.text}`);
    if (result.content[0]?.text.startsWith('Nothing found')) empty++;
    return elapsed;
  };
  const viaPage = async (query: string) => {
    const started = performance.now();
    const response = await fetch(`${base}/~search?q=${encodeURIComponent(query)}`);
    await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET ~search?q=${query}: ${response.status}`);
    return elapsed;
  };

  // One exchange of each to open the connections (not counted).
  await viaMcp('warm up');
  await viaPage('warm up');
  empty = 0;
  const mcp: number[] = [];
  const page: number[] = [];
  const rounds: Array<{ mcp: number; page: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const query = queryOf(q);
      if ((q + round) % 2 === 0) {
        ours.push(await viaMcp(query));
        theirs.push(await viaPage(query));
      } else {
        theirs.push(await viaPage(query));
        ours.push(await viaMcp(query));
      }
    }
    rounds.push({ mcp: median(ours), page: median(theirs) });
    mcp.push(...ours);
    page.push(...theirs);
  }

  const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];
  const distinct = new Set(Array.from({ length: QUERIES }, (_, q) => queryOf(q))).size;
  console.log(`machine: ${machine()}`);
  console.log(`site: ${PAGES} pages; ${QUERIES} queries (${distinct} different) x ${ROUNDS} rounds, one at a time, each asked of both in turn`);
  console.log(`MCP searchDocumentation (SDK client): p50 ${median(mcp).toFixed(1)} ms, p99 ${p99(mcp).toFixed(1)} ms (target p50 < 30 ms)`);
  console.log(`site search page (GET ~search?q=):   p50 ${median(page).toFixed(1)} ms, p99 ${p99(page).toFixed(1)} ms`);
  console.log(`ratio (MCP / search page, p50): ${(median(mcp) / median(page)).toFixed(2)}`);
  console.log(`p50 per round, MCP / search page: ${rounds.map((r) => `${r.mcp.toFixed(1)} / ${r.page.toFixed(1)}`).join(', ')} ms`);
  console.log(`answers with nothing found: ${empty} of ${mcp.length}`);
} finally {
  await client?.close().catch(() => undefined);
  await server.close();
}
