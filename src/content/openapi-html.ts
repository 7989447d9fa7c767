/**
 * An OpenAPI operation as a published page shows it (`{% openapi %}`, `{% openapi-operation %}`, `{% swagger %}`
 * blocks): method and path, summary, description, parameters, request body and responses with an outline
 * of their schemas (`$ref`s inside the document resolved, two levels of nested properties). OpenAPI 3.x and
 * Swagger 2.0. Pure: the documents come from the caller, descriptions are turned into HTML by the caller's markdown
 * pipeline (src/content/page-html.ts), which sanitizes everything this writes.
 */
import type { Element, ElementContent } from 'hast';
import { parseTagArguments } from './gitbook-markdown.js';

/** What a block names: a spec by slug (`spec=`) or by its source (`src=`, a URL), and one operation of it. */
export interface OpenApiRef {
  spec?: string;
  src?: string;
  path: string;
  method: string;
}

/** One operation of a document, found for a block. */
export interface OpenApiOperation {
  /** The spec's slug. */
  spec: string;
  method: string;
  path: string;
  operation: Record<string, unknown>;
  /** The parameters of the path item, which every operation of the path shares. */
  pathParameters: unknown[];
  /** The whole document: what `$ref`s point into, Swagger 2.0's `consumes` and `produces`. */
  document: Record<string, unknown>;
}

/** Turns a description (CommonMark) into sanitizable HTML: the page's own pipeline. */
export type MarkdownToHast = (markdown: string) => ElementContent[];

type Json = Record<string, unknown>;

const OPENAPI_TAGS = /\{%-?\s*(openapi|openapi-operation|swagger)\s+([^%]*?)-?%\}/g;

/** How deep the schema outline opens nested objects (a property of a property of the body). */
const OUTLINE_DEPTH = 2;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const element = (tagName: string, properties: Element['properties'], children: ElementContent[]): Element => ({ type: 'element', tagName, properties, children });
const textNode = (value: string): ElementContent => ({ type: 'text', value });

/** The OpenAPI blocks a page's markdown holds (read before rendering, to load their specs). */
export function openApiRefsOf(markdown: string): OpenApiRef[] {
  return [...markdown.matchAll(OPENAPI_TAGS)].map((match) => openApiRef(parseTagArguments(match[2])));
}

/** A block's attributes as what it names. */
export function openApiRef(attributes: Record<string, string>): OpenApiRef {
  return {
    ...(attributes.spec ? { spec: attributes.spec } : {}),
    ...(attributes.src ? { src: attributes.src } : {}),
    path: attributes.path ?? '',
    method: (attributes.method ?? '').toLowerCase(),
  };
}

/** The operation `method path` of a document (method in any case), or undefined. */
export function findOperation(document: Json, spec: string, path: string, method: string): OpenApiOperation | undefined {
  const paths = isObject(document.paths) ? document.paths : {};
  const item = resolve(document, paths[path]).schema;
  const operation = item?.[method.toLowerCase()];
  if (!item || !isObject(operation)) return undefined;
  return { spec, method: method.toLowerCase(), path, operation, pathParameters: Array.isArray(item.parameters) ? item.parameters : [], document };
}

