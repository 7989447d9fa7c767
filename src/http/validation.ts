/**
 * Request validation: one Ajv for bodies (no type coercion: `{"title": 5}` is a wrong type, not "5") and one for
 * query strings and path parameters (strings coerced to the declared number or boolean). Errors become messages
 * that start with the offending field, e.g. `title: must be at most 50 characters`.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyRequest } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { InvalidArgument } from '../domain/errors.js';
import { NOT_BLANK } from './schemas.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  // The reference marks emoji strings with a format of its own; any string up to the length limit is accepted.
  ajv.addFormat('emoji', true);
  return ajv;
}

const bodyAjv = makeAjv(false);
const paramsAjv = makeAjv(true);

export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction {
  return (httpPart === 'body' ? bodyAjv : paramsAjv).compile(schema);
}

function fieldPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

function describe(error: ErrorObject): { field: string; message: string } {
  const path = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: path ? `${path}.${params.missingProperty}` : String(params.missingProperty), message: 'is required' };
    case 'additionalProperties':
      return { field: path ? `${path}.${params.additionalProperty}` : String(params.additionalProperty), message: 'is not allowed here' };
    case 'maxLength':
      return { field: path, message: `must be at most ${params.limit} ${plural(Number(params.limit), 'character')}` };
    case 'minLength':
      return { field: path, message: `must be at least ${params.limit} ${plural(Number(params.limit), 'character')}` };
    case 'enum':
      return { field: path, message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : v)).join(', ')}` };
    case 'pattern':
      return { field: path, message: params.pattern === NOT_BLANK ? 'must not be blank' : (error.message ?? 'is invalid') };
    case 'minProperties':
      return { field: path, message: `must have at least ${params.limit} member(s)` };
    default:
      return { field: path, message: error.message ?? 'is invalid' };
  }
}

/** Picks the most useful error: a concrete one rather than "must match a schema in anyOf". */
export function formatValidationErrors(errors: readonly FastifySchemaValidationError[] | readonly ErrorObject[], part: string): string {
  const list = errors as readonly ErrorObject[];
  const concrete = list.filter((e) => !['anyOf', 'oneOf', 'allOf', 'if'].includes(e.keyword));
  const chosen = concrete[0] ?? list[0];
  if (!chosen) return `${part}: is invalid`;
  const { field, message } = describe(chosen);
  const sameFieldTypes = concrete.filter((e) => e.keyword === 'type' && e.instancePath === chosen.instancePath);
  if (chosen.keyword === 'type' && sameFieldTypes.length > 1) {
    const types = sameFieldTypes.map((e) => (e.params as { type: string }).type);
    return `${field || part}: must be ${types.join(' or ')}`;
  }
  return `${field || part}: ${message}`;
}

/** An object of parsed JSON or of Fastify's params and query (a prototype without one), not a Buffer or a stream. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/**
 * The field of the first string or object key that holds U+0000 in a parsed request part (params, query or JSON
 * body), or undefined. Walked with an explicit stack: a JSON body may nest deeper than the call stack.
 */
export function fieldWithNul(value: unknown, root: string): string | undefined {
  const stack: Array<{ value: unknown; field: string }> = [{ value, field: root }];
  const join = (field: string, key: string) => (field ? `${field}.${key}` : key);
  while (stack.length > 0) {
    const { value: current, field } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return field || 'body';
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], field: `${field || 'body'}[${i}]` });
    } else if (isPlainObject(current)) {
      for (const [key, inner] of Object.entries(current).reverse()) {
        if (key.includes('\u0000')) return join(field, key);
        stack.push({ value: inner, field: join(field, key) });
      }
    }
  }
  return undefined;
}

/**
 * Refuses (400, naming the field) requests whose path parameters, query or JSON body hold the NUL character.
 * PostgreSQL cannot store U+0000 in text (it answered 500) and no field of the API has a use for it, so every
 * database refuses it alike. Uploads (buffers) and git's streams are not text and are left alone.
 */
export async function refuseNulCharacters(request: FastifyRequest): Promise<void> {
  // Parameters and query strings come from the URL, where a NUL can only be written `%00` (HTTP refuses a raw one):
  // a request without a body and without `%00` has none to find (most requests; this runs on all of them).
  if (request.body === undefined && !request.raw.url?.includes('%00')) return;
  const params = request.params as Record<string, unknown> | undefined;
  const field =
    fieldWithNul(params && '*' in params ? { ...params, '*': undefined, path: params['*'] } : params, '') ??
    fieldWithNul(request.query, '') ??
    fieldWithNul(request.body, '');
  if (field !== undefined) throw new InvalidArgument(`${field}: must not contain the NUL character (U+0000)`);
}
