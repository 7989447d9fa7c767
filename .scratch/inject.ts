import Fastify from 'fastify';
import { spaceWithPages, startBenchServer } from '../bench/lib.js';
const server = await startBenchServer();
const { spaceId, checkout } = await spaceWithPages(server, 50);
await checkout.dispose();
const auth = { authorization: `Bearer ${server.token}` };
const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as any;
const url = `/v1/spaces/${spaceId}/content/page/${pages.pages[5].id}`;
const body = (await server.app.inject({ url, headers: auth })).rawPayload;
const bare = Fastify({ logger: false });
bare.get('/page', async (_r, reply) => reply.type('application/json; charset=utf-8').send(body));
await bare.ready();
async function run(app: any, u: string, n: number) { const t = performance.now(); for (let i = 0; i < n; i++) await app.inject({ url: u, headers: auth }); return (performance.now() - t) * 1000 / n; }
await run(server.app, url, 3000); await run(bare, '/page', 3000);
const a: number[] = [], b: number[] = [];
for (let r = 0; r < 7; r++) { a.push(await run(server.app, url, 5000)); b.push(await run(bare, '/page', 5000)); }
const med = (x: number[]) => x.sort((p, q) => p - q)[x.length >> 1];
console.log('ours µs/req', med(a).toFixed(1), 'bare', med(b).toFixed(1), 'diff', (med(a) - med(b)).toFixed(1));
await server.close();
