/**
 * Reading an OpenAPI document: fetch (URL sources), parse (JSON or YAML), check it is OpenAPI 3.x or Swagger 2.0,
 * resolve its external `$ref`s into one bundled document, and hash its canonical form.
 *
 * Every byte comes from the source text or through the guarded fetcher given in: `$ref`s to URLs are fetched with
 * it (so the private-address rules, time limit and size cap apply to them too), and no `$ref` can reach the local
 * file system (the library's file and HTTP resolvers are off; `file:` and other schemes are refused).
 *
 * Failures are `SpecProcessingFailure`s carrying the spec's `lastProcessErrorCode`:
 * - FETCH_TIMEOUT: the document or a file it refers to did not arrive in time (or all of them together took
 *   longer than `totalTimeoutMs`);
 * - FETCH_ERROR: a URL could not be fetched: unreachable, refused (private address), not 2xx, too large;
 * - PARSE_ERROR: not JSON or YAML, not an OpenAPI 3.x / Swagger 2.0 document, a `$ref` that cannot be resolved
 *   (missing pointer, relative `$ref` in a text source, a scheme other than http/https), too large once expanded.
 */
import crypto from 'node:crypto';
import yaml from 'js-yaml';
import type { FileInfo, ParserOptions } from '@apidevtools/json-schema-ref-parser';
import { FetchFailure, type FetchedResource } from '../../store/net/guarded-fetch.js';

export type ProcessErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

export class SpecProcessingFailure extends Error {
  constructor(
    readonly code: ProcessErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** How a URL is fetched (the context's guarded fetcher). */
export type Fetch = (url: string, headers?: Record<string, string>) => Promise<FetchedResource>;

export interface DocumentLimits {
  /** Files a document may pull in through `$ref`s. */
  maxFiles: number;
  /** Time for the document and all its files together. */
  totalTimeoutMs: number;
  /** Values (objects, arrays, scalars) of the document once YAML aliases are expanded. */
  maxNodes: number;
  /** Bytes of the bundled document as JSON. */
  maxBytes: number;
}

export const DEFAULT_LIMITS: DocumentLimits = { maxFiles: 100, totalTimeoutMs: 60_000, maxNodes: 2_000_000, maxBytes: 50 * 1024 * 1024 };

export interface LoadedDocument {
  /** The bundled document: external `$ref`s resolved into it, internal ones kept. */
  document: Record<string, unknown>;
  /** `document` as JSON (keys in the source's order): what a version stores. */
  json: string;
  /** SHA-256 of the canonical JSON (sorted keys, no spaces): equal for the same content however it is written. */
  hash: string;
  /** `openapi` (3.x) or `swagger` (2.0). */
  kind: 'openapi' | 'swagger';
  /** The URL the document was read from, after redirects (URL sources). */
  url?: string;
}

/** Base of a text source: it has no location, so relative `$ref`s cannot resolve (to a file or anything else). */
const TEXT_BASE = 'urn:quire:openapi-text';

const ACCEPT = { accept: 'application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.8' };

/** Fetches and reads the document at `url`, with every file it refers to. */
export async function loadDocumentFromUrl(fetch: Fetch, url: string, limits: DocumentLimits = DEFAULT_LIMITS): Promise<LoadedDocument> {
  const deadline = Date.now() + limits.totalTimeoutMs;
  const entry = await fetchText(fetch, url, 'source.url', deadline, limits);
  return bundleDocument(fetch, entry.text, entry.url, deadline, limits);
}

/** Reads a document given as text; only `$ref`s to absolute http(s) URLs are fetched. */
export async function loadDocumentFromText(fetch: Fetch, text: string, limits: DocumentLimits = DEFAULT_LIMITS): Promise<LoadedDocument> {
  return bundleDocument(fetch, text, undefined, Date.now() + limits.totalTimeoutMs, limits);
}

async function fetchText(fetch: Fetch, url: string, field: string, deadline: number, limits: DocumentLimits): Promise<{ text: string; url: string }> {
  const late = () => new SpecProcessingFailure('FETCH_TIMEOUT', `${field}: the document and its $refs took longer than ${limits.totalTimeoutMs} ms to fetch`);
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw late();
  let resource: FetchedResource;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Each fetch has the fetcher's own time limit; this one bounds all of them together.
    const overall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), remaining);
    });
    resource = await Promise.race([fetch(url, ACCEPT), overall]);
  } catch (error) {
    if (error instanceof SpecProcessingFailure) throw error;
    const reason = (error as Error).message.replace(/^url: /, '');
    if (error instanceof FetchFailure && error.code === 'FETCH_TIMEOUT') throw new SpecProcessingFailure('FETCH_TIMEOUT', `${field}: ${reason}`);
    throw new SpecProcessingFailure('FETCH_ERROR', `${field}: ${reason}`);
  } finally {
    clearTimeout(timer);
  }
  if (resource.status < 200 || resource.status > 299) {
    throw new SpecProcessingFailure('FETCH_ERROR', `${field}: ${resource.url} answered HTTP ${resource.status}`);
  }
  return { text: resource.body.toString('utf8').replace(/^\uFEFF/, ''), url: resource.url };
}

