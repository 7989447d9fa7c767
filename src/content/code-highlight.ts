/**
 * Server-side highlighting of code blocks (lowlight: highlight.js's grammars, output as hast). The languages are
 * highlight.js's common ones plus those real documentation repositories write that it leaves out of them
 * (EXTRA_LANGUAGES, from the grammars lowlight ships), HCL (Terraform) in a small grammar of our own (highlight.js has
 * none), and the names people give them in fences (`yml`, `sh`, `console`, `tf`, `dockerfile`, `gql`, `toml`,
 * `jsonc`...: most are the grammars' own aliases; ALIASES adds the rest). Grammars compile on first use, so a process
 * pays only for the languages its pages hold. Every grammar here renders a 200 KB hostile block in bounded time
 * (test/content/code-highlight.test.ts).
 */
import { all, common, createLowlight } from './highlight-grammars.js';
import type { ElementContent } from 'hast';
import type { HLJSApi, Language, Mode } from 'highlight.js';

/** highlight.js grammars beyond the common set that documentation holds (all shipped with lowlight). */
export const EXTRA_LANGUAGES = [
  'dockerfile', 'nginx', 'apache', 'powershell', 'dos', 'protobuf', 'scala', 'groovy', 'gradle', 'elixir', 'erlang', 'haskell', 'clojure',
  'dart', 'julia', 'matlab', 'ocaml', 'fsharp', 'nix', 'cmake', 'properties', 'http', 'latex', 'handlebars', 'django', 'twig', 'pgsql', 'vim',
  'elm', 'crystal', 'scheme', 'x86asm', 'fortran', 'verilog', 'vhdl', 'tcl', 'awk', 'gherkin', 'capnproto', 'thrift', 'dns', 'nim',
] as const;

/**
 * HCL, the configuration language of Terraform, Packer, Nomad and Vault: blocks (`resource "type" "name" {`),
 * attributes (`name = value`), strings with `${...}` interpolation and `%{...}` directives, heredocs, numbers,
 * `true`/`false`/`null`, comments (`#`, `//`, `/* *\/`). Every pattern is bounded or anchored to a word's start, so no
 * input makes a pattern scan the same text again and again; interpolations do not nest (no stack to grow).
 */
