/**
 * Conditions of sections, site spaces and `{% if %}` blocks: small boolean expressions over the visitor's claims,
 * checked when they are saved and evaluated by walking their parsed tree (never with `eval`). The grammar, with
 * JavaScript's precedence:
 *
 *   or       := and ( "||" and )*
 *   and      := equality ( "&&" equality )*
 *   equality := unary ( ("==" | "!=") unary )?
 *   unary    := "!" unary | primary
 *   primary  := "(" or ")" | claim | string | "true" | "false"
 *   claim    := "visitor.claims." NAME          (a claim of the site's adaptive schema)
 *             | "visitor.claims.unsigned." NAME (any unsigned claim: visitors send those unverified)
 *
 * Strings are single- or double-quoted with backslash escapes. A signed claim is a boolean (the adaptive schema only
 * allows boolean claims), so comparing one with a string is refused as a certain mistake.
 *
 * Pure code: published pages are rendered with it on CPU threads too (src/cpu/tasks.ts). The domain refuses a saved
 * condition that breaks these rules with its own error (src/domain/sites/conditions.ts checkCondition).
 */
type Token =
  | { kind: 'op'; value: '(' | ')' | '&&' | '||' | '!' | '==' | '!='; at: number }
  | { kind: 'path'; value: string; at: number }
  | { kind: 'string'; value: string; at: number };

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_DEPTH = 64;

function tokenize(text: string, fail: (message: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '&&' || two === '||' || two === '==' || two === '!=') {
      if (text[i + 2] === '=' && (two === '==' || two === '!=')) fail(`"${two}=" at ${i + 1} is not supported; use "${two}"`);
      tokens.push({ kind: 'op', value: two, at: i });
      i += 2;
      continue;
    }
    if (c === '(' || c === ')' || c === '!') {
      tokens.push({ kind: 'op', value: c, at: i });
      i += 1;
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\n') fail(`the string at ${i + 1} is not closed`);
        if (text[j] === '\\') {
          j += 1;
          if (j >= text.length) break;
        }
        value += text[j];
      }
      if (j >= text.length) fail(`the string at ${i + 1} is not closed`);
      tokens.push({ kind: 'string', value, at: i });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*/.exec(text.slice(i));
    if (word) {
      tokens.push({ kind: 'path', value: word[0], at: i });
      i += word[0].length;
      continue;
    }
    fail(`unexpected "${c}" at ${i + 1}`);
  }
  return tokens;
}

type Operand = 'boolean' | 'string' | 'unknown';

/** A parsed condition. */
type Node =
  | { kind: '||' | '&&' | '==' | '!='; left: Node; right: Node }
  | { kind: '!'; operand: Node }
  | { kind: 'claim'; unsigned: boolean; name: string }
  | { kind: 'literal'; value: string | boolean };

/**
 * Parses `expression` with the grammar above, failing through `fail`. With `claims` (the names of the site's signed
 * claims), a signed claim must be one of them and is a boolean; without, any name is a claim of unknown type (a
 * page's `{% if %}` is not checked when it is written, and may compare claims of any type).
 */
function parse(expression: string, claims: ReadonlySet<string> | undefined, fail: (message: string) => never): Node {
  const tokens = tokenize(expression, fail);
  if (tokens.length === 0) fail('must be an expression, e.g. visitor.claims.<claim>');
  let index = 0;
  const peek = () => tokens[index];
  const describe = (token: Token | undefined) => (token ? `"${token.value}" at ${token.at + 1}` : 'the end');
  type Parsed = { node: Node; type: Operand };

  const primary = (depth: number): Parsed => {
    const token = peek();
    if (!token) return fail('the expression ends too early');
    index += 1;
    if (token.kind === 'string') return { node: { kind: 'literal', value: token.value }, type: 'string' };
    if (token.kind === 'op') {
      if (token.value !== '(') return fail(`unexpected ${describe(token)}`);
      if (depth >= MAX_DEPTH) fail(`parentheses are nested more than ${MAX_DEPTH} deep`);
      const inner = or(depth + 1);
      const close = peek();
      if (close?.kind !== 'op' || close.value !== ')') fail(`expected ")" instead of ${describe(close)}`);
      index += 1;
      return { node: inner.node, type: 'boolean' };
    }
    if (token.value === 'true' || token.value === 'false') return { node: { kind: 'literal', value: token.value === 'true' }, type: 'boolean' };
    const parts = token.value.split('.');
    if (parts[0] !== 'visitor' || parts[1] !== 'claims' || parts.length < 3) {
      return fail(`unknown name "${token.value}" at ${token.at + 1}; conditions use visitor.claims.<claim>`);
    }
    if (parts[2] === 'unsigned') {
      if (parts.length !== 4 || !NAME.test(parts[3])) fail(`"${token.value}" at ${token.at + 1} must be visitor.claims.unsigned.<name>`);
      return { node: { kind: 'claim', unsigned: true, name: parts[3] }, type: 'unknown' };
    }
    if (claims === undefined) {
      if (parts.length !== 3) fail(`"${token.value}" at ${token.at + 1} must be visitor.claims.<name>`);
      return { node: { kind: 'claim', unsigned: false, name: parts[2] }, type: 'unknown' };
    }
    if (parts.length !== 3 || !claims.has(parts[2])) {
      const known = [...claims].sort();
      fail(
        `"${token.value}" at ${token.at + 1} is not a claim of the site's adaptive schema` +
          (known.length > 0 ? ` (claims: ${known.join(', ')})` : ' (the site has no adaptive schema claims)'),
      );
    }
    return { node: { kind: 'claim', unsigned: false, name: parts[2] }, type: 'boolean' };
  };

  const unary = (depth: number): Parsed => {
    const token = peek();
    if (token?.kind === 'op' && token.value === '!') {
      index += 1;
      if (depth >= MAX_DEPTH) fail(`"!" is repeated more than ${MAX_DEPTH} times`);
      return { node: { kind: '!', operand: unary(depth + 1).node }, type: 'boolean' };
    }
    return primary(depth);
  };

  const equality = (depth: number): Parsed => {
    const left = unary(depth);
    const token = peek();
    if (token?.kind === 'op' && (token.value === '==' || token.value === '!=')) {
      index += 1;
      const right = unary(depth);
      if ((left.type === 'boolean' && right.type === 'string') || (left.type === 'string' && right.type === 'boolean')) {
        fail(`${describe(token)} compares a boolean with a string`);
      }
      return { node: { kind: token.value, left: left.node, right: right.node }, type: 'boolean' };
    }
    return left;
  };

  const and = (depth: number): Parsed => {
    let result = equality(depth);
    while (peek()?.kind === 'op' && peek()!.value === '&&') {
      index += 1;
      result = { node: { kind: '&&', left: result.node, right: equality(depth).node }, type: 'boolean' };
    }
    return result;
  };

  function or(depth: number): Parsed {
    let result = and(depth);
    while (peek()?.kind === 'op' && peek()!.value === '||') {
      index += 1;
      result = { node: { kind: '||', left: result.node, right: and(depth).node }, type: 'boolean' };
    }
    return result;
  }

  const result = or(0);
  if (index < tokens.length) fail(`unexpected ${describe(peek())}`);
  if (result.type === 'string') fail('must be a boolean expression, not a string');
  return result.node;
}

