/**
 * Checks answers against the reference OpenAPI document (@gitbook/api 0.130.0, spec/openapi.json), with the
 * adjustments its defects call for: three names removed from `required` that no correct answer can carry (Space.type
 * and Site.defaultSpace have no property definition, `organizaitons` is misspelt), discriminators without a mapping
 * validated as plain oneOf, the `attributes` of an edited page (RevisionSemanticChangePageEdited) read as anyOf of
 * its three schemas (they overlap: any object one accepts, another does too, so no answer can match exactly one), and
 * the translation-settings operations left out because the spec replaces their resource. A violation throws, failing
 * the test.
 */
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const require = createRequire(import.meta.url);

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: unknown }>; $ref?: string }>;
}

const reference = structuredClone(require('@gitbook/api/spec/openapi.json')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }>; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
};

function dropRequired(schema: { required?: string[] } | undefined, name: string): void {
  if (schema?.required) schema.required = schema.required.filter((r) => r !== name);
}
dropRequired(reference.components.schemas.Space, 'type');
dropRequired(reference.components.schemas.Site, 'defaultSpace');
dropRequired(
  (reference.paths['/email-domains/{emailDomain}/orgs'].get.responses['200'].content!['application/json'].schema as { required?: string[] }),
  'organizaitons',
);

// Document, group and link attributes allow each other's members (no additionalProperties), and the group's are
// a subset of the document's: oneOf can never hold.
const editedAttributes = (reference.components.schemas.RevisionSemanticChangePageEdited as { properties: Record<string, { oneOf?: unknown; anyOf?: unknown }> }).properties.attributes;
editedAttributes.anyOf = editedAttributes.oneOf;
delete editedAttributes.oneOf;

const EXCLUDED = /^\/orgs\/\{organizationId\}\/translations/;

const ajv = new Ajv({ strict: false, allErrors: true, discriminator: false, validateFormats: true });
addFormats(ajv);
ajv.addFormat('emoji', true);
// The reference marks icon names with a format of its own, as it does emoji.
ajv.addFormat('icon', true);
ajv.addSchema(rebase({ components: reference.components }) as object, 'reference.json');

/**
 * Rewrites local `#/components/...` refs so inline schemas resolve against the added reference document, and
 * turns `nullable` beside a `$ref` (no `type`, which Ajv refuses) into `anyOf [schema, null]`.
 */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith('#/') ? `reference.json${inner}` : rebase(inner);
    }
    if (out.nullable === true && out.type === undefined) {
      delete out.nullable;
      return { anyOf: [out, { type: 'null' }] };
    }
    return out;
  }
  return value;
}

const templates = Object.keys(reference.paths).map((template) => ({
  template,
  regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  literalSegments: template.split('/').filter((s) => !s.startsWith('{')).length,
}));

/** The reference path template an API path matches; literal segments win over parameters. */
export function referenceTemplate(path: string): string | undefined {
  const matches = templates.filter((t) => t.regex.test(path));
  matches.sort((a, b) => b.literalSegments - a.literalSegments);
  return matches[0]?.template;
}

const cache = new Map<string, ValidateFunction | null>();

function validatorFor(template: string, method: string, status: number): ValidateFunction | null {
  const key = `${method} ${template} ${status}`;
  if (cache.has(key)) return cache.get(key)!;
  const operation = reference.paths[template]?.[method];
  let validator: ValidateFunction | null = null;
  if (status >= 400) {
    validator = ajv.compile({ $ref: 'reference.json#/components/schemas/Error' });
  } else if (operation) {
    let response = operation.responses[String(status)] as { content?: Record<string, { schema: unknown }>; $ref?: string } | undefined;
    if (response?.$ref) response = reference.components.responses[response.$ref.split('/').pop()!];
    const schema = response?.content?.['application/json']?.schema;
    if (schema) validator = ajv.compile(rebase(schema) as object);
  }
  cache.set(key, validator);
  return validator;
}

export class ContractViolation extends Error {}

/**
 * Throws when a JSON answer does not match the reference: the schema of its operation and status, or the Error
 * schema for 4xx/5xx (whose `code` must also equal the status). Answers of an undocumented status fail too.
 */
export function assertMatchesReference(method: string, url: string, status: number, body: unknown): void {
  const path = url.split('?')[0].replace(/^\/v1/, '');
  if (!url.startsWith('/v1/') || path === '/openapi.json') return;
  if (status >= 400) {
    const validator = validatorFor('*', 'error', status)!;
    if (!validator(body)) throw new ContractViolation(`${method} ${url} ${status}: error body does not match Error: ${ajv.errorsText(validator.errors)}`);
    if ((body as { error: { code: number } }).error.code !== status) throw new ContractViolation(`${method} ${url}: error.code differs from the status ${status}`);
    return;
  }
  const template = referenceTemplate(path);
  if (!template || EXCLUDED.test(template)) return;
  const operation = reference.paths[template][method.toLowerCase()];
  if (!operation) throw new ContractViolation(`${method} ${template}: the reference has no such operation`);
  if (!operation.responses[String(status)]) {
    throw new ContractViolation(`${method} ${template}: status ${status} is not one of the reference's (${Object.keys(operation.responses).join(', ')})`);
  }
  const validator = validatorFor(template, method.toLowerCase(), status);
  if (!validator) {
    if (body !== undefined && status !== 204 && status !== 205) throw new ContractViolation(`${method} ${template} ${status}: the reference defines no body`);
    return;
  }
  if (!validator(body)) {
    throw new ContractViolation(`${method} ${template} ${status}: ${ajv.errorsText(validator.errors, { separator: '\n  ' })}\n  body: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}

/** The reasons `value` does not match the reference's component schema `name` (none when it matches). */
export function referenceSchemaErrors(name: string, value: unknown): string | undefined {
  const validator = ajv.getSchema(`reference.json#/components/schemas/${name}`);
  if (!validator) throw new Error(`the reference has no schema ${name}`);
  return validator(value) ? undefined : ajv.errorsText(validator.errors, { separator: '\n  ' });
}
