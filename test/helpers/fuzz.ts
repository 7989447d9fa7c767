/**
 * Generators for the fuzz suite: a seeded PRNG (the same seed gives the same requests), hostile values (wrong types,
 * huge and odd strings, odd numbers), values sampled from a JSON schema, and mutations of those.
 */

/** mulberry32: small, fast, and deterministic for a seed. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A number from a string (an operation id), to derive one PRNG per operation from the suite's seed. */
export function hashSeed(seed: number, text: string): number {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Strings that break naive code: empty, control characters, lone surrogates, RTL overrides, emoji, huge, injections. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00y',
  '\u202Egnp.exe',
  '\u200F\u0627\u0644\u0639\u0631\u0628\u064A\u0629',
  '\uFEFFbom',
  '👩‍👩‍👧‍👦'.repeat(40),
  '🙂',
  'ǅ̶̡͓̀é\u0301',
  '\r\nX-Injected: 1',
  '\t\v\f',
  '../../../../etc/passwd',
  '..\\..\\windows',
  '%2e%2e%2f',
  '.git/config',
  '--upload-pack=touch /tmp/pwned',
  '-p',
  'HEAD',
  'refs/heads/main',
  "' OR 1=1 --",
  '"; DROP TABLE spaces; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  'undefined',
  'true',
  '-1',
  '1e309',
  'NaN',
  '0x10',
  '__proto__',
  'constructor',
  'http://127.0.0.1:9/x',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'x'.repeat(256),
  'y'.repeat(5_000),
];

export function hugeString(random: Random): string {
  return random.pick(['a', 'é', '🙂', '\u0000', '/']).repeat(20_000 + random.int(60_000));
}

export const ODD_NUMBERS: readonly number[] = [0, -1, -0.5, 0.5, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, -(2 ** 53) - 1, 1e308, -1e308, 5e-324];

/** Any JSON value of a type the schema may not expect. */
export function oddValue(random: Random): unknown {
  switch (random.int(10)) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick(ODD_NUMBERS);
    case 3:
      return random.chance(0.3) ? hugeString(random) : random.pick(ODD_STRINGS);
    case 4:
      return [];
    case 5:
      return [random.pick(ODD_STRINGS), random.pick(ODD_NUMBERS), null, {}];
    case 6:
      return {};
    case 7:
      return JSON.parse('{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}');
    case 8:
      return deeplyNested(random.pick([50, 500, 3000]));
    default:
      return Array.from({ length: 10_000 }, (_, i) => i);
  }
}

function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

type Schema = Record<string, any>;

/** A plausible value for the schema (the base the mutations start from). Fetchable URLs point nowhere reachable. */
export function sample(schema: Schema | undefined, random: Random, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return random.pick(schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return sample(random.pick(variants), random, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => sample(s, random, depth + 1)));
  const type = Array.isArray(schema.type) ? random.pick(schema.type) : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uri' || schema.format === 'url') return 'http://127.0.0.1:9/x';
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'date-time') return new Date(0).toISOString();
      return 'abc'.padEnd(schema.minLength ?? 3, 'x').slice(0, schema.maxLength ?? 100);
    case 'number':
    case 'integer':
      return schema.minimum ?? 1;
    case 'boolean':
      return random.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return random.chance(0.5) ? [] : [sample(schema.items, random, depth + 1)];
    case 'object':
    case undefined: {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const out: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(properties)) {
        if (required.has(name) || random.chance(0.5)) out[name] = sample(inner, random, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

/** A value the schema should refuse, or an odd one it may accept (bad enum, wrong type, out of range, odd string). */
export function badValueFor(schema: Schema | undefined, random: Random): unknown {
  if (schema && Array.isArray(schema.enum) && random.chance(0.4)) return random.pick(['bogus', 'ADMIN', '', 'admin ', null, 1]);
  const type = schema && (Array.isArray(schema.type) ? schema.type[0] : schema.type);
  if ((type === 'number' || type === 'integer') && random.chance(0.5)) return random.pick(ODD_NUMBERS);
  if (type === 'string' && random.chance(0.5)) return random.chance(0.2) ? hugeString(random) : random.pick(ODD_STRINGS);
  return oddValue(random);
}

/** Object paths (arrays of keys) of a value, to mutate nested members too. */
function objectPaths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    out.push(prefix);
    for (const [key, inner] of Object.entries(value)) objectPaths(inner, [...prefix, key], out);
  }
  return out;
}

function schemaAt(schema: Schema | undefined, path: string[]): Schema | undefined {
  let current = schema;
  for (const key of path) {
    const variants = current?.anyOf ?? current?.oneOf;
    if (Array.isArray(variants)) current = variants.find((v: Schema) => v.properties?.[key]) ?? variants[0];
    current = current?.properties?.[key];
  }
  return current;
}

