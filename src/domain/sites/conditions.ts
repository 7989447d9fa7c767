/**
 * Conditions of sections and site spaces: small boolean expressions over the visitor's claims, checked when they
 * are saved (never evaluated with `eval`). The grammar, with JavaScript's precedence:
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
 */
import { InvalidArgument } from '../errors.js';

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

/**
 * Checks `expression` against the grammar above and the site's claims. Throws 400 naming `field` otherwise.
 * `claims` are the names of the signed claims of the site's adaptive schema.
 */
export function checkCondition(expression: string, claims: ReadonlySet<string>, field = 'condition'): void {
  const fail = (message: string): never => {
    throw new InvalidArgument(`${field}: ${message}`);
  };
  const tokens = tokenize(expression, fail);
  if (tokens.length === 0) fail('must be an expression, e.g. visitor.claims.<claim>');
  let index = 0;
  const peek = () => tokens[index];
  const describe = (token: Token | undefined) => (token ? `"${token.value}" at ${token.at + 1}` : 'the end');

  const primary = (depth: number): Operand => {
    const token = peek();
    if (!token) return fail('the expression ends too early');
    index += 1;
    if (token.kind === 'string') return 'string';
    if (token.kind === 'op') {
      if (token.value !== '(') return fail(`unexpected ${describe(token)}`);
      if (depth >= MAX_DEPTH) fail(`parentheses are nested more than ${MAX_DEPTH} deep`);
      or(depth + 1);
      const close = peek();
      if (close?.kind !== 'op' || close.value !== ')') fail(`expected ")" instead of ${describe(close)}`);
      index += 1;
      return 'boolean';
    }
    if (token.value === 'true' || token.value === 'false') return 'boolean';
    const parts = token.value.split('.');
    if (parts[0] !== 'visitor' || parts[1] !== 'claims' || parts.length < 3) {
      return fail(`unknown name "${token.value}" at ${token.at + 1}; conditions use visitor.claims.<claim>`);
    }
    if (parts[2] === 'unsigned') {
      if (parts.length !== 4 || !NAME.test(parts[3])) fail(`"${token.value}" at ${token.at + 1} must be visitor.claims.unsigned.<name>`);
      return 'unknown';
    }
    if (parts.length !== 3 || !claims.has(parts[2])) {
      const known = [...claims].sort();
      fail(
        `"${token.value}" at ${token.at + 1} is not a claim of the site's adaptive schema` +
          (known.length > 0 ? ` (claims: ${known.join(', ')})` : ' (the site has no adaptive schema claims)'),
      );
    }
    return 'boolean';
  };

  const unary = (depth: number): Operand => {
    const token = peek();
    if (token?.kind === 'op' && token.value === '!') {
      index += 1;
      if (depth >= MAX_DEPTH) fail(`"!" is repeated more than ${MAX_DEPTH} times`);
      unary(depth + 1);
      return 'boolean';
    }
    return primary(depth);
  };

  const equality = (depth: number): Operand => {
    const left = unary(depth);
    const token = peek();
    if (token?.kind === 'op' && (token.value === '==' || token.value === '!=')) {
      index += 1;
      const right = unary(depth);
      if ((left === 'boolean' && right === 'string') || (left === 'string' && right === 'boolean')) {
        fail(`${describe(token)} compares a boolean with a string`);
      }
      return 'boolean';
    }
    return left;
  };

  const and = (depth: number): Operand => {
    let result = equality(depth);
    while (peek()?.kind === 'op' && peek()!.value === '&&') {
      index += 1;
      equality(depth);
      result = 'boolean';
    }
    return result;
  };

  function or(depth: number): Operand {
    let result = and(depth);
    while (peek()?.kind === 'op' && peek()!.value === '||') {
      index += 1;
      and(depth);
      result = 'boolean';
    }
    return result;
  }

  const result = or(0);
  if (index < tokens.length) fail(`unexpected ${describe(peek())}`);
  if (result === 'string') fail('must be a boolean expression, not a string');
}
