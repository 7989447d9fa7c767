/**
 * Rison (https://github.com/Nanonid/rison), the compact JSON for URLs the reference's site preview takes its
 * visitor claims in: `(plan:premium,beta:!t,tags:!(a,b),name:'Ann Lee')`. One pass over the text, each character
 * read once (linear time), with a bound on its length and on nesting, so that no input makes the parser work long or
 * recurse deep. Throws RisonError, with the offset, on anything that is not Rison.
 */

export const MAX_RISON_LENGTH = 4096;
export const MAX_RISON_DEPTH = 16;

export class RisonError extends Error {}

/** Characters that end a bare word (Rison's `not_idchar`, with the space). */
const NOT_ID_CHAR = new Set([...` '!:(),*@$`]);
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

export function parseRison(text: string): unknown {
  if (text.length > MAX_RISON_LENGTH) throw new RisonError(`is longer than ${MAX_RISON_LENGTH} characters`);
  let at = 0;
  const fail = (what: string): never => {
    throw new RisonError(`${what} at offset ${at}`);
  };

  function value(depth: number): unknown {
    if (depth > MAX_RISON_DEPTH) fail(`nests deeper than ${MAX_RISON_DEPTH}`);
    const c = text[at];
    if (c === undefined) return fail('ends where a value was expected');
    if (c === '(') return object(depth);
    if (c === "'") return quoted();
    if (c === '!') {
      const next = text[at + 1];
      at += 2;
      if (next === 't') return true;
      if (next === 'f') return false;
      if (next === 'n') return null;
      if (next === '(') return array(depth);
      at -= 2;
      return fail('has an unknown "!" escape');
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = at;
      const match = NUMBER.exec(text);
      if (!match) return fail('has a malformed number');
      at += match[0].length;
      return Number(match[0]);
    }
    return word();
  }

  function word(): string {
    const start = at;
    while (at < text.length && !NOT_ID_CHAR.has(text[at])) at++;
    if (at === start) fail(`has an unexpected "${text[at]}"`);
    return text.slice(start, at);
  }

  function quoted(): string {
    at++;
    let out = '';
    for (;;) {
      const c = text[at];
      if (c === undefined) return fail('has an unterminated string');
      at++;
      if (c === "'") return out;
      if (c === '!') {
        const escaped = text[at];
        if (escaped !== '!' && escaped !== "'") return fail('has an unknown "!" escape in a string');
        out += escaped;
        at++;
      } else out += c;
    }
  }

  function object(depth: number): Record<string, unknown> {
    at++;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    if (text[at] === ')') {
      at++;
      return { ...out };
    }
    for (;;) {
      const key = text[at] === "'" ? quoted() : word();
      if (text[at] !== ':') fail('expects ":" after a key');
      at++;
      out[key] = value(depth + 1);
      const c = text[at++];
      if (c === ')') return { ...out };
      if (c !== ',') fail('expects "," or ")" in an object');
    }
  }

  function array(depth: number): unknown[] {
    const out: unknown[] = [];
    if (text[at] === ')') {
      at++;
      return out;
    }
    for (;;) {
      out.push(value(depth + 1));
      const c = text[at++];
      if (c === ')') return out;
      if (c !== ',') fail('expects "," or ")" in an array');
    }
  }

  const result = value(0);
  if (at !== text.length) fail('has text after its value');
  return result;
}
