import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { buildWorld, fillPath, paramsFor, publishedOperations, type Operation, type World } from '../helpers/world.js';
import {
  encodeLoose,
  hashSeed,
  mutatedBody,
  oddCursor,
  oddHeaders,
  oddPagePath,
  oddPathValue,
  oddQueryValue,
  Random,
  RAW_BODIES,
  ODD_STRINGS,
} from '../helpers/fuzz.js';

/**
 * Every operation of /v1/openapi.json (and the hidden signed PDF link), called as the organization's admin with
 * generated bad input: path parameters, query parameters and cursors, JSON bodies and raw bodies, headers. The server
 * must never answer 5xx, every error must be `{error: {code, message}}` with code equal to the status, and a normal
 * request must still work after each operation. The requests come from a seeded PRNG: QUIRE_FUZZ_SEED repeats a run
 * (the seed is in every failure), QUIRE_FUZZ_ROUNDS sets the requests per operation.
 */
const SEED = Number(process.env.QUIRE_FUZZ_SEED ?? 20261124);
const ROUNDS = Number(process.env.QUIRE_FUZZ_ROUNDS ?? 40);

/** Operations that remove what later operations need run last, the deepest resources first. */
function runOrder(operations: Operation[]): Operation[] {
  const removes = (op: Operation) => op.method === 'DELETE' || ['mergeChangeRequest', 'transferSpace', 'transferCollection'].includes(op.operationId);
  const depth = (op: Operation) => op.path.split('/').length;
  return [...operations.filter((op) => !removes(op)), ...operations.filter(removes).sort((a, b) => depth(b) - depth(a))];
}

/** A long URL as its start and its end. */
function shorten(url: string): string {
  return url.length <= 400 ? url : `${url.slice(0, 250)}…(${url.length} characters)…${url.slice(-120)}`;
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  what: string;
}

