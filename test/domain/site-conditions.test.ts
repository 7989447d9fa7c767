import { describe, expect, it } from 'vitest';
import { checkCondition, evaluateCondition } from '../../src/domain/sites/conditions.js';
import { checkAdaptiveSchema, storedClaims, templateConditions, UNSIGNED_DESCRIPTION } from '../../src/domain/sites/adaptive-schema.js';
import { InvalidArgument } from '../../src/domain/errors.js';

const claims = new Set(['beta', 'staff']);

function refusal(expression: string): string {
  try {
    checkCondition(expression, claims);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgument);
    return (error as Error).message;
  }
  throw new Error(`"${expression}" was accepted`);
}

describe('checkCondition', () => {
  it('accepts expressions over the claims with &&, ||, !, ==, !=, parentheses, strings and booleans', () => {
    for (const expression of [
      'visitor.claims.beta',
      '!visitor.claims.beta',
      '!!visitor.claims.beta',
      'visitor.claims.beta && visitor.claims.staff',
      'visitor.claims.beta || !visitor.claims.staff && visitor.claims.beta',
      '(visitor.claims.beta || visitor.claims.staff) && !(visitor.claims.beta == visitor.claims.staff)',
      'visitor.claims.beta == true',
      'false != visitor.claims.staff',
      'visitor.claims.unsigned.lang == "fr"',
      "visitor.claims.unsigned.lang != 'de' || visitor.claims.unsigned.lang == \"it\\\"s\"",
      'visitor.claims.unsigned.preview',
      '  visitor.claims.beta\n&&\tvisitor.claims.staff  ',
      'true',
    ]) {
      expect(() => checkCondition(expression, claims), expression).not.toThrow();
    }
  });

  it('refuses anything else, naming the field and saying what is wrong', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /^condition: must be an expression/],
      ['   ', /^condition: must be an expression/],
      ['visitor.claims.gamma', /^condition: "visitor.claims.gamma" at 1 is not a claim of the site's adaptive schema \(claims: beta, staff\)$/],
      ['visitor.claims', /^condition: unknown name "visitor.claims"/],
      ['visitor.claims.beta.x', /is not a claim/],
      ['visitor.claims.unsigned', /^condition: "visitor.claims.unsigned" at 1 must be visitor.claims.unsigned.<name>$/],
      ['visitor.claims.unsigned.a.b', /must be visitor.claims.unsigned.<name>/],
      ['process.exit()', /^condition: unknown name "process.exit" at 1/],
      ['globalThis', /^condition: unknown name "globalThis"/],
      ['constructor.constructor("x")()', /^condition: unknown name "constructor.constructor"/],
      ['visitor.claims.beta === true', /^condition: "===" at 21 is not supported; use "=="$/],
      ['visitor.claims.beta !== true', /"!==" at 21 is not supported/],
      ['visitor.claims.beta &&', /^condition: the expression ends too early$/],
      ['&& visitor.claims.beta', /^condition: unexpected "&&" at 1$/],
      ['(visitor.claims.beta', /^condition: expected "\)" instead of the end$/],
      ['visitor.claims.beta)', /^condition: unexpected "\)" at 20$/],
      ['visitor.claims.beta visitor.claims.staff', /^condition: unexpected "visitor.claims.staff" at 21$/],
      ['visitor.claims.beta == "yes"', /^condition: "==" at 21 compares a boolean with a string$/],
      ['"yes" != visitor.claims.staff', /compares a boolean with a string/],
      ['"text"', /^condition: must be a boolean expression, not a string$/],
      ['"open', /^condition: the string at 1 is not closed$/],
      ["'a\nb'", /is not closed/],
      ['visitor.claims.beta & visitor.claims.staff', /^condition: unexpected "&" at 21$/],
      ['visitor.claims.beta + 1', /^condition: unexpected "\+"/],
      ['1 == 1', /^condition: unexpected "1" at 1$/],
      ['visitor["claims"]', /^condition: unexpected "\[" at 8$/],
      ['a = b', /^condition: unexpected "=" at 3$/],
      ['`x`', /unexpected "`"/],
      [`${'('.repeat(70)}visitor.claims.beta${')'.repeat(70)}`, /parentheses are nested more than 64 deep/],
    ];
    for (const [expression, message] of cases) expect(refusal(expression), JSON.stringify(expression)).toMatch(message);
  });

  it('without claims, says the site has none; the field name is the caller\'s', () => {
    expect(() => checkCondition('visitor.claims.beta', new Set(), 'siteSpaces[0].condition')).toThrow(
      /^siteSpaces\[0\]\.condition: "visitor.claims.beta" at 1 is not a claim of the site's adaptive schema \(the site has no adaptive schema claims\)$/,
    );
  });
});

