/**
 * HTML as the tests read it: parsed with rehype-parse (as a browser would), then queried by elements and
 * attributes, so that assertions are about structure, not strings.
 */
import type { Element, Root } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';

const documentParser = unified().use(rehypeParse);
const fragmentParser = unified().use(rehypeParse, { fragment: true });

/** A whole page (`fragment`: a piece of HTML, as a page's content). */
export function parseHtml(html: string, options: { fragment?: boolean } = {}): Root {
  return (options.fragment ? fragmentParser : documentParser).parse(html) as Root;
}

/** Every element under `node` (depth first) that passes `test`. */
export function all(node: Root | Element, test: (element: Element) => boolean, out: Element[] = []): Element[] {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (test(child)) out.push(child);
    all(child, test, out);
  }
  return out;
}

/** The text of an element, as written (no whitespace collapsed). */
export const text = (node: Element | Root): string => node.children.map((c) => (c.type === 'text' ? c.value : c.type === 'element' ? text(c) : '')).join('');

/** Whether an element has the class `name`. */
export const hasClass = (name: string) => (element: Element) => ((element.properties?.className as string[] | undefined) ?? []).includes(name);