/** A body for the operation: a sample of its schema with one mutation, described for the failure report. */
export function mutatedBody(schema: Schema, random: Random): { body: unknown; what: string } {
  const base = sample(schema, random) as Record<string, unknown>;
  const paths = objectPaths(base);
  if (paths.length === 0 || random.chance(0.12)) return { body: oddValue(random), what: 'the whole body replaced' };
  const path = random.pick(paths);
  let target: any = base;
  for (const key of path) target = target[key];
  const targetSchema = schemaAt(schema, path);
  const names = Object.keys(targetSchema?.properties ?? {});
  const where = path.length ? path.join('.') : 'body';
  const choice = random.int(4);
  if (choice === 0 && Object.keys(target).length > 0) {
    const name = random.pick(Object.keys(target));
    delete target[name];
    return { body: base, what: `${where}.${name} removed` };
  }
  if (choice === 1) {
    const name = random.pick(['extra', '__proto__', 'constructor', 'id', 'organization', 'role', 'x'.repeat(300)]);
    Object.defineProperty(target, name, { value: oddValue(random), enumerable: true, writable: true, configurable: true });
    return { body: base, what: `${where}.${name} added` };
  }
  const name = names.length ? random.pick(names) : random.pick(Object.keys(target).concat('extra'));
  target[name] = badValueFor(targetSchema?.properties?.[name], random);
  return { body: base, what: `${where}.${name} set to an odd value` };
}

/** Raw bodies that are not JSON, or are JSON in odd encodings. */
export const RAW_BODIES: ReadonlyArray<{ payload: string | Buffer; contentType: string }> = [
  { payload: '{"title": ', contentType: 'application/json' },
  { payload: '{"title": "x",}', contentType: 'application/json' },
  { payload: "{'title': 'x'}", contentType: 'application/json' },
  { payload: 'null', contentType: 'application/json' },
  { payload: '"just a string"', contentType: 'application/json' },
  { payload: '[]', contentType: 'application/json' },
  { payload: '{"a":1,"a":2}', contentType: 'application/json' },
  { payload: '\uFEFF{"title":"bom"}', contentType: 'application/json' },
  { payload: '{"title":"\\ud800"}', contentType: 'application/json' },
  { payload: '{"title":"\\u0000"}', contentType: 'application/json' },
  { payload: Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]), contentType: 'application/json' },
  { payload: Buffer.from('{"title":"x"}', 'utf16le'), contentType: 'application/json; charset=utf-16' },
  { payload: '{"title":"x"}', contentType: 'application/json; charset=latin1' },
  { payload: '{"title":"x"}', contentType: 'text/plain' },
  { payload: 'title=x', contentType: 'application/x-www-form-urlencoded' },
  { payload: '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--b--', contentType: 'multipart/form-data; boundary=b' },
  { payload: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), contentType: 'application/zip' },
  { payload: Buffer.from('# v2 git bundle\nnot really\n'), contentType: 'application/x-git-bundle' },
  { payload: Buffer.alloc(2048, 0xab), contentType: 'application/octet-stream' },
  { payload: '{"title":"x"}', contentType: '' },
  { payload: '{"title":"x"}', contentType: 'application/json, text/html' },
  { payload: '{"title":"x"}', contentType: 'application/jsonx' },
];

