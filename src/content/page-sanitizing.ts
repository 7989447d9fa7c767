/**
 * What a page's HTML keeps once rendered: hast-util-sanitize with GitHub's schema, plus the classes, ids, form
 * controls and MathML the page's blocks write; then the rules the sanitizer's own checks leave to the page: URLs as
 * browsers read them (src/content/url-scheme.ts), and a mark's style reduced to colours. No script, event handler or
 * `javascript:` URL from a page ever reaches a reader.
 */
import type { Element, Root as HastRoot } from 'hast';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import { srcsetCandidates, srcsetUrls } from './html-text.js';
import { isAllowedUrl, LINK_SCHEMES, WEB_SCHEMES } from './url-scheme.js';

/** The MathML elements KaTeX writes (`output: 'mathml'`). */
const MATHML_TAGS = [
  'math', 'semantics', 'annotation', 'mrow', 'mi', 'mo', 'mn', 'ms', 'mtext', 'mspace', 'msup', 'msub', 'msubsup', 'mfrac', 'msqrt', 'mroot',
  'mtable', 'mtr', 'mtd', 'mover', 'munder', 'munderover', 'mpadded', 'mphantom', 'mstyle', 'menclose',
];

/**
 * The attributes KaTeX's MathML carries: layout and presentation only. None takes a URL or script (`\href` and
 * `\url` are not trusted, so KaTeX writes them as red text), and `style` is left out: colours come as `mathcolor`.
 */
const MATHML_ATTRIBUTES = [
  'display', 'mathvariant', 'stretchy', 'fence', 'separator', 'lspace', 'rspace', 'minsize', 'maxsize', 'largeop', 'movablelimits', 'symmetric',
  'accent', 'accentunder', 'columnalign', 'rowalign', 'rowspacing', 'columnspacing', 'rowlines', 'columnlines', 'frame', 'framespacing',
  'equalrows', 'equalcolumns', 'side', 'width', 'height', 'depth', 'voffset', 'linethickness', 'scriptlevel', 'displaystyle', 'notation',
  'mathcolor', 'mathbackground', 'encoding',
];

/** What sanitizing keeps: GitHub's rules, plus the classes, ids and form controls the blocks above write. */
const SCHEMA: Schema = {
  ...defaultSchema,
  // Anchors stay as written: a reader shares `#install`, not `#user-content-install`.
  clobberPrefix: '',
  clobber: [],
  // GitHub's rule disables every input; the tabs' radios must switch (task list boxes come disabled already).
  required: {},
  // URLs are checked after sanitizing, by the URL rule of all content (enforceUrlAndStyleRules): it reads a scheme
  // as browsers do (the sanitizer's own check refuses `HTTPS:` and nothing more).
  protocols: {},
  tagNames: [...(defaultSchema.tagNames ?? []), 'figure', 'figcaption', 'mark', 'kbd', 'details', 'summary', 'input', 'label', 'nav', ...MATHML_TAGS],
  attributes: {
    ...Object.fromEntries(
      // GitHub's schema allows a few fixed classes on some elements, which would hide the '*' rule below for them.
      Object.entries(defaultSchema.attributes ?? {}).map(([tag, rules]) => [tag, rules.filter((rule) => !(Array.isArray(rule) && rule[0] === 'className'))]),
    ),
    '*': [...(defaultSchema.attributes?.['*'] ?? []), 'className', 'id', 'role', 'ariaHidden'],
    input: [['type', 'radio', 'checkbox'], 'name', 'id', 'checked', 'disabled', ['className', 'tab-switch']],
    label: ['htmlFor', 'className'],
    a: [...(defaultSchema.attributes?.a ?? []).filter((rule) => !(Array.isArray(rule) && rule[0] === 'className')), 'download', ['rel', 'nofollow']],
    // Colours only (cleanMarkStyle below): GitBook writes `<mark style="color:...;background-color:...">`.
    mark: ['style'],
    ...Object.fromEntries(MATHML_TAGS.map((tag) => [tag, MATHML_ATTRIBUTES])),
    math: [...MATHML_ATTRIBUTES, ['xmlns', 'http://www.w3.org/1998/Math/MathML']],
  },
};

/** The properties the sanitizer keeps that hold a URL (all of them), with the schemes each may have. */
const URL_PROPERTIES: Record<string, readonly string[]> = { href: LINK_SCHEMES, src: WEB_SCHEMES, cite: WEB_SCHEMES, longDesc: WEB_SCHEMES };

/** A colour (`red`, `#ff000080`, `rgb(255 0 0 / 50%)`, `hsl(...)`): nothing that loads, moves or covers anything. */
const COLOR = /^(?:[a-z]{3,20}|#[0-9a-f]{3,8}|(?:rgb|rgba|hsl|hsla)\([0-9.,%\s/a-z-]{1,60}\))$/i;
const MARK_PROPERTIES = new Set(['color', 'background-color']);

/** A `<mark>`'s style with only its colour declarations (`position:fixed` would let a page cover the site). */
function cleanMarkStyle(style: string): string | undefined {
  const kept = style
    .split(';')
    .map((declaration) => {
      const colon = declaration.indexOf(':');
      const property = declaration.slice(0, colon).trim().toLowerCase();
      const value = declaration.slice(colon + 1).trim();
      return colon > 0 && MARK_PROPERTIES.has(property) && COLOR.test(value) ? `${property}:${value}` : undefined;
    })
    .filter((declaration) => declaration !== undefined);
  return kept.length > 0 ? `${kept.join(';')};` : undefined;
}

/**
 * What the sanitizer's own checks leave to the page's rules: URLs as browsers read them (case, control characters:
 * the URL rule), and a mark's style reduced to colours.
 */
function enforceUrlAndStyleRules(node: HastRoot | Element): void {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    const properties = child.properties;
    for (const [name, schemes] of Object.entries(URL_PROPERTIES)) {
      const value = properties[name];
      if (value !== undefined && value !== null && !isAllowedUrl(String(value), schemes)) delete properties[name];
    }
    const srcSet = properties.srcSet;
    if (srcSet !== undefined && srcSet !== null && !srcsetCandidates(srcSet).every((candidate) => srcsetUrls(candidate).every((url) => isAllowedUrl(url, WEB_SCHEMES)))) delete properties.srcSet;
    if (child.tagName === 'mark' && properties.style !== undefined) {
      const style = cleanMarkStyle(String(properties.style));
      if (style === undefined) delete properties.style;
      else properties.style = style;
    }
    enforceUrlAndStyleRules(child);
  }
}

/** The rendered page's tree, sanitized and held to the rules above. */
export function sanitizePage(tree: HastRoot): HastRoot {
  const clean = sanitize(tree, SCHEMA) as HastRoot;
  enforceUrlAndStyleRules(clean);
  return clean;
}