export function hcl(hljs: HLJSApi): Language {
  const number: Mode = { scope: 'number', match: /\b\d{1,40}(?:\.\d{1,40})?(?:[eE][+-]?\d{1,5})?/, relevance: 0 };
  const interpolation: Mode = {
    scope: 'subst',
    begin: /[$%]\{/,
    end: /\}/,
    keywords: { keyword: 'for in if else endif endfor', literal: 'true false null' },
    contains: [number, { scope: 'string', begin: /"/, end: /"/, illegal: /\n/, contains: [hljs.BACKSLASH_ESCAPE] }],
  };
  const string: Mode = { scope: 'string', begin: /"/, end: /"/, illegal: /\n/, contains: [hljs.BACKSLASH_ESCAPE, interpolation] };
  const heredoc: Mode = hljs.END_SAME_AS_BEGIN({
    scope: 'string',
    begin: /<<-?([A-Za-z_]\w{0,40})\n/,
    end: /^[ \t]{0,40}([A-Za-z_]\w{0,40})$/,
    contains: [interpolation],
  });
  return {
    name: 'HCL',
    aliases: ['hcl', 'tf', 'terraform', 'tfvars', 'nomad', 'packer'],
    keywords: { keyword: 'for in if else endif endfor', literal: 'true false null' },
    contains: [
      hljs.HASH_COMMENT_MODE,
      hljs.C_LINE_COMMENT_MODE,
      hljs.C_BLOCK_COMMENT_MODE,
      heredoc,
      string,
      number,
      // A block's type at the start of a line, before its labels or its brace.
      { scope: 'keyword', match: /^[ \t]{0,40}[A-Za-z_][\w-]{0,60}(?=[ \t]{1,40}["{A-Za-z_]|[ \t]{0,40}\{)/, relevance: 0 },
      // An attribute's name, before its `=` (not `==`).
      { scope: 'attr', match: /\b[A-Za-z_][\w-]{0,60}(?=[ \t]{0,40}=(?!=))/, relevance: 0 },
      // A function call's name.
      { scope: 'title.function', match: /\b[A-Za-z_][\w-]{0,60}(?=\()/, relevance: 0 },
    ],
  };
}

/** The languages an HTTP message's body is highlighted as (the one whose grammar fits it best). */
const HTTP_BODY_LANGUAGES = ['json', 'xml'];

/**
 * highlight.js's HTTP grammar with its body highlighted as one of HTTP_BODY_LANGUAGES. The grammar as shipped tries
 * every registered language on the body: a process's first HTTP block with a body compiled all of them (seconds of a
 * CPU thread, measured in a static export of a real repository), and every body after it ran all of them, a tenth of
 * a second for a 4 KB block: small enough to render on the event loop (CODE_ON_EVENT_LOOP), too slow to.
 */
function http(hljs: HLJSApi): Language {
  const language = all.http(hljs);
  const seen = new Set<object>();
  const visit = (mode: unknown): void => {
    if (typeof mode !== 'object' || mode === null || seen.has(mode)) return;
    seen.add(mode);
    const fields = mode as Mode;
    if (Array.isArray(fields.subLanguage) && fields.subLanguage.length === 0) fields.subLanguage = HTTP_BODY_LANGUAGES;
    for (const child of [...(fields.contains ?? []), ...(fields.variants ?? []), fields.starts]) visit(child);
  };
  visit(language);
  return language;
}

/** Fence names that no grammar knows by itself, and the grammar each means. */
const ALIASES: Record<string, string[]> = {
  bash: ['env', 'dotenv', 'zsh', 'fish'],
  xml: ['vue', 'svelte', 'astro', 'jsx-html'],
  markdown: ['mdx'],
  json: ['jsonl', 'ndjson', 'geojson'],
  plaintext: ['text', 'txt', 'output', 'none'],
  javascript: ['mjs', 'cjs'],
  dockerfile: ['containerfile'],
};

function makeHighlighter() {
  const languages: Record<string, (hljs: HLJSApi) => Language> = { ...common, hcl };
  for (const name of EXTRA_LANGUAGES) languages[name] = all[name];
  languages.http = http;
  const highlighter = createLowlight(languages);
  for (const [language, names] of Object.entries(ALIASES)) highlighter.registerAlias(language, names.filter((name) => !highlighter.registered(name)));
  return highlighter;
}

export const highlighter = makeHighlighter();

/** How code blocks name their languages; a language not here shows as written. */
const LANGUAGE_NAMES: Record<string, string> = {
  bash: 'Bash', sh: 'Shell', shell: 'Shell', zsh: 'Zsh', console: 'Console', powershell: 'PowerShell', ps1: 'PowerShell', bat: 'Batch', cmd: 'Batch',
  js: 'JavaScript', javascript: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript', jsx: 'JSX', ts: 'TypeScript', typescript: 'TypeScript', tsx: 'TSX',
  json: 'JSON', jsonc: 'JSON', json5: 'JSON5', yaml: 'YAML', yml: 'YAML', toml: 'TOML', ini: 'INI', xml: 'XML', html: 'HTML', css: 'CSS', scss: 'SCSS',
  sql: 'SQL', pgsql: 'PostgreSQL', postgresql: 'PostgreSQL', graphql: 'GraphQL', gql: 'GraphQL', hcl: 'HCL', tf: 'Terraform', terraform: 'Terraform',
  dockerfile: 'Dockerfile', docker: 'Dockerfile', go: 'Go', golang: 'Go', rust: 'Rust', rs: 'Rust', kotlin: 'Kotlin', kt: 'Kotlin', swift: 'Swift',
  python: 'Python', py: 'Python', ruby: 'Ruby', rb: 'Ruby', java: 'Java', csharp: 'C#', cs: 'C#', cpp: 'C++', c: 'C', php: 'PHP', scala: 'Scala',
  markdown: 'Markdown', md: 'Markdown', diff: 'Diff', http: 'HTTP', nginx: 'Nginx', makefile: 'Makefile', protobuf: 'Protocol Buffers', proto: 'Protocol Buffers',
  elixir: 'Elixir', dart: 'Dart', lua: 'Lua', r: 'R', perl: 'Perl', haskell: 'Haskell', text: 'Text', txt: 'Text', plaintext: 'Text',
};

/** The name a code block's header shows for its fence's language. */
export function languageName(lang: string): string {
  return LANGUAGE_NAMES[lang] ?? lang;
}

/**
 * Code is highlighted in pieces of at most this many characters, cut at a blank line (else a line's end) in the
 * piece's second half. Some of highlight.js's grammars take time that grows with the square of a block's length on
 * hostile text (C's on lines of one letter: seconds for a few tens of KB); pieces bound the time of each call, so
 * the time is linear in the code. A construct longer than a piece (a long block comment) loses its colour past the cut.
 */
const PIECE = 1024;
/** Characters of code one page highlights; code past them shows plain (a page of megabytes of code stays quick). */
export const PAGE_HIGHLIGHT_BUDGET = 256 * 1024;
/**
 * Pages with more fenced code than this render on the CPU pool (render.ts): highlighting that much hostile code could
 * hold the event loop past 100 ms.
 */
export const CODE_ON_EVENT_LOOP = 4 * 1024;

/** Where the piece of `value` that starts at `from` ends: at a blank line, else a line's end, else PIECE on. */
function pieceEnd(value: string, from: number): number {
  const limit = from + PIECE;
  if (limit >= value.length) return value.length;
  let lineEnd = -1;
  for (let i = limit - 1; i >= from + PIECE / 2; i--) {
    if (value[i] !== '\n') continue;
    if (value[i - 1] === '\n') return i + 1;
    if (lineEnd < 0) lineEnd = i + 1;
  }
  return lineEnd > 0 ? lineEnd : limit;
}

/** What is left of a page's highlighting budget, spent by highlightCode. */
export interface HighlightBudget {
  left: number;
}

/** `value` in `lang` as hast (undefined: a language no grammar knows, or past the page's budget: shown plain). */
export function highlightCode(lang: string, value: string, budget: HighlightBudget): ElementContent[] | undefined {
  if (!highlighter.registered(lang) || value.length > budget.left) return undefined;
  budget.left -= value.length;
  const children: ElementContent[] = [];
  for (let from = 0; from < value.length; ) {
    const end = pieceEnd(value, from);
    children.push(...(highlighter.highlight(lang, value.slice(from, end)).children as ElementContent[]));
    from = end;
  }
  return children;
}

/** Characters inside fenced code blocks (``` or ~~~ lines) of `markdown`, in one pass (an estimate: what counts is its size). */
export function fencedCodeLength(markdown: string): number {
  let inside = false;
  let length = 0;
  for (let start = 0; start < markdown.length; ) {
    const newline = markdown.indexOf('\n', start);
    const end = newline < 0 ? markdown.length : newline + 1;
    let i = start;
    while (i < end && i - start < 4 && (markdown[i] === ' ' || markdown[i] === '>')) i++;
    if (markdown.startsWith('```', i) || markdown.startsWith('~~~', i)) inside = !inside;
    else if (inside) length += end - start;
    start = end;
  }
  return length;
}
