/**
 * GitBook-flavoured markdown into one syntax tree: CommonMark and GFM (remark-parse, remark-gfm)
 * plus what the hosted platform writes around them:
 *
 * - a Liquid tag on a line of its own (`{% hint style="info" %}`, `{% endhint %}`, `{% embed url="..." %}`) is a
 *   leaf block of its own, `liquidTag`, made by a micromark flow construct: it ends a paragraph like a thematic
 *   break does, and it works inside list items and block quotes (micromark handles their prefixes);
 * - an opening tag and its `end` tag among the same siblings become one container, `liquidBlock`, holding what lies
 *   between them (nested ones included: tabs of tab, stepper of step, code around a fenced block); a tag without
 *   its end tag stays a leaf (`{% embed %}`, `{% include %}`), and so does an unbalanced one: never lost;
 * - `<details>` HTML, its `<summary>`, the markdown after it and `</details>` among the same siblings become one
 *   `details` node (an expandable);
 * - `{{ ... }}` on one line is an inline `liquidExpression` (variables, `visitor.claims...`);
 * - `$$` math, as a block and within text (remark-math).
 *
 * Text that only looks like Liquid inside code (fenced, indented, inline) stays code: code constructs come first.
 * Writing the tree back (remark-stringify with toMarkdownExtension) gives each tag and expression as written.
 */
import type { Parent, Root, RootContent } from 'mdast';
import type { Position } from 'unist';
import type { CompileContext, Extension as FromMarkdownExtension, Token } from 'mdast-util-from-markdown';
import type { Info, Options as ToMarkdownExtension, State as ToMarkdownState } from 'mdast-util-to-markdown';
import { markdownLineEnding, markdownSpace } from 'micromark-util-character';
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import { escapeHtml, htmlText } from './html-text.js';
import { unified, type Plugin } from 'unified';

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    liquidTag: 'liquidTag';
    liquidTagMarker: 'liquidTagMarker';
    liquidTagValue: 'liquidTagValue';
    liquidExpression: 'liquidExpression';
    liquidExpressionMarker: 'liquidExpressionMarker';
    liquidExpressionValue: 'liquidExpressionValue';
  }
}

/** A Liquid tag left alone: no end tag among its siblings (`{% embed url="..." %}`), or an end tag without start. */
export interface LiquidTag {
  type: 'liquidTag';
  /** Between `{%` and `%}`, trimmed: `embed url="https://example.com"`. */
  value: string;
  position?: Position;
}

/** A Liquid tag with its end tag, and what lies between them. */
export interface LiquidBlock {
  type: 'liquidBlock';
  /** The tag's name: `hint`, `tabs`, `tab`, `code`, `if`... */
  name: string;
  /** The opening tag after its name, trimmed: `style="info"`. */
  args: string;
  /** `key="value"` pairs of `args` (see parseTagArguments). */
  attributes: Record<string, string>;
  children: GitbookNode[];
  position?: Position;
}

/** `<details>` HTML with its `<summary>` and the markdown between it and `</details>` (an expandable). */
export interface Details {
  type: 'details';
  /** The summary's text. */
  summary: string;
  children: GitbookNode[];
  position?: Position;
}

/** `{{ space.vars.version }}`. */
export interface LiquidExpression {
  type: 'liquidExpression';
  /** Between `{{` and `}}`, trimmed. */
  value: string;
  position?: Position;
}

/** The nodes of a parsed page: mdast's, and the three above (not declared into mdast's maps: the rest of the
 * code base keeps its plain mdast types, and only readers of this tree meet these). */
export type GitbookNode = RootContent | LiquidTag | LiquidBlock | Details | LiquidExpression;

const LEFT_BRACE = 123;
const RIGHT_BRACE = 125;
const PERCENT = 37;

// ---- micromark: the tokenizers

/** `%}` then only spaces to the end of the line: where a tag line's value ends. */
const tagLineEnd: Construct = {
  partial: true,
  tokenize(effects: Effects, ok: State, nok: State): State {
    const afterPercent: State = (code: Code) => {
      if (code !== RIGHT_BRACE) return nok(code);
      effects.consume(code);
      return trailing;
    };
    const trailing: State = (code: Code) => {
      if (markdownSpace(code)) {
        effects.consume(code);
        return trailing;
      }
      return code === null || markdownLineEnding(code) ? ok(code) : nok(code);
    };
    return (code: Code) => {
      if (code !== PERCENT) return nok(code);
      effects.consume(code);
      return afterPercent;
    };
  },
};