/**
 * Checks `expression` against the grammar above and the site's claims (the names of the signed claims of its adaptive
 * schema), calling `fail` with what is wrong.
 */
export function checkConditionSyntax(expression: string, claims: ReadonlySet<string>, fail: (message: string) => never): void {
  parse(expression, claims, fail);
}

/**
 * A visitor's claims as conditions read them: `visitor.claims.NAME` is `claims[NAME]` (the signed claims: a visitor
 * token's payload), `visitor.claims.unsigned.NAME` is `claims.unsigned[NAME]` (what the visitor sent, unverified).
 */
export type VisitorClaims = Record<string, unknown>;

class Unparsable extends Error {}

function claimValue(claims: VisitorClaims, node: { unsigned: boolean; name: string }): unknown {
  const holder = node.unsigned ? claims.unsigned : claims;
  if (typeof holder !== 'object' || holder === null) return undefined;
  // Own members only: `visitor.claims.constructor` is not Object's constructor.
  return Object.hasOwn(holder, node.name) ? (holder as Record<string, unknown>)[node.name] : undefined;
}

function claimsNamed(node: Node, out: Array<{ unsigned: boolean; name: string }> = []): Array<{ unsigned: boolean; name: string }> {
  if (node.kind === 'claim') out.push(node);
  else if (node.kind === '!') claimsNamed(node.operand, out);
  else if (node.kind !== 'literal') {
    claimsNamed(node.left, out);
    claimsNamed(node.right, out);
  }
  return out;
}

function evaluate(node: Node, claims: VisitorClaims): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'claim':
      return claimValue(claims, node);
    case '!':
      return evaluate(node.operand, claims) !== true;
    case '&&':
      return evaluate(node.left, claims) === true && evaluate(node.right, claims) === true;
    case '||':
      return evaluate(node.left, claims) === true || evaluate(node.right, claims) === true;
    case '==':
      return evaluate(node.left, claims) === evaluate(node.right, claims);
    case '!=':
      return evaluate(node.left, claims) !== evaluate(node.right, claims);
  }
}

/**
 * Whether `expression` holds for a visitor with `claims` (a tree walk over the parsed expression: nothing is run).
 * A value counts as true only when it is the boolean `true` (a claim "yes" is not). Fails closed, so that content
 * meant for some visitors never reaches others by accident: a condition that does not parse, or that names a claim
 * the visitor does not carry (even as `!visitor.claims.x`), is false. GitBook's JavaScript would take a missing
 * claim as `undefined` (so `!visitor.claims.x` true); here a visitor without claims sees only unconditioned content,
 * and conditions written to hold for them (`true`).
 */
export function evaluateCondition(expression: string, claims: VisitorClaims): boolean {
  let node: Node;
  try {
    node = parse(expression, undefined, (message) => {
      throw new Unparsable(message);
    });
  } catch (error) {
    if (error instanceof Unparsable) return false;
    throw error;
  }
  if (claimsNamed(node).some((claim) => claimValue(claims, claim) === undefined)) return false;
  return evaluate(node, claims) === true;
}

/**
 * The outcomes of conditions decided for one reader (a page's conditions over their claims), by expression; a
 * condition not among them holds as for a reader without claims.
 */
export type ConditionOutcomes = ReadonlyMap<string, boolean>;

export function decidedCondition(outcomes: ConditionOutcomes, expression: string): boolean {
  return outcomes.get(expression) ?? evaluateCondition(expression, {});
}