/** encodeURIComponent, except that lone surrogates become their (invalid) UTF-8 bytes instead of throwing. */
export function encodeLoose(text: string): string {
  return text
    .split(/([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/)
    .map((part) => (/^[\uD800-\uDFFF]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

/** Values for a path parameter: traversal, NUL, bad encodings, over-long, odd numbers, another kind of id. */
export function oddPathValue(random: Random, otherIds: string[]): string {
  return random.pick([
    '..',
    '.',
    '%2e%2e',
    '%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
    '..%2F..%2F.git',
    '%00',
    'a%00b',
    '%2F',
    '%5C..%5C',
    '%E0%A4%A',
    '%ED%A0%80',
    '%C0%AE%C0%AE',
    '%F0%9F%98%80',
    '%E2%80%AEcod.exe',
    '%EF%BB%BF',
    '%20',
    '%0D%0AX-Injected:%201',
    '-1',
    '0',
    '1.5',
    '1e3',
    '9007199254740993',
    '99999999999999999999999999',
    'null',
    '__proto__',
    'constructor',
    '--output=x',
    'HEAD',
    'main',
    'a'.repeat(400),
    'a'.repeat(501),
    'b'.repeat(10_000),
    encodeLoose(random.pick(ODD_STRINGS)),
    random.pick(otherIds),
    random.pick(otherIds).toUpperCase(),
    `${random.pick(otherIds)}%00`,
    `${random.pick(otherIds)}/..`,
  ]);
}

/** Values for a page path (`/content/path/*`). */
export function oddPagePath(random: Random): string {
  return random.pick([
    '../../.git/config',
    '%2e%2e/%2e%2e/etc/passwd',
    '.git/HEAD',
    '.gitbook/assets/hero.png',
    'SUMMARY.md',
    'guide/../README',
    'guide/%00',
    'a/'.repeat(400),
    '%E0%A4%A',
    '%ED%A0%80',
    '',
    '/',
    '//',
    'guide//install',
    encodeURIComponent('\u202Einstall'),
  ]);
}

/** Query values for a parameter of this schema (as strings; repeated parameters as arrays). */
export function oddQueryValue(schema: Schema | undefined, random: Random): string | string[] {
  const type = schema && (Array.isArray(schema.type) ? schema.type[0] : schema.type);
  const byType: string[] =
    type === 'number' || type === 'integer'
      ? ['-1', '1e999', '-1e999', 'abc', '1.5', '99999999999999999999', '', '0x10', 'NaN', 'Infinity', '1001', ' 5 ']
      : type === 'boolean'
        ? ['maybe', '2', '', 'TRUE', 'yes', '0']
        : ['bogus', ''];
  if (random.chance(0.15)) return [random.pick(byType), random.pick(ODD_STRINGS)];
  if (random.chance(0.5)) return random.pick(byType);
  return random.chance(0.1) ? hugeString(random).slice(0, 30_000) : random.pick(ODD_STRINGS);
}

/** Cursors that are not ones the server made: garbage, truncated, re-signed by guess, with non-ASCII signatures. */
export function oddCursor(random: Random, real: string | undefined): string {
  const token = real ?? 'W10.AAAAAAAAAAAAAAAAAAAAAA';
  const [payload, signature = ''] = token.split('.');
  const flip = (text: string) => {
    if (!text) return 'x';
    const i = random.int(text.length);
    return text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
  };
  return random.pick([
    '',
    '.',
    'x',
    'x.',
    '.x',
    'a.b.c',
    `${flip(payload)}.${signature}`,
    `${payload}.${flip(signature)}`,
    `${payload}.${'é'.repeat(signature.length || 22)}`,
    `${payload}.${'🙂'.repeat(11)}`,
    `${payload}.${signature.slice(0, -1)}`,
    `${payload}.${signature}x`,
    `${Buffer.from('{"a":1}').toString('base64url')}.${signature}`,
    `${Buffer.from('[1e999, null, {}]').toString('base64url')}.${signature}`,
    `${payload}`,
    `${payload}.${signature}.${signature}`,
    `%%%.${signature}`,
    `${payload}\u0000.${signature}`,
    'W10.' + 'A'.repeat(5000),
    token.toUpperCase(),
    hugeString(random).slice(0, 10_000),
  ]);
}

/** Headers a client may send oddly; each keeps the admin's token valid (or breaks it, expecting a 401). */
export function oddHeaders(random: Random, token: string): Record<string, string> {
  return random.pick<Record<string, string>>([
    { authorization: `bearer ${token}` },
    { authorization: `Bearer  ${token}` },
    { authorization: `Bearer ${token} ` },
    { authorization: `Bearer ${token}x` },
    { authorization: `Bearer ${token}, Bearer ${token}` },
    { authorization: `Basic ${Buffer.from(`quire:${token}`).toString('base64')}` },
    { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` },
    { authorization: 'Basic %%%' },
    { authorization: 'Bearer' },
    { authorization: `Bearer ${'é'.repeat(40)}` },
    { authorization: `Bearer ${token}`, accept: 'application/xml' },
    { authorization: `Bearer ${token}`, accept: 'text/html;q=0.1, */*;q=abc' },
    { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip, br, zstd, *;q=0' },
    { authorization: `Bearer ${token}`, 'accept-language': 'xx-INVALID;q=2' },
    { authorization: `Bearer ${token}`, range: 'bytes=5-1' },
    { authorization: `Bearer ${token}`, range: 'bytes=-99999999999999999999' },
    { authorization: `Bearer ${token}`, 'if-none-match': '"*", W/"x"' },
    { authorization: `Bearer ${token}`, 'if-modified-since': 'not a date' },
    { authorization: `Bearer ${token}`, 'x-forwarded-for': '999.999.999.999, ::ffff:x' },
    { authorization: `Bearer ${token}`, 'x-forwarded-proto': 'gopher' },
    { authorization: `Bearer ${token}`, 'x-forwarded-host': 'evil.example' },
    { authorization: `Bearer ${token}`, 'x-http-method-override': 'DELETE' },
    { authorization: `Bearer ${token}`, cookie: 'a=%E0%A4%A; b' },
    { authorization: `Bearer ${token}`, 'x-request-id': 'x'.repeat(8000) },
    { authorization: `Bearer ${token}`, 'content-encoding': 'gzip' },
    { authorization: `Bearer ${token}`, origin: 'null' },
  ]);
}
