/**
 * Document format performance line (run by hand: `npx tsx bench/document.ts`): `format=document` of a 2,000-line page
 * with every block kind built so far, through the real server: the first read (cold: convert and serialize) and
 * warm reads (p50 over READS), against `format=markdown` of the same page in the same run as the baseline. Rounds
 * alternate the two formats; medians are reported. Target: warm p50 under 10 ms. Also the conversion alone
 * (markdownToDocument, in this process), cold per call.
 */
import { performance } from 'node:perf_hooks';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { markdownToDocument } from '../src/content/document.js';
import { median } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const READS = Number(process.env.READS ?? 50);

const UNIT = [
  '## Section',
  '',
  'Some **bold**, _italic_, ~~struck~~ text with a [link](https://example.com), `code` and {{ space.vars.version }}.',
  '',
  '{% hint style="info" %}',
  'A hint.',
  '{% endhint %}',
  '',
  '* one',
  '* [ ] task',
  '',
  '1. first',
  '',
  '> quoted',
  '',
  '```js',
  'const a = 1;',
  '```',
  '',
  '{% code title="a.sh" lineNumbers="true" %}',
  '```sh',
  'run',
  '```',
  '{% endcode %}',
  '',
  '| a | b |',
  '| - | - |',
  '| 1 | 2 |',
  '',
  '{% tabs %}',
  '{% tab title="A" %}',
  'Tab text.',
  '{% endtab %}',
  '{% endtabs %}',
  '',
  '{% stepper %}',
  '{% step %}',
  'Step.',
  '{% endstep %}',
  '{% endstepper %}',
  '',
  '{% embed url="https://example.com/v" %}',
  '',
  '---',
  '',
];

function bigPage(): string {
  const lines = ['# Big page', ''];
  while (lines.length < 2000) lines.push(...UNIT);
  return lines.slice(0, 2000).join('\n');
}

const server = await startBenchServer();
try {
  console.log(machine());
  const page = bigPage();
  const { spaceId } = await spaceWithPages(server, 1, { body: () => page });
  const headers = { authorization: `Bearer ${server.token}` };
  const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers })).json()) as { pages: Array<{ id: string; title: string }> };
  const pageId = pages.pages.find((p) => p.title === 'Page 0')!.id;

  const read = async (format: string) => {
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/spaces/${spaceId}/content/page/${pageId}?format=${format}`, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${format}: ${res.status}`);
    return performance.now() - started;
  };
  const rows: Record<string, number[]> = { markdownFirst: [], documentFirst: [], markdownWarm: [], documentWarm: [], convert: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const format of ['markdown', 'document'] as const) {
      // Only the first round's first read is cold (the answer is then kept with the revision).
      if (round === 0) rows[`${format}First`].push(await read(format));
      const warm: number[] = [];
      for (let i = 0; i < READS; i++) warm.push(await read(format));
      rows[`${format}Warm`].push(median(warm));
    }
    const started = performance.now();
    markdownToDocument(page);
    rows.convert.push(performance.now() - started);
  }
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`page: 2,000 lines, ${page.length} bytes; ${ROUNDS} rounds, ${READS} warm reads each`);
  console.log(`format=markdown: first read ${f(median(rows.markdownFirst))}, warm p50 ${f(median(rows.markdownWarm))}`);
  console.log(`format=document: first read ${f(median(rows.documentFirst))}, warm p50 ${f(median(rows.documentWarm))} (target < 10 ms)`);
  console.log(`markdownToDocument alone: ${f(median(rows.convert))}`);
  console.log(`ratio (document / markdown), warm p50: ${(median(rows.documentWarm) / median(rows.markdownWarm)).toFixed(2)}`);
} finally {
  await server.close();
}
