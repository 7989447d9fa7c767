import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yaml from 'js-yaml';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS, REDIS_TEST_URL, jobsSettled } from '../helpers/queues.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { closedPort, startFileServer, type FileServer } from '../helpers/file-server.js';
import { GuardedFetcher } from '../../src/store/net/guarded-fetch.js';
import { insertSpec } from '../../src/store/sql/openapi.js';
import { deferred, nextMillisecond, waitFor } from '../helpers/wait.js';

type Org = Awaited<ReturnType<TestApp['organization']>>;

const PETSTORE = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } },
};

const SWAGGER = `swagger: "2.0"
info:
  title: Legacy
  version: "2"
paths:
  /things:
    get:
      responses:
        "200":
          description: ok
`;

/** The document's text with a different version (a changed content). */
function petstore(version: string): string {
  return JSON.stringify({ ...PETSTORE, info: { ...PETSTORE.info, version } });
}

function specsUrl(org: { id: string }): string {
  return `/v1/orgs/${org.id}/openapi`;
}

/** Polls the spec until its processing is complete (a few seconds at most). */
async function settled(t: TestApp, org: Org, slug: string): Promise<any> {
  const spec = await waitFor(
    async () => {
      const res = await t.request('GET', `${specsUrl(org)}/${slug}`, { token: org.admin.token });
      expect(res.status).toBe(200);
      return res.body;
    },
    { until: (body) => body.processingState === 'complete', what: `spec ${slug} to be processed` },
  );
  return spec;
}

/** The reason of the last failure, kept for operators (not in answers). */
async function lastError(t: TestApp, specId: string): Promise<string | null> {
  const row = await t.container.ctx.db.selectFrom('openapi_specs').select('last_process_error').where('id', '=', specId).executeTakeFirstOrThrow();
  return row.last_process_error;
}

