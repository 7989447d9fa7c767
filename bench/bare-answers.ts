/**
 * The baseline of the search benchmark (bench/search.ts): a bare Fastify server in its own process that answers
 * GET /answers/<n> with the n-th JSON answer of a file (one answer per line, parsed at start), serialized and
 * compressed for each request as Quire sends answers made for their request (JSON.stringify, then compressAnswers of
 * src/http/present.ts): what delivering those answers costs, with no search behind them. Prints its URL on the first
 * line of stdout.
 * Usage: `node --import tsx bench/bare-answers.ts <answers file>`.
 */
import fs from 'node:fs';
import Fastify from 'fastify';
import { compressAnswers } from '../src/http/present.js';

const [file] = process.argv.slice(2);
const answers: unknown[] = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
const app = Fastify({ logger: false });
app.addHook('onSend', compressAnswers);
app.get<{ Params: { n: string } }>('/answers/:n', async (request, reply) => {
  const answer = answers[Number(request.params.n)];
  if (answer === undefined) return reply.status(404).send({ message: 'no such answer' });
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(answer));
});
console.log(await app.listen({ port: 0, host: '127.0.0.1' }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