async function bundleDocument(fetch: Fetch, text: string, url: string | undefined, deadline: number, limits: DocumentLimits): Promise<LoadedDocument> {
  try {
    return await bundle(fetch, text, url, deadline, limits);
  } catch (error) {
    // Recursive walks (the library's, ours) over a document nested thousands of levels deep.
    if (error instanceof RangeError) {
      throw new SpecProcessingFailure('PARSE_ERROR', `${url === undefined ? 'source.text' : 'source.url'}: the document is nested too deeply`);
    }
    throw error;
  }
}

async function bundle(fetch: Fetch, text: string, url: string | undefined, deadline: number, limits: DocumentLimits): Promise<LoadedDocument> {
  const field = url === undefined ? 'source.text' : 'source.url';
  const parsed = parseText(text, field);
  countNodes(parsed, limits.maxNodes, field);
  const kind = openApiKind(parsed, field);
  checkRefs(parsed, field, url === undefined);

  // The first fetch failure of a `$ref`: the library wraps it, the spec reports it as it is.
  let fetchFailure: SpecProcessingFailure | undefined;
  let files = 0;
  const options: ParserOptions = {
    mutateInputSchema: true,
    parse: { text: false, binary: false },
    resolve: {
      file: false,
      http: false,
      guarded: {
        order: 1,
        canRead: /^https?:\/\//i,
        read: async (file: FileInfo) => {
          try {
            files += 1;
            if (files > limits.maxFiles) throw new SpecProcessingFailure('PARSE_ERROR', `$ref: the document refers to more than ${limits.maxFiles} files`);
            return (await fetchText(fetch, file.url.split('#')[0], `$ref ${file.url}`, deadline, limits)).text;
          } catch (error) {
            fetchFailure ??= error as SpecProcessingFailure;
            throw error;
          }
        },
      },
    },
  };
  // Loaded by the first document to bundle, not with the rest of the server (a library of its own few spaces use).
  const { $RefParser } = await import('@apidevtools/json-schema-ref-parser');
  let document: Record<string, unknown>;
  try {
    document = (await $RefParser.bundle(url ?? TEXT_BASE, parsed, options)) as Record<string, unknown>;
  } catch (error) {
    if (fetchFailure) throw fetchFailure;
    if (error instanceof RangeError) throw error;
    throw new SpecProcessingFailure('PARSE_ERROR', `${field}: a $ref cannot be resolved: ${(error as Error).message}`);
  }
  // Files pulled in may carry YAML aliases of their own.
  countNodes(document, limits.maxNodes, field);
  const canonical = canonicalJson(document);
  const json = JSON.stringify(document);
  if (json.length > limits.maxBytes) throw new SpecProcessingFailure('PARSE_ERROR', `${field}: the bundled document is larger than ${limits.maxBytes} bytes`);
  return { document, json, hash: crypto.createHash('sha256').update(canonical).digest('hex'), kind, ...(url ? { url } : {}) };
}

