/**
 * The adaptive schema of a site: the JSON Schema (draft-07) of the claims its visitors carry, within the spec's
 * constraints, a subset of the reference's (which also allows string, number, array and object claims): an object with
 * `additionalProperties: false`, boolean claims each with a `description`, and an optional `unsigned` object holding
 * unsigned claims of the same shape. The constraints are checked here, field by field, so a refusal names the member at
 * fault; what passes is then compiled by Ajv as a draft-07 schema.
 */
import { Ajv } from 'ajv';
import { InvalidArgument } from '../errors.js';

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
export const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';
/** Claim names are usable in conditions (`visitor.claims.<name>`). */
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_CLAIMS = 100;
const MAX_DESCRIPTION = 256;

export interface AdaptiveClaims {
  /** Signed claim name -> description. */
  signed: Map<string, string>;
  /** Unsigned claim name -> description. */
  unsigned: Map<string, string>;
}

// Compiles (and so checks) a schema as draft-07, Ajv's default; strict mode refuses unknown keywords.
const ajv = new Ajv({ strict: true, allErrors: false });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, message: string): never {
  throw new InvalidArgument(`${path}: ${message}`);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${path}.${key}`, 'is not allowed here');
}

function requireKey(value: Record<string, unknown>, key: string, path: string): unknown {
  if (!(key in value)) fail(`${path}.${key}`, 'is required');
  return value[key];
}

function checkClaims(properties: unknown, path: string, claims: Map<string, string>, reserved: readonly string[]): void {
  if (!isObject(properties)) fail(path, 'must be an object of claims');
  for (const [name, claim] of Object.entries(properties)) {
    if (reserved.includes(name)) continue;
    const at = `${path}.${name}`;
    if (!CLAIM_NAME.test(name)) fail(at, 'a claim name must be letters, digits and "_", not starting with a digit');
    if (!isObject(claim)) fail(at, 'must be {"type": "boolean", "description": "..."}');
    onlyKeys(claim, ['type', 'description'], at);
    if (requireKey(claim, 'type', at) !== 'boolean') fail(`${at}.type`, 'must be "boolean" (claims are boolean)');
    const description = requireKey(claim, 'description', at);
    if (typeof description !== 'string' || description.trim().length === 0) fail(`${at}.description`, 'must be a non-empty string');
    if (description.length > MAX_DESCRIPTION) fail(`${at}.description`, `must be at most ${MAX_DESCRIPTION} characters`);
    claims.set(name, description);
  }
}

/**
 * Checks a visitor-claims schema (400 naming the member at fault: `jsonSchema.properties.beta.type: ...`) and
 * returns its claims. `path` is the name of the schema in the request.
 */
export function checkAdaptiveSchema(schema: unknown, path = 'jsonSchema'): AdaptiveClaims {
  if (!isObject(schema)) fail(path, 'must be an object');
  onlyKeys(schema, ['$schema', 'type', 'properties', 'additionalProperties'], path);
  if ('$schema' in schema && schema.$schema !== DRAFT_07) fail(`${path}.$schema`, `must be "${DRAFT_07}"`);
  if (requireKey(schema, 'type', path) !== 'object') fail(`${path}.type`, 'must be "object"');
  if (requireKey(schema, 'additionalProperties', path) !== false) fail(`${path}.additionalProperties`, 'must be false');
  const properties = requireKey(schema, 'properties', path);
  const claims: AdaptiveClaims = { signed: new Map(), unsigned: new Map() };
  checkClaims(properties, `${path}.properties`, claims.signed, ['unsigned']);
  const unsigned = (properties as Record<string, unknown>).unsigned;
  if (unsigned !== undefined) {
    const at = `${path}.properties.unsigned`;
    if (!isObject(unsigned)) fail(at, 'must be an object schema');
    onlyKeys(unsigned, ['type', 'description', 'properties', 'additionalProperties'], at);
    if (requireKey(unsigned, 'type', at) !== 'object') fail(`${at}.type`, 'must be "object"');
    if (requireKey(unsigned, 'description', at) !== UNSIGNED_DESCRIPTION) fail(`${at}.description`, `must be "${UNSIGNED_DESCRIPTION}"`);
    if (requireKey(unsigned, 'additionalProperties', at) !== false) fail(`${at}.additionalProperties`, 'must be false');
    checkClaims(requireKey(unsigned, 'properties', at), `${at}.properties`, claims.unsigned, []);
  }
  if (claims.signed.size + claims.unsigned.size > MAX_CLAIMS) fail(`${path}.properties`, `must declare at most ${MAX_CLAIMS} claims`);
  try {
    ajv.compile(schema);
  } catch (error) {
    fail(path, `is not a valid draft-07 JSON Schema (${(error as Error).message})`);
  } finally {
    // Ajv keeps every compiled schema object; these are one-off checks.
    ajv.removeSchema(schema);
  }
  return claims;
}

/** The claims of a stored schema (already checked when it was saved); none when the site has no schema. */
export function storedClaims(stored: string | null): AdaptiveClaims {
  if (!stored) return { signed: new Map(), unsigned: new Map() };
  return checkAdaptiveSchema(JSON.parse(stored));
}

/** Suggested conditions: each claim, and its negation. */
export function templateConditions(claims: AdaptiveClaims): Array<{ description: string; condition: string }> {
  const items: Array<{ description: string; condition: string }> = [];
  const add = (prefix: string, name: string, description: string) => {
    items.push({ description, condition: `${prefix}${name}` });
    items.push({ description: `Not: ${description}`, condition: `!${prefix}${name}` });
  };
  for (const [name, description] of claims.signed) add('visitor.claims.', name, description);
  for (const [name, description] of claims.unsigned) add('visitor.claims.unsigned.', name, description);
  return items;
}
