/**
 * The baseline of the read benchmarks: a bare Fastify server in its own process answering GET /page with the bytes
 * of a file (read once, at start) and nothing else; with `many`, the file holds one body a line (base64) and
 * GET /page/<n> answers the n-th. Prints its URL on the first line of stdout.
 * Usage: `node --import tsx bench/bare-fastify.ts <body file> [content type] [many]`.
 */
import fs from 'node:fs';
import Fastify from 'fastify';

const [file, type = 'application/json', mode] = process.argv.slice(2);
const app = Fastify({ logger: false });
if (mode === 'many') {
  const bodies = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => Buffer.from(line, 'base64'));
  app.get<{ Params: { n: string } }>('/page/:n', async (request, reply) => {
    const body = bodies[Number(request.params.n)];
    return body === undefined ? reply.status(404).send() : reply.type(type).send(body);
  });
} else {
  const body = fs.readFileSync(file);
  app.get('/page', async (_request, reply) => reply.type(type).send(body));
}
console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