describe('evaluateCondition', () => {
  const visitor = { beta: true, staff: false, plan: 'pro', unsigned: { lang: 'fr', preview: true } };

  it('evaluates &&, ||, !, ==, != and parentheses over signed and unsigned claims, with JavaScript precedence', () => {
    const cases: Array<[string, boolean]> = [
      ['visitor.claims.beta', true],
      ['visitor.claims.staff', false],
      ['!visitor.claims.staff', true],
      ['!!visitor.claims.beta', true],
      ['visitor.claims.beta && visitor.claims.staff', false],
      ['visitor.claims.staff || visitor.claims.beta', true],
      ['visitor.claims.staff || visitor.claims.beta && !visitor.claims.staff', true],
      ['(visitor.claims.staff || visitor.claims.beta) && visitor.claims.staff', false],
      ['visitor.claims.beta == true', true],
      ['visitor.claims.staff != false', false],
      ['visitor.claims.plan == "pro"', true],
      ["visitor.claims.plan != 'pro'", false],
      ['visitor.claims.unsigned.lang == "fr"', true],
      ['visitor.claims.unsigned.lang == "de" || visitor.claims.unsigned.preview', true],
      ['true', true],
      ['false', false],
    ];
    for (const [expression, expected] of cases) expect(evaluateCondition(expression, visitor), expression).toBe(expected);
  });

  it('takes only the boolean true as true: a claim holding a string or a number is not', () => {
    expect(evaluateCondition('visitor.claims.plan', visitor)).toBe(false);
    expect(evaluateCondition('visitor.claims.n', { n: 1 })).toBe(false);
    expect(evaluateCondition('!visitor.claims.plan', visitor)).toBe(true);
  });

  it('is false when a claim it names is missing, even under "!", and when it does not parse', () => {
    for (const expression of ['visitor.claims.gamma', '!visitor.claims.gamma', 'visitor.claims.beta || visitor.claims.gamma', '!visitor.claims.unsigned.missing']) {
      expect(evaluateCondition(expression, visitor), expression).toBe(false);
    }
    expect(evaluateCondition('!visitor.claims.beta', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.unsigned.lang == "fr"', { unsigned: 'fr' })).toBe(false);
    for (const expression of ['', 'visitor.claims.beta &&', 'process.exit()', 'visitor.claims.beta === true', '"text"', 'visitor.claims.a.b', 'visitor.claims']) {
      expect(evaluateCondition(expression, visitor), JSON.stringify(expression)).toBe(false);
    }
  });

  it('reads only the claims\' own members, never what objects inherit', () => {
    expect(evaluateCondition('!visitor.claims.constructor', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.toString != false', {})).toBe(false);
    expect(evaluateCondition('visitor.claims.unsigned.hasOwnProperty != false', { unsigned: {} })).toBe(false);
  });
});

describe('checkAdaptiveSchema', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      beta: { type: 'boolean', description: 'Beta testers' },
      unsigned: { type: 'object', description: UNSIGNED_DESCRIPTION, properties: { lang: { type: 'boolean', description: 'French' } }, additionalProperties: false },
    },
    additionalProperties: false,
  };

  it('returns the signed and unsigned claims, and templates that are valid conditions', () => {
    const claims = checkAdaptiveSchema(schema);
    expect([...claims.signed]).toEqual([['beta', 'Beta testers']]);
    expect([...claims.unsigned]).toEqual([['lang', 'French']]);
    expect(storedClaims(JSON.stringify(schema))).toEqual(claims);
    expect(storedClaims(null)).toEqual({ signed: new Map(), unsigned: new Map() });
    const templates = templateConditions(claims);
    expect(templates.map((c) => c.condition)).toEqual(['visitor.claims.beta', '!visitor.claims.beta', 'visitor.claims.unsigned.lang', '!visitor.claims.unsigned.lang']);
    for (const { condition } of templates) expect(() => checkCondition(condition, new Set(claims.signed.keys()))).not.toThrow();
  });

  it('the schemas it accepts validate claims as draft-07 JSON Schemas do', async () => {
    const { Ajv } = await import('ajv');
    const validate = new Ajv().compile(schema);
    expect(validate({ beta: true, unsigned: { lang: false } })).toBe(true);
    expect(validate({ beta: 'yes' })).toBe(false);
    expect(validate({ gamma: true })).toBe(false);
  });

  it('names the member at fault, under the caller\'s path', () => {
    expect(() => checkAdaptiveSchema({ ...schema, required: ['beta'] }, 'body.jsonSchema')).toThrow(/^body\.jsonSchema\.required: is not allowed here$/);
    expect(() => checkAdaptiveSchema(null)).toThrow(/^jsonSchema: must be an object$/);
    expect(() => checkAdaptiveSchema({ ...schema, properties: { ...schema.properties, '1st': { type: 'boolean', description: 'x' } } })).toThrow(/^jsonSchema.properties.1st: a claim name/);
    expect(() => checkAdaptiveSchema({ ...schema, properties: { beta: { type: 'boolean', description: 'x'.repeat(257) } } })).toThrow(/^jsonSchema.properties.beta.description: must be at most 256 characters$/);
    expect(() => checkAdaptiveSchema({ ...schema, properties: { beta: true } })).toThrow(/^jsonSchema.properties.beta: must be \{"type": "boolean"/);
    expect(() => checkAdaptiveSchema({ ...schema, properties: { unsigned: 'x' } })).toThrow(/^jsonSchema.properties.unsigned: must be an object schema$/);
    expect(() =>
      checkAdaptiveSchema({ ...schema, properties: { unsigned: { ...schema.properties.unsigned, type: 'array' } } }),
    ).toThrow(/^jsonSchema.properties.unsigned.type: must be "object"$/);
  });
});