/** A local `$ref` (`#/components/schemas/Pet`) followed (a few hops), with the name it points to; anything else as it is. */
function resolve(document: Json, value: unknown): { schema: Json | undefined; name?: string } {
  let current = value;
  let name: string | undefined;
  for (let hops = 0; hops < 10 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return { schema: undefined, name: ref };
    const segments = ref.slice(2).split('/').map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
    name = segments[segments.length - 1];
    current = segments.reduce<unknown>((node, key) => (isObject(node) || Array.isArray(node) ? (node as Json)[key] : undefined), document);
  }
  return { schema: isObject(current) ? current : undefined, ...(name ? { name } : {}) };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** A schema's type as a reader reads it: `string (date-time)`, `array of Pet`, `Pet`, `one of Cat, Dog`. */
function typeName(document: Json, value: unknown): string {
  const { schema, name } = resolve(document, value);
  if (name) return name;
  if (!schema) return '';
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) return `${key === 'oneOf' ? 'one of' : 'any of'} ${options.map((option) => typeName(document, option)).join(', ')}`;
  }
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : str(schema.type);
  if (type === 'array') return `array of ${typeName(document, schema.items) || 'any'}`;
  const base = type ?? (isObject(schema.properties) || Array.isArray(schema.allOf) ? 'object' : '');
  const format = str(schema.format);
  const values = Array.isArray(schema.enum) ? `: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return `${base}${format ? ` (${format})` : ''}${values}`;
}

/** The properties of an object schema, those of its `allOf` parts merged in. */
function propertiesOf(document: Json, value: unknown, seen: Set<Json> = new Set()): { properties: Array<[string, unknown]>; required: Set<string> } {
  const { schema } = resolve(document, value);
  const properties: Array<[string, unknown]> = [];
  const required = new Set<string>();
  if (!schema || seen.has(schema)) return { properties, required };
  seen.add(schema);
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const inner = propertiesOf(document, part, seen);
    properties.push(...inner.properties);
    inner.required.forEach((name) => required.add(name));
  }
  if (isObject(schema.properties)) properties.push(...Object.entries(schema.properties));
  if (Array.isArray(schema.required)) schema.required.forEach((name) => typeof name === 'string' && required.add(name));
  return { properties, required };
}

/** The schema whose properties an outline lists: the schema itself, or the items of an array. */
function objectOf(document: Json, value: unknown): unknown {
  const { schema } = resolve(document, value);
  return schema?.type === 'array' ? schema.items : value;
}

class OperationRenderer {
  constructor(
    private readonly document: Json,
    private readonly markdown: MarkdownToHast,
  ) {}

  private description(value: unknown, className: string): ElementContent[] {
    const text = str(value);
    return text ? [element('div', { className: [className] }, this.markdown(text))] : [];
  }

  /** The properties of a schema as a nested list (name, type, required, description), `depth` levels deep. */
  outline(value: unknown, depth = 1, seen: Set<Json> = new Set()): ElementContent[] {
    const target = resolve(this.document, objectOf(this.document, value)).schema;
    if (!target || seen.has(target)) return [];
    const { properties, required } = propertiesOf(this.document, target);
    if (properties.length === 0) return [];
    const inside = new Set([...seen, target]);
    const items = properties.map(([name, property]): ElementContent => {
      const schema = resolve(this.document, property).schema;
      const nested = depth < OUTLINE_DEPTH ? this.outline(property, depth + 1, inside) : [];
      return element('li', {}, [
        element('code', { className: ['schema-name'] }, [textNode(name)]),
        textNode(' '),
        element('span', { className: ['schema-type'] }, [textNode(typeName(this.document, property))]),
        ...(required.has(name) ? [textNode(' '), element('span', { className: ['schema-required'] }, [textNode('required')])] : []),
        ...this.description(schema?.description, 'schema-description'),
        ...nested,
      ]);
    });
    return [element('ul', { className: ['schema'] }, items)];
  }

  /** A body (request or response) by media type: its type, then the outline of its properties. */
  private bodies(content: Array<[string, unknown]>): ElementContent[] {
    return content.flatMap(([mediaType, schema]) => [
      element('p', { className: ['openapi-media'] }, [
        element('code', {}, [textNode(mediaType)]),
        ...(schema === undefined ? [] : [textNode(' '), element('span', { className: ['schema-type'] }, [textNode(typeName(this.document, schema))])]),
      ]),
      ...(schema === undefined ? [] : this.outline(schema)),
    ]);
  }

  /** OpenAPI 3's `content` map, or Swagger 2.0's one `schema` under each media type it lists. */
  private contentOf(holder: Json, swaggerSchema: unknown, mediaTypes: unknown): Array<[string, unknown]> {
    if (isObject(holder.content)) return Object.entries(holder.content).map(([type, media]) => [type, isObject(media) ? media.schema : undefined]);
    if (swaggerSchema === undefined) return [];
    const types = Array.isArray(mediaTypes) && mediaTypes.length > 0 ? mediaTypes.map(String) : ['application/json'];
    return types.map((type) => [type, swaggerSchema]);
  }

  private parameters(op: OpenApiOperation): { table: ElementContent[]; swaggerBody?: Json } {
    // An operation's parameter replaces the path's of the same name and place.
    const byKey = new Map<string, Json>();
    for (const raw of [...op.pathParameters, ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : [])]) {
      const parameter = resolve(this.document, raw).schema;
      if (parameter) byKey.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
    }
    const all = [...byKey.values()];
    const swaggerBody = all.find((p) => p.in === 'body');
    const listed = all.filter((p) => p.in !== 'body');
    if (listed.length === 0) return { table: [], ...(swaggerBody ? { swaggerBody } : {}) };
    const cell = (children: ElementContent[]) => element('td', {}, children);
    const rows = listed.map((p) =>
      element('tr', {}, [
        cell([element('code', {}, [textNode(String(p.name ?? ''))])]),
        cell([textNode(String(p.in ?? ''))]),
        cell([textNode(typeName(this.document, p.schema ?? p))]),
        cell([textNode(p.required === true ? 'required' : '')]),
        cell(str(p.description) ? this.markdown(String(p.description)) : []),
      ]),
    );
    const head = element('thead', {}, [element('tr', {}, ['Name', 'In', 'Type', 'Required', 'Description'].map((title) => element('th', {}, [textNode(title)])))]);
    return {
      table: [element('h4', {}, [textNode('Parameters')]), element('table', { className: ['openapi-parameters'] }, [head, element('tbody', {}, rows)])],
      ...(swaggerBody ? { swaggerBody } : {}),
    };
  }

  render(op: OpenApiOperation): Element {
    const { operation } = op;
    const children: ElementContent[] = [
      element('p', { className: ['openapi-heading'] }, [
        element('span', { className: ['openapi-method', `openapi-method-${op.method}`] }, [textNode(op.method.toUpperCase())]),
        textNode(' '),
        element('code', { className: ['openapi-path'] }, [textNode(op.path)]),
        ...(operation.deprecated === true ? [textNode(' '), element('span', { className: ['openapi-deprecated'] }, [textNode('deprecated')])] : []),
      ]),
    ];
    if (str(operation.summary)) children.push(element('p', { className: ['openapi-summary'] }, [element('strong', {}, [textNode(String(operation.summary))])]));
    children.push(...this.description(operation.description, 'openapi-description'));

    const { table, swaggerBody } = this.parameters(op);
    children.push(...table);

    const requestBody = resolve(this.document, operation.requestBody).schema;
    const request = requestBody
      ? this.contentOf(requestBody, undefined, undefined)
      : swaggerBody
        ? this.contentOf({}, swaggerBody.schema, operation.consumes ?? this.document.consumes)
        : [];
    if (request.length > 0) {
      children.push(element('h4', {}, [textNode('Request body')]));
      if (requestBody?.required === true || swaggerBody?.required === true) children.push(element('p', { className: ['schema-required'] }, [textNode('required')]));
      children.push(...this.description(requestBody?.description ?? swaggerBody?.description, 'openapi-description'), ...this.bodies(request));
    }

    const responses = isObject(operation.responses) ? Object.entries(operation.responses) : [];
    if (responses.length > 0) {
      children.push(element('h4', {}, [textNode('Responses')]));
      for (const [status, raw] of responses) {
        const response = resolve(this.document, raw).schema ?? {};
        children.push(
          element('div', { className: ['openapi-response'] }, [
            element('p', {}, [element('span', { className: ['openapi-status', `openapi-status-${/^[1-5]/.test(status) ? `${status[0]}xx` : 'default'}`] }, [textNode(status)])]),
            ...this.description(response.description, 'openapi-description'),
            ...this.bodies(this.contentOf(response, response.schema, operation.produces ?? this.document.produces)),
          ]),
        );
      }
    }
    return element('div', { className: ['openapi-operation'] }, children);
  }
}

/** The operation as HTML (hast, for the page's sanitizer). */
export function operationElement(op: OpenApiOperation, markdown: MarkdownToHast): Element {
  return new OperationRenderer(op.document, markdown).render(op);
}
