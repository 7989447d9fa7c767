/**
 * The baseline of the read benchmarks: a bare Fastify server in its own process answering GET /page with the bytes
 * of a file (read once, at start) and nothing else. Prints its URL on the first line of stdout.
 * Usage: `node --import tsx bench/bare-fastify.ts <body file> [content type]`.
 */
import fs from 'node:fs';
import Fastify from 'fastify';

const [file, type = 'application/json'] = process.argv.slice(2);
const body = fs.readFileSync(file);
const app = Fastify({ logger: false });
app.get('/page', async (_request, reply) => reply.type(type).send(body));
console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