describe.each(DATABASE_KINDS)('OpenAPI specs (%s)', (kind) => {
  let t: TestApp;
  let server: FileServer;
  let org: Org;
  let creator: TestUser;
  let reader: TestUser;
  let guest: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    server = await startFileServer();
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    org = await t.organization('Spec Co');
    creator = await t.member(org.id, 'create');
    reader = await t.member(org.id, 'edit');
    guest = await t.member(org.id, null);
    outsider = (await t.organization('Elsewhere')).admin;
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function create(slug: string, source: { url?: string; text?: string }, token = creator.token): Promise<any> {
    const res = await t.request('POST', specsUrl(org), { token, body: { slug, source } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  async function specCount(): Promise<number> {
    const rows = await t.container.ctx.db.selectFrom('openapi_specs').select('id').where('organization_id', '=', org.id).execute();
    return rows.length;
  }

  it('creates a spec from a text source: answers at once with pending, then processes it into a version', async () => {
    const created = await create('petstore', { text: yaml.dump(PETSTORE) });
    expect(created).toEqual({
      object: 'openapi-spec',
      id: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: created.createdAt,
      slug: 'petstore',
      processingState: 'pending',
      permissions: { view: true, edit: true, delete: true },
      urls: { location: `http://quire.test/v1/orgs/${org.id}/openapi/petstore`, app: `http://quire.test/app/o/${org.id}/openapi/petstore` },
    });
    const done = await settled(t, org, 'petstore');
    expect(done).toMatchObject({ id: created.id, processingState: 'complete', lastVersion: expect.any(String), lastProcessedAt: expect.any(String) });
    expect(done.lastProcessErrorCode).toBeUndefined();
    expect(done.lastProcessError).toBeUndefined();
    expect(done.sourceURL).toBeUndefined();

    const latest = await t.request('GET', `${specsUrl(org)}/petstore/versions/latest`, { token: reader.token });
    const contentUrl = `http://quire.test/v1/orgs/${org.id}/openapi/petstore/versions/${done.lastVersion}/content`;
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual({
      object: 'openapi-spec-version',
      id: done.lastVersion,
      createdAt: expect.any(String),
      url: contentUrl,
      urls: { location: `http://quire.test/v1/orgs/${org.id}/openapi/petstore/versions/${done.lastVersion}` },
    });
    const content = await t.request('GET', `${specsUrl(org)}/petstore/versions/latest/content`, { token: reader.token });
    expect(content.status).toBe(200);
    expect(content.body).toEqual({ filesystem: { 'openapi.json': PETSTORE }, url: contentUrl });
  });

  it('creates a spec from a URL: sourceURL in the answer, the version url is the URL fetched', async () => {
    server.set('/specs/pets.json', petstore('7'));
    const url = `${server.base}/specs/pets.json`;
    const created = await create('by-url', { url });
    expect(created.sourceURL).toBe(url);
    const done = await settled(t, org, 'by-url');
    expect(done.lastProcessErrorCode).toBeUndefined();
    const version = await t.request('GET', `${specsUrl(org)}/by-url/versions/${done.lastVersion}`, { token: guest.token });
    expect(version.body.url).toBe(url);
    const content = await t.request('GET', `${specsUrl(org)}/by-url/versions/${done.lastVersion}/content`, { token: guest.token });
    expect(content.body).toEqual({ filesystem: { 'openapi.json': JSON.parse(petstore('7')) }, url });
  });

  it('answers 409 when POST uses a slug that exists, leaving the spec as it was', async () => {
    const first = await create('taken', { text: petstore('1') });
    const res = await t.request('POST', specsUrl(org), { token: creator.token, body: { slug: 'taken', source: { text: SWAGGER } } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/^slug: an OpenAPI specification "taken" already exists/);
    const row = await t.container.ctx.db.selectFrom('openapi_specs').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    expect(row.source_text).toBe(petstore('1'));
    // The same slug in another organization is another spec.
    const other = await t.organization('Other Co');
    const elsewhere = await t.request('POST', specsUrl(other), { token: other.admin.token, body: { slug: 'taken', source: { text: SWAGGER } } });
    expect(elsewhere.status).toBe(201);
  });

  it('refuses bad input with a 400 naming the field, and writes nothing', async () => {
    const before = await specCount();
    const text = { text: SWAGGER };
    const posts: Array<[unknown, RegExp]> = [
      [{ source: text }, /^slug: is required/],
      [{ slug: 'Bad_Slug', source: text }, /^slug: must match pattern/],
      [{ slug: '-leading', source: text }, /^slug: must match pattern/],
      [{ slug: 'double--hyphen', source: text }, /^slug: must match pattern/],
      [{ slug: '', source: text }, /^slug: must be at least 1 character/],
      [{ slug: 'a'.repeat(101), source: text }, /^slug: must be at most 100 characters/],
      [{ slug: 'ok' }, /^source: is required/],
      [{ slug: 'ok', source: {} }, /^source: must have url or text$/],
      [{ slug: 'ok', source: { url: `${server.base}/x.json`, text: SWAGGER } }, /^source: must have either url or text, not both$/],
      [{ slug: 'ok', source: { url: 'not a url' } }, /^source\.url: must match format "uri"/],
      [{ slug: 'ok', source: { url: 'ftp://example.com/spec.yaml' } }, /^source\.url: must be an http or https URL, not ftp:/],
      [{ slug: 'ok', source: { url: 'file:///etc/passwd' } }, /^source\.url: must be an http or https URL, not file:/],
      [{ slug: 'ok', source: { url: `https://example.com/${'a'.repeat(2048)}` } }, /^source\.url: must be at most 2048 characters/],
      [{ slug: 'ok', source: { text: '' } }, /^source\.text: must be at least 1 character/],
      [{ slug: 'ok', source: { text: '  \n ' } }, /^source\.text: must not be blank/],
      [{ slug: 'ok', source: { text: 5 } }, /^source\.text: must be string/],
      [{ slug: 'ok', source: 'https://example.com/spec.yaml' }, /^source: must be object/],
    ];
    for (const [body, message] of posts) {
      const res = await t.request('POST', specsUrl(org), { token: creator.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const puts: Array<[string, unknown, RegExp]> = [
      ['Not_A_Slug', { source: text }, /^specSlug: must match pattern/],
      ['fine', {}, /^source: is required/],
      ['fine', { source: {} }, /^source: must have url or text$/],
      ['fine', { source: { url: 'nope' } }, /^source\.url: must match format "uri"/],
      ['fine', { source: { text: '' } }, /^source\.text: must be at least 1 character/],
    ];
    for (const [slug, body, message] of puts) {
      const res = await t.request('PUT', `${specsUrl(org)}/${slug}`, { token: creator.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    const page = await t.request('GET', specsUrl(org), { token: creator.token, query: { limit: 'many' } });
    expect(page.status).toBe(400);
    expect(page.body.error.message).toMatch(/^limit: /);
    expect(await specCount()).toBe(before);
  });

  it('PUT creates a spec (200), then replaces its source (200) and a new version follows', async () => {
    const created = await t.request('PUT', `${specsUrl(org)}/put-me`, { token: creator.token, body: { source: { text: petstore('1') } } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ slug: 'put-me', processingState: 'pending' });
    const first = await settled(t, org, 'put-me');
    await nextMillisecond();
    const updated = await t.request('PUT', `${specsUrl(org)}/put-me`, { token: creator.token, body: { source: { text: petstore('2') } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: first.id, processingState: 'pending', lastVersion: first.lastVersion });
    expect(updated.body.updatedAt > first.updatedAt).toBe(true);
    const second = await settled(t, org, 'put-me');
    expect(second.lastVersion).not.toBe(first.lastVersion);

    const versions = await t.request('GET', `${specsUrl(org)}/put-me/versions`, { token: reader.token });
    expect(versions.body.items.map((v: any) => v.id)).toEqual([second.lastVersion, first.lastVersion]);
    const old = await t.request('GET', `${specsUrl(org)}/put-me/versions/${first.lastVersion}/content`, { token: reader.token });
    expect(old.body.filesystem['openapi.json'].info.version).toBe('1');
    const latest = await t.request('GET', `${specsUrl(org)}/put-me/versions/latest/content`, { token: reader.token });
    expect(latest.body.filesystem['openapi.json'].info.version).toBe('2');
    // A URL source replaces a text source (and back).
    server.set('/specs/put.json', petstore('3'));
    const toUrl = await t.request('PUT', `${specsUrl(org)}/put-me`, { token: creator.token, body: { source: { url: `${server.base}/specs/put.json` } } });
    expect(toUrl.body.sourceURL).toBe(`${server.base}/specs/put.json`);
    const third = await settled(t, org, 'put-me');
    const version = await t.request('GET', `${specsUrl(org)}/put-me/versions/${third.lastVersion}`, { token: reader.token });
    expect(version.body.url).toBe(`${server.base}/specs/put.json`);
  });

  it('lists the specs in slug order, page by page', async () => {
    const other = await t.organization('List Co');
    for (const slug of ['charlie', 'alpha', 'bravo']) {
      const res = await t.request('POST', specsUrl(other), { token: other.admin.token, body: { slug, source: { text: SWAGGER } } });
      expect(res.status).toBe(201);
    }
    const all = await t.request('GET', specsUrl(other), { token: other.admin.token });
    expect(all.body.count).toBe(3);
    expect(all.body.items.map((s: any) => s.slug)).toEqual(['alpha', 'bravo', 'charlie']);
    expect(all.body.next).toBeUndefined();
    const first = await t.request('GET', specsUrl(other), { token: other.admin.token, query: { limit: 2 } });
    expect(first.body.items.map((s: any) => s.slug)).toEqual(['alpha', 'bravo']);
    const second = await t.request('GET', specsUrl(other), { token: other.admin.token, query: { limit: 2, page: first.body.next.page } });
    expect(second.body.items.map((s: any) => s.slug)).toEqual(['charlie']);
    expect(second.body.next).toBeUndefined();
    const tampered = await t.request('GET', specsUrl(other), { token: other.admin.token, query: { page: `${first.body.next.page}x` } });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.message).toMatch(/^page: /);
  });

  it('answers 404 for an unknown version, and for the latest version of a spec that has none', async () => {
    const failed = await create('broken', { text: 'openapi: [' });
    const done = await settled(t, org, 'broken');
    expect(done.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(done.lastProcessError).toMatch(/\S/);
    expect(done.lastVersion).toBeUndefined();
    const versions = await t.request('GET', `${specsUrl(org)}/broken/versions`, { token: reader.token });
    expect(versions.body).toEqual({ items: [], count: 0 });
    for (const path of ['versions/latest', 'versions/latest/content']) {
      const res = await t.request('GET', `${specsUrl(org)}/broken/${path}`, { token: reader.token });
      expect(res.status, path).toBe(404);
      expect(res.body.error.message).toMatch(/^versionId: the OpenAPI specification "broken" has no version yet/);
    }
    const petstoreSpec = await t.request('GET', `${specsUrl(org)}/petstore`, { token: reader.token });
    // A version of another spec is not a version of this one.
    for (const path of [`versions/${petstoreSpec.body.lastVersion}`, `versions/${petstoreSpec.body.lastVersion}/content`, 'versions/nope']) {
      const res = await t.request('GET', `${specsUrl(org)}/broken/${path}`, { token: reader.token });
      expect(res.status, path).toBe(404);
      expect(res.body.error.message).toMatch(/^versionId: no version/);
    }
    expect(failed.id).toBe(done.id);
  });

  it('DELETE answers 205, then 204; the versions go with the spec', async () => {
    const created = await create('doomed', { text: petstore('1') });
    await settled(t, org, 'doomed');
    const res = await t.request('DELETE', `${specsUrl(org)}/doomed`, { token: creator.token });
    expect(res.status).toBe(205);
    expect(res.body).toBeUndefined();
    expect((await t.request('GET', `${specsUrl(org)}/doomed`, { token: creator.token })).status).toBe(404);
    const versions = await t.container.ctx.db.selectFrom('openapi_spec_versions').select('id').where('spec_id', '=', created.id).execute();
    expect(versions).toEqual([]);
    expect((await t.request('DELETE', `${specsUrl(org)}/doomed`, { token: creator.token })).status).toBe(204);
    // The slug is free again.
    await create('doomed', { text: SWAGGER });
  });

  it('lets every member view; createOpenAPISpec creates, edits and deletes; others get 403', async () => {
    for (const member of [reader, guest]) {
      const res = await t.request('GET', `${specsUrl(org)}/petstore`, { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body.permissions).toEqual({ view: true, edit: false, delete: false });
      const list = await t.request('GET', specsUrl(org), { token: member.token });
      expect(list.status).toBe(200);
      expect(list.body.items.length).toBeGreaterThan(0);
    }
    const denied: Array<[string, string, unknown]> = [
      ['POST', specsUrl(org), { slug: 'denied', source: { text: SWAGGER } }],
      ['PUT', `${specsUrl(org)}/petstore`, { source: { text: SWAGGER } }],
      ['PUT', `${specsUrl(org)}/new-one`, { source: { text: SWAGGER } }],
      ['DELETE', `${specsUrl(org)}/petstore`, undefined],
    ];
    for (const member of [reader, guest]) {
      for (const [method, url, body] of denied) {
        const res = await t.request(method, url, { token: member.token, body });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.body.error.message).toMatch(/"createOpenAPISpec" permission/);
      }
    }
    expect((await t.request('GET', `${specsUrl(org)}/petstore`, { token: creator.token })).body.permissions).toEqual({ view: true, edit: true, delete: true });
    expect((await t.request('GET', `${specsUrl(org)}/new-one`, { token: creator.token })).status).toBe(404);
  });

  it('answers 404 to non-members and for unknown organizations, specs and versions', async () => {
    const petstoreSpec = (await t.request('GET', `${specsUrl(org)}/petstore`, { token: creator.token })).body;
    const operations = (orgId: string, slug: string): Array<[string, string, unknown]> => {
      const base = `/v1/orgs/${orgId}/openapi`;
      return [
        ['GET', base, undefined],
        ['POST', base, { slug: 'sneaky', source: { text: SWAGGER } }],
        ['GET', `${base}/${slug}`, undefined],
        ['PUT', `${base}/${slug}`, { source: { text: SWAGGER } }],
        ['DELETE', `${base}/${slug}`, undefined],
        ['GET', `${base}/${slug}/versions`, undefined],
        ['GET', `${base}/${slug}/versions/latest`, undefined],
        ['GET', `${base}/${slug}/versions/latest/content`, undefined],
        ['GET', `${base}/${slug}/versions/${petstoreSpec.lastVersion}`, undefined],
        ['GET', `${base}/${slug}/versions/${petstoreSpec.lastVersion}/content`, undefined],
      ];
    };
    for (const [method, url, body] of operations(org.id, 'petstore')) {
      const res = await t.request(method, url, { token: outsider.token, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.message).toMatch(/^organization: no organization /);
    }
    for (const [method, url, body] of operations('no-such-org', 'petstore')) {
      const res = await t.request(method, url, { token: org.admin.token, body });
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    for (const [method, url, body] of operations(org.id, 'no-such-spec').filter(([method]) => method === 'GET').slice(1)) {
      const res = await t.request(method, url, { token: org.admin.token, body });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error.message).toMatch(/^specSlug: no OpenAPI specification "no-such-spec"/);
    }
    // Nothing was written by the refused calls.
    expect((await t.request('GET', `${specsUrl(org)}/sneaky`, { token: org.admin.token })).status).toBe(404);
    expect((await t.request('GET', `${specsUrl(org)}/petstore`, { token: org.admin.token })).body.lastVersion).toBe(petstoreSpec.lastVersion);
  });

  it('answers 401 without a token on every operation', async () => {
    const base = specsUrl(org);
    for (const [method, url] of [
      ['GET', base],
      ['POST', base],
      ['GET', `${base}/petstore`],
      ['PUT', `${base}/petstore`],
      ['DELETE', `${base}/petstore`],
      ['GET', `${base}/petstore/versions`],
      ['GET', `${base}/petstore/versions/latest`],
      ['GET', `${base}/petstore/versions/latest/content`],
      ['GET', `${base}/petstore/versions/x`],
      ['GET', `${base}/petstore/versions/x/content`],
    ]) {
      const res = await t.request(method, url, { body: method === 'POST' || method === 'PUT' ? {} : undefined });
      expect(res.status, `${method} ${url}`).toBe(401);
    }
  });
});

describe.each(QUEUE_DRIVERS)('OpenAPI processing (%s queue, sqlite)', (queue) => {
  let t: TestApp;
  let server: FileServer;
  let org: Org;

  beforeAll(async () => {
    server = await startFileServer();
    t = await startTestApp('sqlite', { fetchAllow: ['127.0.0.1'] }, { queue });
    org = await t.organization('Processing Co');
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  async function create(slug: string, source: { url?: string; text?: string }): Promise<any> {
    const res = await t.request('POST', specsUrl(org), { token: org.admin.token, body: { slug, source } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.processingState).toBe('pending');
    return res.body;
  }

  async function put(slug: string, source: { url?: string; text?: string }): Promise<any> {
    const res = await t.request('PUT', `${specsUrl(org)}/${slug}`, { token: org.admin.token, body: { source } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.processingState).toBe('pending');
    return res.body;
  }

  async function versionIds(slug: string): Promise<string[]> {
    const res = await t.request('GET', `${specsUrl(org)}/${slug}/versions`, { token: org.admin.token });
    return res.body.items.map((v: any) => v.id);
  }

  async function latestDocument(slug: string): Promise<any> {
    const res = await t.request('GET', `${specsUrl(org)}/${slug}/versions/latest/content`, { token: org.admin.token });
    expect(res.status).toBe(200);
    return res.body.filesystem['openapi.json'];
  }

  it('fetches an OpenAPI 3 document by URL and bundles its external $ref to a second file on the server', async () => {
    server.set(
      '/v3/openapi.yaml',
      `openapi: 3.0.3
info: {title: Split pets, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: The pets
          content:
            application/json:
              schema: {$ref: "./schemas.yaml#/Pet"}
`,
    );
    server.set('/v3/schemas.yaml', 'Pet:\n  type: object\n  required: [name]\n  properties:\n    name: {type: string}\n');
    const url = `${server.base}/v3/openapi.yaml`;
    await create('split', { url });
    const done = await settled(t, org, 'split');
    expect(done).toMatchObject({ processingState: 'complete', sourceURL: url, lastVersion: expect.any(String) });
    expect(done.lastProcessErrorCode).toBeUndefined();
    expect(server.hits('/v3/schemas.yaml')).toBe(1);
    const document = await latestDocument('split');
    expect(document.paths['/pets'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' } },
    });
    expect((await t.request('GET', `${specsUrl(org)}/split/versions/latest`, { token: org.admin.token })).body.url).toBe(url);
  });

  it('reads a Swagger 2.0 YAML text source', async () => {
    await create('legacy', { text: SWAGGER });
    const done = await settled(t, org, 'legacy');
    expect(done.lastProcessErrorCode).toBeUndefined();
    expect(await latestDocument('legacy')).toEqual(yaml.load(SWAGGER));
  });

  it('records PARSE_ERROR for documents that are not OpenAPI, keeping the reason for operators and no version', async () => {
    const cases: Array<[string, { url?: string; text?: string }, RegExp]> = [
      ['not-yaml', { text: 'openapi: [3.0' }, /^source\.text: is neither JSON nor YAML/],
      ['not-openapi', { text: 'title: a shopping list\nitems: [eggs]\n' }, /not an OpenAPI 3.x or Swagger 2.0 document/],
      ['bad-ref', { text: 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "#/components/missing"}\n' }, /a \$ref cannot be resolved/],
      ['file-ref', { text: 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "file:///etc/passwd"}\n' }, /only http and https URLs are fetched/],
    ];
    server.set('/html', { body: '<html><body>Not a spec</body></html>', contentType: 'text/html' });
    cases.push(['html-page', { url: `${server.base}/html` }, /^source\.url: is not an OpenAPI 3.x or Swagger 2.0 document/]);
    for (const [slug, source, reason] of cases) {
      const created = await create(slug, source);
      const done = await settled(t, org, slug);
      expect(done.lastProcessErrorCode, slug).toBe('PARSE_ERROR');
      expect(done.lastVersion, slug).toBeUndefined();
      expect(done.lastProcessedAt, slug).toEqual(expect.any(String));
      expect(await lastError(t, created.id), slug).toMatch(reason);
    }
  });

  it('records FETCH_ERROR for a URL nobody listens on, an error status and a redirect to a private address', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}/openapi.json`;
    server.set('/gone.yaml', { status: 410, body: 'gone' });
    server.set('/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/openapi.json' } });
    server.set('/to-private', { status: 301, headers: { location: 'http://10.0.0.1/openapi.json' } });
    for (const [slug, url, reason] of [
      ['closed-port', closed, /^source\.url: could not fetch/],
      ['gone', `${server.base}/gone.yaml`, /answered HTTP 410$/],
      ['to-metadata', `${server.base}/to-metadata`, /^source\.url: 169\.254\.169\.254 resolves to 169\.254\.169\.254, a private, loopback or link-local address/],
      ['to-private', `${server.base}/to-private`, /^source\.url: 10\.0\.0\.1 resolves to 10\.0\.0\.1, a private, loopback or link-local address/],
    ] as const) {
      const created = await create(slug, { url });
      const done = await settled(t, org, slug);
      expect(done.lastProcessErrorCode, slug).toBe('FETCH_ERROR');
      expect(await lastError(t, created.id)).toMatch(reason);
      // The reason reaches the API, beside its code.
      expect(done.lastProcessError, slug).toMatch(reason);
      // The processor fails the job for good with the reason (what the job failure log shows).
      await expect(t.container.ctx.jobs.run({ name: 'fetch-openapi', payload: { specId: created.id, requestId: 'again' } })).rejects.toThrow(
        /FETCH_ERROR: source\.url: /,
      );
      // Deleted: the periodic refresh below does not try it again.
      expect((await t.request('DELETE', `${specsUrl(org)}/${slug}`, { token: org.admin.token })).status).toBe(205);
    }
  });

  it('records FETCH_TIMEOUT for a server that never answers (fetch timeout of 1 s)', async () => {
    server.set('/hang.yaml', { hang: true });
    const fetcher = t.container.ctx.fetcher;
    // The fetcher's time limit is its `timeoutMs` option; this one gives up after a second instead of fifteen.
    const quick = new GuardedFetcher({ allow: ['127.0.0.1'], timeoutMs: 1000 });
    t.container.ctx.fetcher = quick;
    try {
      const started = Date.now();
      await create('hangs', { url: `${server.base}/hang.yaml` });
      const done = await settled(t, org, 'hangs');
      // The server never answers: only the fetcher's time limit ends the fetch, and not before it passed.
      expect(done.lastProcessErrorCode).toBe('FETCH_TIMEOUT');
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(await lastError(t, done.id)).toMatch(/did not answer in time/);
      expect((await t.request('DELETE', `${specsUrl(org)}/hangs`, { token: org.admin.token })).status).toBe(205);
    } finally {
      t.container.ctx.fetcher = fetcher;
      await quick.close();
    }
  });

  it('records a new version only when the content changes: an unchanged or reformatted refetch by PUT makes none', async () => {
    server.set('/refetch.json', petstore('1'));
    const url = `${server.base}/refetch.json`;
    await create('refetch', { url });
    const first = await settled(t, org, 'refetch');
    expect(await versionIds('refetch')).toEqual([first.lastVersion]);

    await nextMillisecond();
    await put('refetch', { url });
    const same = await settled(t, org, 'refetch');
    expect(server.hits('/refetch.json')).toBe(2);
    expect(same.lastVersion).toBe(first.lastVersion);
    expect(same.lastProcessedAt > first.lastProcessedAt).toBe(true);
    expect(await versionIds('refetch')).toEqual([first.lastVersion]);

    // The same content as YAML, keys in another order: still no new version.
    server.set('/refetch.json', yaml.dump({ paths: PETSTORE.paths, info: { version: '1', title: 'Pets' }, openapi: '3.0.3' }));
    await put('refetch', { url });
    expect((await settled(t, org, 'refetch')).lastVersion).toBe(first.lastVersion);
    expect(server.hits('/refetch.json')).toBe(3);

    server.set('/refetch.json', petstore('2'));
    await put('refetch', { url });
    const changed = await settled(t, org, 'refetch');
    expect(changed.lastVersion).not.toBe(first.lastVersion);
    expect(await versionIds('refetch')).toEqual([changed.lastVersion, first.lastVersion]);
    expect((await latestDocument('refetch')).info.version).toBe('2');
  });

  it('processes a PUT made while a fetch runs after it, dropping the older result', async () => {
    // The server holds its answer until the test lets it go.
    const slowAnswer = deferred();
    server.set('/slow.json', { body: petstore('slow'), release: slowAnswer.promise });
    // Answered while the fetch cannot finish: the answer did not wait for it.
    expect((await create('racing', { url: `${server.base}/slow.json` })).processingState).toBe('pending');
    await waitFor(async () => (await t.request('GET', `${specsUrl(org)}/racing`, { token: org.admin.token })).body.processingState, {
      until: (state) => state === 'progress',
      what: 'the fetch to start',
    });
    await put('racing', { text: petstore('fast') });
    await settled(t, org, 'racing');
    // Now the slow fetch gets its answer, and its job finishes: its result must be dropped.
    slowAnswer.resolve();
    await jobsSettled(t, ['fetch-openapi']);
    expect(server.hits('/slow.json')).toBe(1);
    const done = await settled(t, org, 'racing');
    expect(done.sourceURL).toBeUndefined();
    expect(await versionIds('racing')).toEqual([done.lastVersion]);
    expect((await latestDocument('racing')).info.version).toBe('fast');
  });

  it('the periodic refresh refetches every spec whose source is a URL, and text specs only when their job was lost', async () => {
    server.set('/refresh.json', petstore('1'));
    await create('refreshed', { url: `${server.base}/refresh.json` });
    await create('text-only', { text: petstore('1') });
    await create('text-lost', { text: petstore('lost') });
    const url = await settled(t, org, 'refreshed');
    const text = await settled(t, org, 'text-only');
    // As if the process had stopped before the job ran (the in-process queue keeps nothing across a restart).
    const lost = await settled(t, org, 'text-lost');
    await t.container.ctx.db.deleteFrom('openapi_spec_versions').where('spec_id', '=', lost.id).execute();
    await t.container.ctx.db
      .updateTable('openapi_specs')
      .set({ processing_state: 'pending', last_version_id: null, last_processed_at: null })
      .where('id', '=', lost.id)
      .execute();
    server.set('/refresh.json', petstore('2'));
    const hits = server.hits('/refresh.json');
    await t.container.ctx.jobs.run({ name: 'refresh-openapi-specs', payload: {} });
    await waitFor(() => versionIds('refreshed'), { until: (ids) => ids.length >= 2, what: 'the refresh to record a new version' });
    expect(server.hits('/refresh.json')).toBe(hits + 1);
    const after = await settled(t, org, 'refreshed');
    expect(after.lastVersion).not.toBe(url.lastVersion);
    expect((await latestDocument('refreshed')).info.version).toBe('2');
    const textAfter = (await t.request('GET', `${specsUrl(org)}/text-only`, { token: org.admin.token })).body;
    expect(textAfter.lastProcessedAt).toBe(text.lastProcessedAt);
    const recovered = await settled(t, org, 'text-lost');
    expect(recovered.lastVersion).toEqual(expect.any(String));
    expect((await latestDocument('text-lost')).info.version).toBe('lost');
  });

  it('with default settings refuses private addresses: literal ones with a 400, names resolving to them with FETCH_ERROR', async () => {
    const strict = await startTestApp('sqlite', {}, { queue });
    try {
      const other = await strict.organization('Strict Co');
      server.set('/private.json', petstore('1'));
      const port = new URL(server.base).port;
      for (const host of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '[::1]']) {
        const res = await strict.request('POST', specsUrl(other), { token: other.admin.token, body: { slug: 'private', source: { url: `http://${host}:${port}/private.json` } } });
        expect(res.status, host).toBe(400);
        expect(res.body.error.message).toMatch(/^source\.url: .* is a private, loopback or link-local address; .*QUIRE_FETCH_ALLOW/);
      }
      const created = await strict.request('POST', specsUrl(other), {
        token: other.admin.token,
        body: { slug: 'named', source: { url: `http://localhost:${port}/private.json` } },
      });
      expect(created.status).toBe(201);
      const done = await settled(strict, other, 'named');
      expect(done.lastProcessErrorCode).toBe('FETCH_ERROR');
      expect(await lastError(strict, created.body.id)).toMatch(/^source\.url: localhost resolves to (127\.0\.0\.1|::1), a private, loopback or link-local address/);
      await expect(strict.container.ctx.jobs.run({ name: 'fetch-openapi', payload: { specId: created.body.id, requestId: 'again' } })).rejects.toThrow(
        /FETCH_ERROR: source\.url: localhost resolves to/,
      );
      expect(server.hits('/private.json')).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe('OpenAPI specs when the job queue is unreachable', () => {
  let t: TestApp;
  let org: Org;

  beforeAll(async () => {
    const deadRedis = `redis://127.0.0.1:${await closedPort()}`;
    t = await startTestApp('sqlite', { redisUrl: deadRedis }, { queue: 'bullmq' });
    org = await t.organization('No Queue Co');
  });
  afterAll(async () => {
    // The helper's close removes the app's Redis keys through config.redisUrl: point it at the live server (the
    // queue and workers, already built, keep the dead address).
    if (t) t.config.redisUrl = REDIS_TEST_URL;
    await t?.close();
  });

  it('answers 503 and leaves nothing half-written', async () => {
    const res = await t.request('POST', specsUrl(org), { token: org.admin.token, body: { slug: 'queued', source: { text: SWAGGER } } });
    expect(res.status).toBe(503);
    expect(res.body.error.message).toMatch(/^jobs: the job queue is unreachable/);
    expect((await t.request('GET', specsUrl(org), { token: org.admin.token })).body.count).toBe(0);
    const put = await t.request('PUT', `${specsUrl(org)}/queued`, { token: org.admin.token, body: { source: { text: SWAGGER } } });
    expect(put.status).toBe(503);
    expect((await t.request('GET', specsUrl(org), { token: org.admin.token })).body.count).toBe(0);

    // An existing spec keeps its source and state when the PUT that would replace them cannot queue the fetch.
    const now = new Date().toISOString();
    await insertSpec(t.container.ctx.db, {
      id: 'existing-spec',
      organization_id: org.id,
      slug: 'existing',
      source_url: null,
      source_text: SWAGGER,
      processing_state: 'complete',
      request_id: 'r1',
      last_processed_at: now,
      last_process_error_code: null,
      last_process_error: null,
      last_version_id: null,
      created_by: org.admin.user.id,
      created_at: now,
      updated_at: now,
    });
    const replaced = await t.request('PUT', `${specsUrl(org)}/existing`, { token: org.admin.token, body: { source: { text: petstore('9') } } });
    expect(replaced.status).toBe(503);
    const row = await t.container.ctx.db.selectFrom('openapi_specs').selectAll().where('id', '=', 'existing-spec').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ source_text: SWAGGER, processing_state: 'complete', request_id: 'r1', updated_at: now });
  });
});