describe.each(DATABASE_KINDS)('fuzz over every operation (%s)', (kind) => {
  let t: TestApp;
  let world: World;
  let operations: Operation[];
  let pdfToken: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    world = await buildWorld(t, await t.listen());
    operations = await publishedOperations(t);
    const link = await t.request('GET', fillPath('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', world.params), { token: world.admin.token });
    pdfToken = new URL(link.body.url).pathname.split('/').pop()!;
    operations.push({ operationId: 'changeRequestPdfLink', method: 'GET', path: '/pdf/{token}', parameters: [{ in: 'path', name: 'token', required: true }], public: true });
  });
  afterAll(async () => t?.close());

  function generate(op: Operation, random: Random, realCursor: string | undefined): FuzzRequest {
    const token = world.admin.token;
    const values = { ...paramsFor(world, op.path), token: pdfToken };
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const sendsBody = ['POST', 'PUT', 'PATCH'].includes(op.method);
    const kinds = ['query', 'headers', ...(pathParams.length ? ['path', 'path'] : []), ...(op.body ? ['body', 'body', 'body'] : []), ...(sendsBody ? ['raw'] : [])];
    const kindOf = random.pick(kinds);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const query: string[] = [];
    let payload: string | Buffer | undefined;
    let what: string;
    let raw = new Set<string>();
    const pathValues: Record<string, string> = { ...values };

    if (kindOf === 'path') {
      const param = random.pick(pathParams);
      const odd =
        param.name === '*'
          ? oddPagePath(random)
          : param.name === 'token' && random.chance(0.6)
            ? encodeLoose(oddCursor(random, pdfToken))
            : oddPathValue(random, Object.values(world.params));
      pathValues[param.name] = odd;
      raw = new Set([param.name]);
      what = `path ${param.name}=${odd.slice(0, 60)}`;
    } else if (kindOf === 'query') {
      const declared = queryParams.length && random.chance(0.85) ? random.pick(queryParams) : undefined;
      const name = declared?.name ?? random.pick(['__proto__', 'constructor', 'x'.repeat(2000), 'limit[]', 'page[a]', '', 'toString']);
      const value = name === 'page' && random.chance(0.7) ? oddCursor(random, realCursor) : oddQueryValue(declared?.schema, random);
      for (const v of Array.isArray(value) ? value : [value]) query.push(`${encodeLoose(name)}=${encodeLoose(v)}`);
      if (random.chance(0.1)) query.push(random.pick(['%E0%A4%A=1', 'limit=%ED%A0%80', 'a=%', '&&&', '=x']));
      what = `query ${name.slice(0, 40)}=${JSON.stringify(value).slice(0, 80)}`;
    } else if (kindOf === 'headers') {
      Object.assign(headers, oddHeaders(random, token));
      what = `headers ${JSON.stringify(headers).slice(0, 160)}`;
      if (sendsBody && op.body) payload = JSON.stringify(mutatedBody(op.body, random).body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
    } else if (kindOf === 'body') {
      const { body, what: how } = mutatedBody(op.body, random);
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
      what = `body (${how}) ${payload.slice(0, 160)}`;
    } else {
      const choice = random.pick(RAW_BODIES);
      payload = choice.payload;
      if (choice.contentType) headers['content-type'] = choice.contentType;
      what = `raw body ${choice.contentType}: ${String(choice.payload).slice(0, 60)}`;
    }
    // Another odd string in the query now and then, so lists see several at once.
    if (kindOf !== 'query' && queryParams.length && random.chance(0.2)) {
      const param = random.pick(queryParams);
      query.push(`${param.name}=${encodeLoose(random.pick(ODD_STRINGS))}`);
    }
    const url = fillPath(op.path, pathValues, raw) + (query.length ? `?${query.join('&')}` : '');
    return { method: op.method, url, headers, payload, what };
  }

  /** A problem with the answer, or undefined when it is fine. */
  function problem(status: number, contentType: string, text: string): string | undefined {
    if (status >= 500) return `answered ${status}`;
    if (status < 400) return undefined;
    if (!contentType.includes('application/json')) return `error ${status} is not JSON (${contentType})`;
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return `error ${status} has a body that does not parse`;
    }
    const shaped =
      body && typeof body === 'object' && Object.keys(body).join() === 'error' &&
      Object.keys(body.error ?? {}).sort().join() === 'code,message' && body.error.code === status && typeof body.error.message === 'string' && body.error.message.length > 0;
    return shaped ? undefined : `error ${status} is not in the error shape`;
  }

  it('never answers 5xx, answers every error in the error shape, and keeps serving', async () => {
    const failures: string[] = [];
    let sent = 0;
    const statuses = new Map<number, number>();
    const started = Date.now();
    for (const op of runOrder(operations)) {
      const random = new Random(hashSeed(SEED, op.operationId));
      let realCursor: string | undefined;
      if (op.method === 'GET' && op.parameters.some((p) => p.name === 'page')) {
        const first = await t.request('GET', `${fillPath(op.path, paramsFor(world, op.path))}?limit=1`, { token: world.admin.token, unchecked: true });
        realCursor = first.body?.next?.page;
      }
      for (let round = 0; round < ROUNDS; round++) {
        const request = generate(op, random, realCursor);
        sent += 1;
        let found: string | undefined;
        let status: number;
        let text = '';
        try {
          const res = await t.app.inject({ method: request.method as any, url: request.url, headers: request.headers, payload: request.payload });
          status = res.statusCode;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          text = res.body;
          found = problem(status, String(res.headers['content-type'] ?? ''), text);
        } catch (error) {
          found = `the request threw: ${(error as Error).message}`;
        }
        if (found) failures.push(`${op.operationId} round ${round}: ${found}; ${request.method} ${shorten(request.url)} [${request.what}] -> ${text.slice(0, 200)}`);
      }
      const health = await t.request('GET', '/v1/orgs', { token: world.admin.token, unchecked: true });
      if (health.status !== 200) failures.push(`after ${op.operationId}: GET /v1/orgs answered ${health.status}`);
    }
    console.log(`fuzz (${kind}): ${sent} requests over ${operations.length} operations in ${((Date.now() - started) / 1000).toFixed(1)} s, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect(failures, `seed ${SEED} (repeat with QUIRE_FUZZ_SEED=${SEED}):\n${failures.join('\n')}`).toEqual([]);
  }, 600_000);
});
