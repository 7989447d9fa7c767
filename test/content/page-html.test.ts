/**
 * GitBook-flavoured markdown as sanitized HTML (src/content/page-html.ts): each block as the published site shows
 * it, checked on the parsed result; links through the caller; nothing executable survives.
 */
import type { Root } from 'hast';
import { describe, expect, it } from 'vitest';
import { pageHtml } from '../../src/content/page-html.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';

const render = (markdown: string) => {
  const result = pageHtml(markdown, { resolveHref: (href) => (href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : undefined), variables: { space: { version: '2.0' }, page: { who: 'you' } } });
  return { ...result, tree: parseHtml(result.html, { fragment: true }) };
};
const classed = hasClass;

describe('pageHtml', () => {
  it('renders steppers, columns, content-refs, embeds, files and expressions', () => {
    const { tree } = render(
      [
        '{% stepper %}\n{% step %}\nOne\n{% endstep %}\n{% step %}\nTwo\n{% endstep %}\n{% endstepper %}',
        '{% columns %}\n{% column %}\nLeft\n{% endcolumn %}\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}',
        '{% content-ref url="setup.md" %}\n[setup.md](setup.md)\n{% endcontent-ref %}',
        '{% embed url="https://www.youtube.com/watch?v=1" %}',
        '{% file src="guide.pdf" %}',
        'Version {{ space.vars.version }} for {{ page.vars.who }}, {{ unknown }}.',
        '$$\nE = mc^2\n$$',
      ].join('\n\n'),
    );
    expect(all(tree, classed('step')).map(text)).toEqual(['One', 'Two']);
    expect(all(tree, classed('column')).map(text)).toEqual(['Left', 'Right']);
    expect(all(tree, classed('card'))[0].properties.href).toBe('/site/setup');
    expect(all(tree, classed('embed-link'))[0].properties.href).toBe('https://www.youtube.com/watch?v=1');
    const download = all(tree, classed('download'))[0].properties;
    expect(download.href).toBe('guide.pdf');
    expect(download.download).toBeDefined();
    expect(all(tree, (e) => e.tagName === 'p').map(text)).toContain('Version 2.0 for you, {{ unknown }}.');
    expect(text(all(tree, classed('math'))[0])).toBe('E = mc^2');
  });

  it('shows the first branch of an {% if %} whose condition the caller says holds: the block, an elif, else, or none', () => {
    const markdown = [
      'Before.',
      '{% if visitor.claims.a %}\nFirst.\n{% elif visitor.claims.b %}\nSecond.\n{% elsif visitor.claims.c %}\nThird.\n{% else %}\nOtherwise.\n{% endif %}',
      '{% if visitor.claims.a %}\n{% hint style="info" %}\nNested.\n{% endhint %}\n{% endif %}',
      'After.',
    ].join('\n\n');
    const shown = (holds: string[] | undefined) => {
      const { html } = pageHtml(markdown, { resolveHref: () => undefined, ...(holds ? { condition: (expression: string) => holds.some((claim) => expression === `visitor.claims.${claim}`) } : {}) });
      return all(parseHtml(html, { fragment: true }), (e) => e.tagName === 'p').map(text);
    };
    expect(shown(['a', 'b'])).toEqual(['Before.', 'First.', 'Nested.', 'After.']);
    expect(shown(['b'])).toEqual(['Before.', 'Second.', 'After.']);
    expect(shown(['c'])).toEqual(['Before.', 'Third.', 'After.']);
    expect(shown([])).toEqual(['Before.', 'Otherwise.', 'After.']);
    // No evaluator: no condition holds.
    expect(shown(undefined)).toEqual(['Before.', 'Otherwise.', 'After.']);
  });

  it('highlights code on the server, with line numbers and a title when the code tag asks, and leaves unknown languages as text', () => {
    const { tree } = render('{% code title="app.js" lineNumbers="true" %}\n```js\nconst a = 1;\nlet b = "<x>";\n```\n{% endcode %}\n\n```nosuchlang\n<b>bold?</b>\n```\n');
    const figure = all(tree, (e) => e.tagName === 'figure')[0];
    expect(text(all(figure, (e) => e.tagName === 'figcaption')[0])).toBe('app.js');
    expect(text(all(figure, classed('gutter'))[0])).toBe('1\n2\n');
    const code = all(figure, (e) => e.tagName === 'code')[0];
    expect(code.properties.className).toEqual(['hljs', 'language-js']);
    expect(all(code, classed('hljs-keyword')).map(text)).toEqual(['const', 'let']);
    expect(all(code, classed('hljs-string')).map(text)).toEqual(['"<x>"']);
    const plain = all(tree, (e) => e.tagName === 'code')[1];
    expect(plain.children).toEqual([expect.objectContaining({ type: 'text', value: '<b>bold?</b>\n' })]);
  });

  it('renders an include with the reusable content it names, and stops a reusable content that includes itself', () => {
    const parts: Record<string, string> = {
      '.gitbook/includes/footer.md': 'Made with **care**. See [setup](setup.md).\n',
      '.gitbook/includes/loop.md': 'Again:\n\n{% include ".gitbook/includes/loop.md" %}\n',
    };
    const { tree } = (() => {
      const result = pageHtml('{% include ".gitbook/includes/footer.md" %}\n\n{% include ".gitbook/includes/loop.md" %}\n\n{% include "missing.md" %}\n', {
        resolveHref: (href) => (href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : undefined),
        include: (path) => parts[path],
      });
      return { tree: parseHtml(result.html, { fragment: true }) as Root };
    })();
    const includes = all(tree, classed('include'));
    expect(text(includes[0]).trim()).toBe('Made with care. See setup.');
    expect(all(includes[0], (e) => e.tagName === 'a')[0].properties.href).toBe('/site/setup');
    // The loop: its own text three times, then the depth limit's note.
    expect(all(tree, (e) => e.tagName === 'p' && text(e) === 'Again:')).toHaveLength(3);
    expect(all(tree, (e) => e.tagName === 'p').map(text).filter((t) => t.startsWith('(included'))).toEqual(['(included content not found)', '(included content not found)']);
  });

  it('keeps unknown tags as text, HTML marks as elements, and heading anchors unique', () => {
    const { tree, outline } = render('{% mystery a="b" %}\nInside\n{% endmystery %}\n\nPress <kbd>K</kbd> and <mark style="color:red;">this</mark>.\n\n## Run\n\n## Run\n');
    expect(all(tree, (e) => e.tagName === 'p').map(text)).toEqual(['{% mystery a="b" %}', 'Inside', '{% endmystery %}', 'Press K and this.']);
    expect(all(tree, (e) => e.tagName === 'kbd').map(text)).toEqual(['K']);
    expect(outline).toEqual([
      { depth: 2, text: 'Run', id: 'run' },
      { depth: 2, text: 'Run', id: 'run-1' },
    ]);
  });

  it('drops scripts, event handlers, javascript: URLs, iframes and forms from the HTML a page carries', () => {
    const { tree, html } = render(
      '<script>alert(1)</script>\n\n<img src="x.png" onerror="alert(1)"> <a href="javascript:alert(1)">x</a> <iframe src="https://evil.test"></iframe>\n\n<form action="https://evil.test"><input name="q"></form>\n\n[y](javascript:alert(2)) <div style="position:fixed">over</div>\n',
    );
    expect(all(tree, (e) => ['script', 'iframe', 'form', 'style'].includes(e.tagName))).toEqual([]);
    expect(all(tree, (e) => Object.keys(e.properties ?? {}).some((key) => /^on/i.test(key) || key === 'style' && e.tagName !== 'mark'))).toEqual([]);
    expect(html).not.toContain('javascript:');
  });
});
