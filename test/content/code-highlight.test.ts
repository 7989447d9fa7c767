/**
 * Highlighting of code blocks (src/content/code-highlight.ts): YAML in several colours' classes (keys, strings,
 * numbers, literals, bullets), every fence name real repositories write known, code past the page's budget plain,
 * and a 200 KB hostile block in each added language highlighted in bounded time.
 */
import { describe, expect, it } from 'vitest';
import { EXTRA_LANGUAGES, fencedCodeLength, highlightCode, highlighter, PAGE_HIGHLIGHT_BUDGET } from '../../src/content/code-highlight.js';
import { pageHtml } from '../../src/content/page-html.js';
import { all, parseHtml } from '../helpers/html.js';
import { hostileCode } from './hostile-code.js';

const classesOf = (html: string) => new Set(all(parseHtml(html), (e) => e.tagName === 'span').flatMap((e) => (e.properties.className as string[] | undefined) ?? []));

describe('code highlighting', () => {
  it('highlights YAML keys, strings, numbers, literals and bullets apart', () => {
    const { html } = pageHtml('```yml\n# a comment\nname: quire\nport: 8080\nenabled: true\nlist:\n  - "x"\n```\n', { resolveHref: () => undefined });
    expect([...classesOf(html)].sort()).toEqual(expect.arrayContaining(['hljs-attr', 'hljs-bullet', 'hljs-comment', 'hljs-literal', 'hljs-number', 'hljs-string']));
  });

  it('knows the fence names people write', () => {
    const names = ['yaml', 'yml', 'toml', 'dockerfile', 'docker', 'sh', 'bash', 'zsh', 'shell', 'console', 'json', 'jsonc', 'sql', 'graphql', 'gql', 'hcl', 'tf', 'terraform', 'kotlin', 'kt', 'swift', 'go', 'golang', 'rust', 'rs', 'ts', 'tsx', 'py', 'rb', 'proto', 'ps1', 'nginx', 'env', 'text', 'vue', 'mdx', 'diff', 'http', 'scala', 'elixir'];
    expect(names.filter((name) => !highlighter.registered(name))).toEqual([]);
  });

  it('highlights HCL: block types, attributes, strings with interpolation, numbers, comments', () => {
    const { html } = pageHtml('```tf\nresource "aws_s3_bucket" "docs" {\n  bucket = "q-${var.env}" # name\n  count  = 2\n}\n```\n', { resolveHref: () => undefined });
    expect([...classesOf(html)]).toEqual(expect.arrayContaining(['hljs-keyword', 'hljs-attr', 'hljs-string', 'hljs-subst', 'hljs-number', 'hljs-comment']));
  });

  it("highlights an HTTP message's body as JSON or XML, never as a guess among every language", () => {
    const message = (body: string) => pageHtml(`\`\`\`http\nPOST /v1/orgs HTTP/1.1\nContent-Type: text/plain\n\n${body}\n\`\`\`\n`, { resolveHref: () => undefined }).html;
    expect(classesOf(message('{"query": "How do I?", "n": 1}'))).toContain('json');
    expect(classesOf(message('<note><to>Ann</to></note>'))).toContain('xml');
    // The grammar as shipped tried every language on the body, compiling them all: this one it took for Python.
    expect(classesOf(message('def answer(question):\n    return lookup(question, limit=3)'))).not.toContain('python');
  });

  it('shows code past the page budget plain, and counts the code of fences', () => {
    const budget = { left: 10 };
    expect(highlightCode('yaml', 'a: 1\n', budget)).toBeDefined();
    expect(budget.left).toBe(5);
    expect(highlightCode('yaml', 'b: 2\nc: 3\n', budget)).toBeUndefined();
    expect(PAGE_HIGHLIGHT_BUDGET).toBeGreaterThanOrEqual(200 * 1024);
    expect(fencedCodeLength('text\n```js\nab\ncd\n```\nmore\n~~~\nx\n~~~\n')).toBe(8);
  });

  it('keeps the text of a block cut into pieces whole', () => {
    const code = Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? '' : `key${i}: "value ${i}" # note`)).join('\n');
    const children = highlightCode('yaml', code, { left: Infinity })!;
    const text = (nodes: typeof children): string => nodes.map((node) => (node.type === 'text' ? node.value : node.type === 'element' ? text(node.children) : '')).join('');
    expect(text(children)).toBe(code);
  });

  describe.each([...EXTRA_LANGUAGES, 'hcl'])('a 200 KB hostile block in %s', (language) => {
    it('is highlighted in bounded time', () => {
      const code = hostileCode(200 * 1024);
      const started = performance.now();
      const { html } = pageHtml(`\`\`\`${language}\n${code}\n\`\`\`\n`, { resolveHref: () => undefined });
      const took = performance.now() - started;
      expect(html.length).toBeGreaterThan(code.length);
      // Unbounded grammars took 30 s to minutes on such text; cut in pieces, the worst takes under a second here.
      expect(took, `${language}: ${took.toFixed(0)} ms`).toBeLessThan(8_000);
    });
  });
});
