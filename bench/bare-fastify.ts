/**
 * The baseline of the read benchmarks: a bare Fastify server in its own process answering GET /page, and GET of a
 * page of a space's content as Quire's API names it (`/v1/spaces/:spaceId/content/page/:pageId`, so that a bench can
 * send both servers the same request), with the bytes of a file (read once, at start) and nothing else; with `many`,
 * the file holds one answer a line and GET /page/<n> answers the n-th: its body in base64, after its Content-Encoding
 * and a space when it went compressed (`br <base64>`), so that the baseline sends the very bytes a crawler took.
 * Prints its URL on the first line of stdout.
 * Usage: `node --import tsx bench/bare-fastify.ts <body file> [content type] [many]`.
 */
import fs from 'node:fs';
import Fastify, { type FastifyReply } from 'fastify';

const [file, type = 'application/json', mode] = process.argv.slice(2);
const app = Fastify({ logger: false });
if (mode === 'many') {
  const answers = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [coding, body] = line.includes(' ') ? line.split(' ') : [undefined, line];
      return { coding, body: Buffer.from(body, 'base64') };
    });
  app.get<{ Params: { n: string } }>('/page/:n', async (request, reply) => {
    const answer = answers[Number(request.params.n)];
    if (answer === undefined) return reply.status(404).send();
    if (answer.coding) reply.header('content-encoding', answer.coding).header('vary', 'accept-encoding');
    return reply.type(type).send(answer.body);
  });
} else {
  const body = fs.readFileSync(file);
  const answer = async (_request: unknown, reply: FastifyReply) => reply.type(type).send(body);
  app.get('/page', answer);
  app.get('/v1/spaces/:spaceId/content/page/:pageId', answer);
}
console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