/** A line holding one Liquid tag and nothing else (after the indentation micromark already took). */
const liquidTagLine: Construct = {
  name: 'liquidTag',
  tokenize(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    let valueSize = 0;
    const value: State = (code: Code) => {
      if (code === null || markdownLineEnding(code)) return nok(code);
      if (code === PERCENT) return effects.check(tagLineEnd, endOfValue, valueCharacter)(code);
      return valueCharacter(code);
    };
    const valueCharacter: State = (code: Code) => {
      effects.consume(code);
      valueSize++;
      return value;
    };
    const endOfValue: State = (code: Code) => {
      if (valueSize === 0) return nok(code);
      effects.exit('liquidTagValue');
      effects.enter('liquidTagMarker');
      effects.consume(code); // %
      return closingBrace;
    };
    const closingBrace: State = (code: Code) => {
      effects.consume(code); // }
      effects.exit('liquidTagMarker');
      return trailing;
    };
    const trailing: State = (code: Code) => {
      if (markdownSpace(code)) {
        effects.consume(code);
        return trailing;
      }
      effects.exit('liquidTag');
      return ok(code);
    };
    const afterBrace: State = (code: Code) => {
      if (code !== PERCENT) return nok(code);
      effects.consume(code);
      effects.exit('liquidTagMarker');
      effects.enter('liquidTagValue');
      return value;
    };
    return (code: Code) => {
      effects.enter('liquidTag');
      effects.enter('liquidTagMarker');
      effects.consume(code); // {
      return afterBrace;
    };
  },
};

/** `{{ ... }}` within a line. */
const liquidExpression: Construct = {
  name: 'liquidExpression',
  tokenize(effects: Effects, ok: State, nok: State): State {
    let valueSize = 0;
    const second: State = (code: Code) => {
      if (code !== LEFT_BRACE) return nok(code);
      effects.consume(code);
      effects.exit('liquidExpressionMarker');
      effects.enter('liquidExpressionValue');
      return value;
    };
    const value: State = (code: Code) => {
      if (code === null || markdownLineEnding(code)) return nok(code);
      if (code === RIGHT_BRACE) {
        if (valueSize === 0) return nok(code);
        effects.exit('liquidExpressionValue');
        effects.enter('liquidExpressionMarker');
        effects.consume(code);
        return closing;
      }
      effects.consume(code);
      valueSize++;
      return value;
    };
    const closing: State = (code: Code) => {
      if (code !== RIGHT_BRACE) return nok(code);
      effects.consume(code);
      effects.exit('liquidExpressionMarker');
      effects.exit('liquidExpression');
      return ok;
    };
    return (code: Code) => {
      effects.enter('liquidExpression');
      effects.enter('liquidExpressionMarker');
      effects.consume(code);
      return second;
    };
  },
};

/** The micromark extension: tag lines in flow, expressions in text. */
export const gitbookSyntax: Extension = {
  flow: { [LEFT_BRACE]: liquidTagLine },
  text: { [LEFT_BRACE]: liquidExpression },
};

// ---- mdast: from tokens to nodes, and back to text

function enterNode(this: CompileContext, node: LiquidTag | LiquidExpression, token: Token): void {
  this.enter(node as never, token);
}

function setValue(this: CompileContext, token: Token): void {
  const node = this.stack[this.stack.length - 1] as unknown as LiquidTag | LiquidExpression;
  node.value = this.sliceSerialize(token).trim();
}

export const gitbookFromMarkdown: FromMarkdownExtension = {
  enter: {
    liquidTag(token) {
      enterNode.call(this, { type: 'liquidTag', value: '' }, token);
    },
    liquidExpression(token) {
      enterNode.call(this, { type: 'liquidExpression', value: '' }, token);
    },
  },
  exit: {
    liquidTagValue: setValue,
    liquidExpressionValue: setValue,
    liquidTag(token) {
      this.exit(token);
    },
    liquidExpression(token) {
      this.exit(token);
    },
  },
};

function blockToMarkdown(node: LiquidBlock, _parent: unknown, state: ToMarkdownState, info: Info): string {
  const open = `{% ${node.name}${node.args ? ` ${node.args}` : ''} %}`;
  const inside = state.containerFlow(node as never, info);
  return inside ? `${open}\n${inside}\n{% end${node.name} %}` : `${open}\n{% end${node.name} %}`;
}

function detailsToMarkdown(node: Details, _parent: unknown, state: ToMarkdownState, info: Info): string {
  const summary = escapeHtml(node.summary);
  const inside = state.containerFlow(node as never, info);
  return `<details>\n\n<summary>${summary}</summary>\n\n${inside ? `${inside}\n\n` : ''}</details>`;
}

