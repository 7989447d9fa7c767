import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yaml from 'js-yaml';
import { GuardedFetcher } from '../../src/store/net/guarded-fetch.js';
import {
  DEFAULT_LIMITS,
  SpecProcessingFailure,
  canonicalJson,
  loadDocumentFromText,
  loadDocumentFromUrl,
  type Fetch,
} from '../../src/domain/openapi/document.js';
import { closedPort, startFileServer, type FileServer } from '../helpers/file-server.js';

const PETSTORE = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets': {
      get: {
        responses: { '200': { description: 'The pets', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pets' } } } } },
      },
    },
  },
  components: { schemas: { Pets: { type: 'array', items: { type: 'string' } } } },
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

// Real fetches through the guarded fetcher, to a real server on 127.0.0.1 (allowed) or refused addresses.
describe('reading OpenAPI documents', () => {
  let server: FileServer;
  let allowed: GuardedFetcher;
  let strict: GuardedFetcher;
  let fetch: Fetch;

  beforeAll(async () => {
    server = await startFileServer();
    allowed = new GuardedFetcher({ allow: ['127.0.0.1'], timeoutMs: 1000 });
    strict = new GuardedFetcher({ allow: [] });
    fetch = allowed.fetch.bind(allowed);
  });
  afterAll(async () => {
    await allowed?.close();
    await strict?.close();
    await server?.close();
  });

  async function failure(promise: Promise<unknown>): Promise<SpecProcessingFailure> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof SpecProcessingFailure) return error;
      throw error;
    }
    throw new Error('expected the document to be refused');
  }

  it('reads JSON and YAML alike: the same content has the same hash whatever the format and key order', async () => {
    const json = await loadDocumentFromText(fetch, JSON.stringify(PETSTORE, null, 2));
    const asYaml = await loadDocumentFromText(fetch, yaml.dump(PETSTORE));
    const reordered = await loadDocumentFromText(fetch, JSON.stringify({ components: PETSTORE.components, paths: PETSTORE.paths, info: PETSTORE.info, openapi: '3.0.3' }));
    expect(json.kind).toBe('openapi');
    expect(json.document).toEqual(PETSTORE);
    expect(JSON.parse(json.json)).toEqual(PETSTORE);
    expect(asYaml.hash).toBe(json.hash);
    expect(reordered.hash).toBe(json.hash);
    const changed = await loadDocumentFromText(fetch, JSON.stringify({ ...PETSTORE, info: { ...PETSTORE.info, version: '1.0.1' } }));
    expect(changed.hash).not.toBe(json.hash);
  });

  it('reads Swagger 2.0 and OpenAPI 3.1 documents (3.1 may have only webhooks)', async () => {
    const swagger = await loadDocumentFromText(fetch, SWAGGER);
    expect(swagger.kind).toBe('swagger');
    expect(swagger.document.swagger).toBe('2.0');
    const webhooks = await loadDocumentFromText(fetch, 'openapi: 3.1.0\ninfo: {title: Hooks, version: "1"}\nwebhooks: {}\n');
    expect(webhooks.kind).toBe('openapi');
    // YAML dates stay strings (the YAML 1.2 core schema), so the stored document is the one written.
    const dated = await loadDocumentFromText(fetch, 'openapi: 3.0.0\ninfo: {title: D, version: 2024-01-02}\npaths: {}\n');
    expect((dated.document.info as { version: unknown }).version).toBe('2024-01-02');
  });

  it('refuses what is not JSON or YAML, or not an OpenAPI 3.x / Swagger 2.0 document, naming why', async () => {
    const cases: Array<[string, RegExp]> = [
      ['', /the document is empty/],
      ['openapi: [3.0', /is neither JSON nor YAML/],
      ['just a sentence', /is not an OpenAPI 3.x or Swagger 2.0 document \(it is not an object\)/],
      ['title: not a spec\n', /neither an "openapi" nor a "swagger" member/],
      ['openapi: 2.0.0\ninfo: {}\npaths: {}\n', /openapi is "2.0.0", not 3.x/],
      ['swagger: "1.2"\ninfo: {}\npaths: {}\n', /swagger is "1.2", not "2.0"/],
      ['openapi: 3.0.0\npaths: {}\n', /"info" must be an object/],
      ['openapi: 3.0.0\ninfo: {title: x, version: "1"}\n', /"paths" must be an object/],
    ];
    for (const [text, reason] of cases) {
      const error = await failure(loadDocumentFromText(fetch, text));
      expect(error.code, text).toBe('PARSE_ERROR');
      expect(error.message, text).toMatch(/^source\.text: /);
      expect(error.message, text).toMatch(reason);
    }
  });

  it('bundles external $refs fetched through the guarded fetcher, relative to the document URL', async () => {
    server.set('/api/main.yaml', `openapi: 3.0.0
info: {title: Split, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "./schemas/pet.yaml#/Pet"}
  /owners:
    $ref: "${server.base}/shared/paths.json#/owners"
`);
    server.set('/api/schemas/pet.yaml', 'Pet:\n  type: object\n  properties:\n    name: {type: string}\n    tag: {$ref: "#/Tag"}\nTag: {type: string}\n');
    server.set('/shared/paths.json', JSON.stringify({ owners: { get: { responses: { '204': { description: 'none' } } } } }));
    const loaded = await loadDocumentFromUrl(fetch, `${server.base}/api/main.yaml`);
    const paths = loaded.document.paths as Record<string, any>;
    expect(paths['/pets'].get.responses['200'].content['application/json'].schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, tag: { type: 'string' } },
    });
    expect(paths['/owners']).toEqual({ get: { responses: { '204': { description: 'none' } } } });
    expect(loaded.url).toBe(`${server.base}/api/main.yaml`);
    expect(JSON.stringify(loaded.document)).not.toContain('$ref');
    // A text source may refer to absolute URLs too.
    const fromText = await loadDocumentFromText(fetch, `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /owners: {$ref: "${server.base}/shared/paths.json#/owners"}\n`);
    expect((fromText.document.paths as Record<string, unknown>)['/owners']).toEqual(paths['/owners']);
  });

  it('never reads the local file system: file: refs, relative refs of text sources and ../ climbing all fail', async () => {
    const spec = (ref: string) => `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "${ref}"}\n`;
    for (const ref of ['file:///etc/passwd', '/etc/passwd', 'other.yaml#/x', '../../../../etc/hostname']) {
      const error = await failure(loadDocumentFromText(fetch, spec(ref)));
      expect(error.code, ref).toBe('PARSE_ERROR');
      expect(error.message, ref).toMatch(/\$ref .* cannot be resolved/);
    }
    // In a document fetched from a URL, `../` stays on that server (which answers 404 here) and `file:` is refused.
    server.set('/climb/main.yaml', spec('../../../../etc/hostname'));
    const climbed = await failure(loadDocumentFromUrl(fetch, `${server.base}/climb/main.yaml`));
    expect(climbed.code).toBe('FETCH_ERROR');
    expect(climbed.message).toContain(`${server.base}/etc/hostname answered HTTP 404`);
    server.set('/file/main.yaml', spec('file:///etc/hostname'));
    expect((await failure(loadDocumentFromUrl(fetch, `${server.base}/file/main.yaml`))).code).toBe('PARSE_ERROR');
    // A file: ref inside a referenced file: no resolver reads it.
    server.set('/nested/main.yaml', spec('./part.yaml#/x'));
    server.set('/nested/part.yaml', 'x: {$ref: "file:///etc/hostname"}\n');
    const nested = await failure(loadDocumentFromUrl(fetch, `${server.base}/nested/main.yaml`));
    expect(nested.code).toBe('PARSE_ERROR');
  });

  it('classifies failures: missing pointers are PARSE_ERROR, unreachable or non-2xx files FETCH_ERROR', async () => {
    const missing = await failure(loadDocumentFromText(fetch, 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "#/components/nope"}\n'));
    expect(missing.code).toBe('PARSE_ERROR');
    expect(missing.message).toMatch(/a \$ref cannot be resolved: .*nope/);
    const notFound = await failure(loadDocumentFromUrl(fetch, `${server.base}/absent.yaml`));
    expect(notFound).toMatchObject({ code: 'FETCH_ERROR', message: `source.url: ${server.base}/absent.yaml answered HTTP 404` });
    const closed = await failure(loadDocumentFromUrl(fetch, `http://127.0.0.1:${await closedPort()}/openapi.json`));
    expect(closed.code).toBe('FETCH_ERROR');
    expect(closed.message).toMatch(/^source\.url: could not fetch/);
  });

  it('times out on a server that never answers, for the document and for a $ref', async () => {
    // The server never answers: only the fetcher's time limit (1 s) can end these.
    server.set('/hang.yaml', { hang: true });
    const error = await failure(loadDocumentFromUrl(fetch, `${server.base}/hang.yaml`));
    expect(error.code).toBe('FETCH_TIMEOUT');
    server.set('/refs-hang.yaml', `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "./hang.yaml#/x"}\n`);
    expect((await failure(loadDocumentFromUrl(fetch, `${server.base}/refs-hang.yaml`))).code).toBe('FETCH_TIMEOUT');
    // The time for all files together is bounded too.
    server.set('/slowish.yaml', { body: 'x: {type: string}\n', delayMs: 150 });
    server.set('/many.yaml', `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "./slowish.yaml#/x"}\n`);
    const total = await failure(loadDocumentFromUrl(fetch, `${server.base}/many.yaml`, { ...DEFAULT_LIMITS, totalTimeoutMs: 100 }));
    expect(total.code).toBe('FETCH_TIMEOUT');
    expect(total.message).toMatch(/took longer than 100 ms/);
  });

  it('with default settings refuses private, loopback and link-local addresses, and names resolving there', async () => {
    const guarded = strict.fetch.bind(strict);
    for (const url of [`${server.base}/api/main.yaml`, 'http://10.0.0.1/openapi.json', 'http://169.254.169.254/latest/meta-data', `http://localhost:${new URL(server.base).port}/api/main.yaml`]) {
      const error = await failure(loadDocumentFromUrl(guarded, url));
      expect(error.code, url).toBe('FETCH_ERROR');
      expect(error.message, url).toMatch(/^source\.url: .* resolves to .*private, loopback or link-local address.*QUIRE_FETCH_ALLOW/);
    }
    // A text source's $refs go through the same rules.
    const ref = await failure(loadDocumentFromText(guarded, `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /x: {$ref: "http://169.254.169.254/x.json#/x"}\n`));
    expect(ref.code).toBe('FETCH_ERROR');
    expect(ref.message).toMatch(/^\$ref http:\/\/169\.254\.169\.254\/x\.json: .*link-local/);
  });

  it('caps the files a document pulls in, YAML alias bombs and very deep nesting', async () => {
    server.set('/a.yaml', 'x: {type: string}\n');
    server.set('/b.yaml', 'x: {type: string}\n');
    server.set('/two-files.yaml', `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths:\n  /a: {$ref: "./a.yaml#/x"}\n  /b: {$ref: "./b.yaml#/x"}\n`);
    const many = await failure(loadDocumentFromUrl(fetch, `${server.base}/two-files.yaml`, { ...DEFAULT_LIMITS, maxFiles: 1 }));
    expect(many).toMatchObject({ code: 'PARSE_ERROR', message: '$ref: the document refers to more than 1 files' });

    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const bomb = `openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths: {}\nx-bomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
    // Counted, not expanded: expanded, it would be a billion values (and the test would never end).
    const exploded = await failure(loadDocumentFromText(fetch, bomb));
    expect(exploded.code).toBe('PARSE_ERROR');
    expect(exploded.message).toMatch(/more than 2000000 values once its YAML aliases are expanded/);

    const deep = `{"openapi":"3.0.0","info":{"title":"T","version":"1"},"paths":{},"x":${'['.repeat(20000)}${']'.repeat(20000)}}`;
    const nested = await failure(loadDocumentFromText(fetch, deep));
    expect(nested).toMatchObject({ code: 'PARSE_ERROR', message: 'source.text: the document is nested too deeply' });
  });

  it('writes canonical JSON: sorted keys at every level, arrays in order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, null], a: 'x', u: undefined })).toBe('{"a":"x","b":[{"c":2,"d":1},null]}');
  });
});