/** JSON when it looks like JSON, YAML otherwise (YAML 1.2 core schema: dates stay strings). */
function parseText(text: string, field: string): unknown {
  if (text.trim().length === 0) throw new SpecProcessingFailure('PARSE_ERROR', `${field}: the document is empty`);
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all (YAML flow mappings start with `{` too): try YAML.
    }
  }
  try {
    return yaml.load(text, { schema: yaml.CORE_SCHEMA, json: true });
  } catch (error) {
    const reason = ((error as Error).message ?? '').split('\n')[0];
    throw new SpecProcessingFailure('PARSE_ERROR', `${field}: is neither JSON nor YAML (${reason})`);
  }
}

/** Counts values as if YAML aliases were copies, stopping at `max`: an alias bomb is refused, not expanded. */
function countNodes(value: unknown, max: number, field: string): void {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++count > max) throw new SpecProcessingFailure('PARSE_ERROR', `${field}: the document has more than ${max} values once its YAML aliases are expanded`);
    if (node && typeof node === 'object') for (const child of Object.values(node)) stack.push(child);
  }
}

/** `openapi` for OpenAPI 3.x, `swagger` for Swagger 2.0; PARSE_ERROR for anything else. */
function openApiKind(value: unknown, field: string): 'openapi' | 'swagger' {
  const notOpenApi = (why: string) => new SpecProcessingFailure('PARSE_ERROR', `${field}: is not an OpenAPI 3.x or Swagger 2.0 document (${why})`);
  if (!isObject(value)) throw notOpenApi('it is not an object');
  // A YAML `openapi: 3.1` or `swagger: 2.0` left unquoted reads as a number.
  const openapi = typeof value.openapi === 'number' ? String(value.openapi) : value.openapi;
  const swagger = typeof value.swagger === 'number' ? value.swagger.toFixed(1) : value.swagger;
  let kind: 'openapi' | 'swagger';
  if (typeof openapi === 'string' && /^3(\.\d+){0,2}$/.test(openapi)) kind = 'openapi';
  else if (swagger === '2.0') kind = 'swagger';
  else if (openapi !== undefined) throw notOpenApi(`openapi is ${JSON.stringify(value.openapi)}, not 3.x`);
  else if (swagger !== undefined) throw notOpenApi(`swagger is ${JSON.stringify(value.swagger)}, not "2.0"`);
  else throw notOpenApi('it has neither an "openapi" nor a "swagger" member');
  if (!isObject(value.info)) throw notOpenApi('"info" must be an object');
  // OpenAPI 3.1 makes `paths` optional when `webhooks` or `components` are present; 2.0 and 3.0 require it.
  const is31 = kind === 'openapi' && /^3\.[1-9]/.test(String(openapi));
  if (is31 ? !['paths', 'webhooks', 'components'].some((key) => isObject(value[key])) : !isObject(value.paths)) {
    throw notOpenApi(is31 ? 'it needs "paths", "webhooks" or "components"' : '"paths" must be an object');
  }
  return kind;
}

/**
 * `$ref`s the document may hold: local pointers (`#/...`), http(s) URLs and, in a document fetched from a URL,
 * paths relative to it. Any other scheme (`file:`...) is refused, and so is a relative `$ref` in a text source,
 * which has no location to resolve it against.
 */
function checkRefs(value: unknown, field: string, textSource: boolean): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#') && !/^https?:\/\//i.test(ref)) {
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(ref)?.[1];
      if (scheme) {
        throw new SpecProcessingFailure('PARSE_ERROR', `${field}: $ref ${JSON.stringify(ref)} cannot be resolved: only http and https URLs are fetched`);
      }
      if (textSource) {
        throw new SpecProcessingFailure(
          'PARSE_ERROR',
          `${field}: $ref ${JSON.stringify(ref)} cannot be resolved: a text source can only refer to its own members (#/...) or to http(s) URLs`,
        );
      }
    }
    for (const child of Object.values(node)) stack.push(child);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted at every level and no spaces: one text per content. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