export const gitbookToMarkdown: ToMarkdownExtension = {
  handlers: {
    details: detailsToMarkdown,
    liquidTag: (node: LiquidTag) => `{% ${node.value} %}`,
    liquidBlock: blockToMarkdown,
    liquidExpression: (node: LiquidExpression) => `{{ ${node.value} }}`,
  } as never,
  unsafe: [{ character: '{', inConstruct: 'phrasing', after: '[{%]' }],
};

// ---- pairing tags into blocks

/**
 * `title="A \"quoted\" one" overflow=wrap lineNumbers="true"` -> attributes (positional words are left out). One pass
 * over the text (a regular expression retried from every later word made a long line quadratic); reading stops at a
 * quoted value that never closes.
 */
export function parseTagArguments(args: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  let i = 0;
  while (i < args.length) {
    if (!isWordCharacter(args[i])) {
      i++;
      continue;
    }
    // A name: a run of word characters and `-`, from its first letter or `_` (`2x=1` names `x`).
    const run = i;
    while (i < args.length && isWordCharacter(args[i])) i++;
    let start = run;
    while (start < i && !isNameStart(args[start])) start++;
    if (start === i) continue;
    let at = i;
    while (isSpace(args[at])) at++;
    if (args[at] !== '=') continue;
    at++;
    while (isSpace(args[at])) at++;
    const quote = args[at];
    let end: number;
    let raw: string;
    if (quote === '"' || quote === "'") {
      end = at + 1;
      // A backslash takes the character after it (not a line break: then the value does not close).
      while (end < args.length && args[end] !== quote && !(args[end] === '\\' && (end + 1 >= args.length || isLineBreak(args[end + 1])))) end += args[end] === '\\' ? 2 : 1;
      if (args[end] !== quote) break;
      raw = args.slice(at + 1, end);
      end += 1;
    } else {
      end = at;
      while (end < args.length && !isSpace(args[end]) && args[end] !== '"' && args[end] !== "'") end++;
      if (end === at) continue;
      raw = args.slice(at, end);
    }
    attributes[args.slice(start, i)] = raw.replace(/\\(["'\\])/g, '$1');
    i = end;
  }
  return attributes;
}

const isWordCharacter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || c === '-';
const isNameStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isLineBreak = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

/** The name and the rest of a tag's value: `hint style="info"` -> [`hint`, `style="info"`]. */
export function splitTag(value: string): { name: string; args: string } {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(value.trim());
  return match ? { name: match[1], args: match[2].trim() } : { name: '', args: '' };
}

/**
 * The branches of an `{% if %}` block in order: the block's own, each `{% elif %}` / `{% elsif %}` (the parser
 * leaves these and `{% else %}` as tags among the block's children), then `{% else %}` (no condition).
 */
export function ifBranches(node: LiquidBlock): Array<{ condition: string | undefined; children: GitbookNode[] }> {
  let branch: GitbookNode[] = [];
  const branches: Array<{ condition: string | undefined; children: GitbookNode[] }> = [{ condition: node.args, children: branch }];
  for (const child of node.children) {
    const { name, args } = child.type === 'liquidTag' ? splitTag(child.value) : { name: '', args: '' };
    if (name === 'elif' || name === 'elsif' || name === 'else') {
      branch = [];
      branches.push({ condition: name === 'else' ? undefined : args, children: branch });
    } else branch.push(child);
  }
  return branches;
}

/** The children of the first branch of an `{% if %}` block whose condition holds; none when no condition holds. */
export function shownIfBranch(node: LiquidBlock, holds: (condition: string) => boolean): GitbookNode[] {
  return ifBranches(node).find((branch) => branch.condition === undefined || holds(branch.condition))?.children ?? [];
}

/**
 * Pairs the tags among `children` (one parent's): each opening tag with the first balanced `end` tag after it
 * becomes a LiquidBlock holding the nodes in between (paired the same way, recursively). Recurses into every
 * parent, so tags inside list items, quotes and table cells pair within their own container.
 */
function pairChildren(children: GitbookNode[]): GitbookNode[] {
  for (const child of children) {
    if ('children' in child && Array.isArray(child.children)) (child as Parent).children = pairChildren(child.children as GitbookNode[]) as never;
  }
  const result: GitbookNode[] = [];
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    const marker = markerOf(child);
    const end = marker?.open ? matchingEnd(children, i, marker.key) : -1;
    if (end < 0) {
      result.push(child);
      continue;
    }
    const closing = children[end];
    const position = child.position && closing.position ? { start: child.position.start, end: closing.position.end } : undefined;
    let inner = children.slice(i + 1, end);
    if (child.type === 'liquidTag') {
      const { name, args } = splitTag(child.value);
      result.push({ type: 'liquidBlock', name, args, attributes: parseTagArguments(args), children: pairChildren(inner), position });
    } else if (child.type === 'html') {
      // The summary is in the opening HTML block, or in the one right after it (the platform writes it apart).
      let summary = summaryOf(child.value);
      const next = inner[0];
      if (summary === undefined && next?.type === 'html' && SUMMARY_ALONE.test(next.value)) {
        summary = summaryOf(next.value);
        inner = inner.slice(1);
      }
      result.push({ type: 'details', summary: htmlText(summary ?? ''), children: pairChildren(inner), position });
    }
    i = end;
  }
  return result;
}

const DETAILS_OPEN = /^<details(?:\s[^>]*)?>/i;
const DETAILS_CLOSE = /^<\/details>\s*$/i;
const SUMMARY_ALONE = /^<summary(?:\s[^>]*)?>[\s\S]*<\/summary>\s*$/i;

/**
 * What the first `<summary>` (or `<summary attributes>`) in `html` holds, up to the first `</summary>` after it (any
 * case); undefined when there is none. Found by searching, not by one regular expression: `<summary(...)>(.*?)</summary>`
 * retried at every `<summary` of a long block without a `</summary>` was quadratic.
 */
function summaryOf(html: string): string | undefined {
  const open = /<summary(?=[\s>])/gi;
  if (!open.exec(html)) return undefined;
  const start = html.indexOf('>', open.lastIndex);
  if (start < 0) return undefined;
  const close = /<\/summary>/gi;
  close.lastIndex = start + 1;
  const end = close.exec(html);
  return end ? html.slice(start + 1, end.index) : undefined;
}

/** What opens or closes a block: a Liquid tag (`hint` / `endhint`), or `<details>` / `</details>` HTML. */
function markerOf(node: GitbookNode): { open: boolean; key: string } | undefined {
  if (node.type === 'liquidTag') {
    const { name } = splitTag(node.value);
    return name.startsWith('end') ? { open: false, key: name.slice(3) } : { open: true, key: name };
  }
  if (node.type === 'html') {
    if (DETAILS_OPEN.test(node.value) && !/<\/details>/i.test(node.value)) return { open: true, key: '<details>' };
    if (DETAILS_CLOSE.test(node.value)) return { open: false, key: '<details>' };
  }
  return undefined;
}

/** Index of what closes the block `key` opened at `start`, counting nested ones of the same key; -1 if none. */
function matchingEnd(children: GitbookNode[], start: number, key: string): number {
  let depth = 0;
  for (let i = start + 1; i < children.length; i++) {
    const marker = markerOf(children[i]);
    if (marker?.key !== key) continue;
    if (marker.open) depth++;
    else if (depth === 0) return i;
    else depth--;
  }
  return -1;
}

/** The remark plugin: the syntax, the mdast extensions, and the pairing of tags after parsing. */
export const remarkGitbook: Plugin<[], Root> = function () {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(gitbookSyntax);
  (data.fromMarkdownExtensions ??= []).push(gitbookFromMarkdown);
  (data.toMarkdownExtensions ??= []).push(gitbookToMarkdown);
  return (tree: Root) => {
    tree.children = pairChildren(tree.children) as RootContent[];
  };
};

/**
 * Math as the platform writes it: `$$` around a block, `$$x$$` within text (remark-math, `math` and `inlineMath`
 * nodes); a single `$` is a dollar (`$5`), never math.
 */
const MATH_OPTIONS = { singleDollarTextMath: false };

/** The parser of GitBook-flavoured markdown (a unified processor: parse, then run the pairing). */
export function gitbookMarkdownParser() {
  return unified().use(remarkParse).use(remarkGfm).use(remarkMath, MATH_OPTIONS).use(remarkGitbook);
}

/** The same syntax for writing a tree back (remark-stringify is added by the caller). */
export function gitbookMarkdownWriter() {
  return unified().use(remarkGfm).use(remarkMath, MATH_OPTIONS).use(remarkGitbook);
}

/** Parses GitBook-flavoured markdown into its syntax tree. */
export function parseGitbookMarkdown(markdown: string): Root {
  const processor = gitbookMarkdownParser();
  return processor.runSync(processor.parse(markdown)) as Root;
}

