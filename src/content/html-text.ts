/**
 * The little HTML that GitBook-flavoured markdown carries in attributes and short fragments (`<summary>`,
 * `<figcaption>`, `<img alt>`, a button's `href`): decoding it to text and escaping text back. Not an HTML parser:
 * whole HTML goes through rehype (src/content/convert.ts).
 *
 * Everything here reads user text in one pass (no regular expression that can backtrack): a fragment of 200 KB of
 * `<` took a minute through `/<[^>]*>/g`.
 */

/**
 * The character of a numeric character reference: U+FFFD for 0, a surrogate or a number past U+10FFFF, as
 * CommonMark (and HTML) read them; String.fromCodePoint throws on those.
 */
export function referencedCharacter(point: number): string {
  return Number.isInteger(point) && point > 0 && point <= 0x10ffff && (point < 0xd800 || point > 0xdfff) ? String.fromCodePoint(point) : '\ufffd';
}

/**
 * Character references decoded: numeric ones (`&#x26;`, `&#38;`: 1-6 hex or 1-7 decimal digits, CommonMark's
 * syntax; one that names no character is U+FFFD) and `&quot; &lt; &gt; &amp; &apos;`.
 */
export function decodeEntities(value: string): string {
  return value
    .replace(/&#[xX]([0-9a-fA-F]{1,6});/g, (_, hex: string) => referencedCharacter(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]{1,7});/g, (_, decimal: string) => referencedCharacter(Number(decimal)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The tags of `html` in order, as the places of their `<` and `>`: each `<` up to the next `>`; a `<` that no `>`
 * follows ends the tags (no `>` follows any later one either). One pass.
 */
function* tagSpans(html: string): Generator<{ open: number; close: number }> {
  let from = 0;
  for (;;) {
    const open = html.indexOf('<', from);
    if (open < 0) return;
    const close = html.indexOf('>', open + 1);
    if (close < 0) return;
    yield { open, close };
    from = close + 1;
  }
}

/** `html` without its tags (tagSpans): a `<` that no `>` follows stays, as text. */
export function withoutTags(html: string): string {
  let out = '';
  let from = 0;
  for (const { open, close } of tagSpans(html)) {
    out += html.slice(from, open);
    from = close + 1;
  }
  return out + html.slice(from);
}

/** The text of an HTML fragment: tags dropped, references decoded, trimmed. */
export function htmlText(html: string): string {
  return decodeEntities(withoutTags(html)).trim();
}

/**
 * The `name="value"` (or `name='value'`) attributes written in `text` (names lower-cased, values decoded; the first
 * of a name wins), as the platform writes them in a tag it generates (`<img src="..." alt="..." width="375">`).
 * Reading stops at a value whose quote never closes; unquoted values are not read.
 */
export function htmlAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const isNameChar = (code: number) => code === 0x2d || (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
  let i = 0;
  while (i < text.length) {
    if (!isNameChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isNameChar(text.charCodeAt(i))) i++;
    const quote = text[i + 1];
    if (text[i] !== '=' || (quote !== '"' && quote !== "'")) continue;
    const end = text.indexOf(quote, i + 2);
    if (end < 0) break;
    const name = text.slice(start, i).toLowerCase();
    if (!(name in attributes)) attributes[name] = decodeEntities(text.slice(i + 2, end));
    i = end + 1;
  }
  return attributes;
}

/** The attributes of HTML tags that hold a URL a reader follows or loads, by tag: links, images, picture sources. */
export const HTML_URL_ATTRIBUTES: ReadonlyMap<string, readonly string[]> = new Map([
  ['a', ['href']],
  ['img', ['src', 'srcset']],
  ['source', ['src', 'srcset']],
]);

/** A srcset candidate's descriptor: a width (`640w`) or a pixel density (`2x`, `1.5x`). */
const DESCRIPTOR = /^\d+(?:\.\d+)?[wx]$/;

/**
 * A srcset candidate (`a.png 2x`) as its URL and descriptor. What follows the URL's last space is its descriptor
 * only when it reads as one: `dark mode.png` (Git Sync writes file names with spaces) is one URL.
 */
export function srcsetCandidate(candidate: string): { url: string; descriptor?: string } {
  const trimmed = candidate.trim();
  const space = Math.max(trimmed.lastIndexOf(' '), trimmed.lastIndexOf('\t'), trimmed.lastIndexOf('\n'));
  const descriptor = space < 0 ? undefined : trimmed.slice(space + 1);
  return descriptor !== undefined && DESCRIPTOR.test(descriptor) ? { url: trimmed.slice(0, space).trim(), descriptor } : { url: trimmed };
}

/** The candidates of a `srcset` property as hast holds it (a list, or one comma-separated string), trimmed, none empty. */
export function srcsetCandidates(value: unknown): string[] {
  return (Array.isArray(value) ? value.map(String) : String(value).split(','))
    .map((candidate) => candidate.trim())
    .filter((candidate) => candidate !== '');
}

/** The URLs of a `srcset` (`a.png 1x, b.png 2x`): each candidate's URL, without its descriptor. */
export function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(',')
    .map((candidate) => srcsetCandidate(candidate).url)
    .filter((url) => url !== '');
}

/**
 * The URLs written in an HTML fragment's links, images and picture sources (HTML_URL_ATTRIBUTES), in order: what
 * GitBook writes for every uploaded image (`<figure><img src=".gitbook/assets/x.png">`), tables of links and cards.
 * One pass; a `>` inside a quoted value ends the tag early (what is after it is read as text).
 */
export function htmlUrls(html: string): string[] {
  const urls: string[] = [];
  for (const { open, close } of tagSpans(html)) {
    let nameEnd = open + 1;
    while (nameEnd < close && /[a-zA-Z]/.test(html[nameEnd])) nameEnd++;
    const wanted = HTML_URL_ATTRIBUTES.get(html.slice(open + 1, nameEnd).toLowerCase());
    if (!wanted || nameEnd === open + 1) continue;
    const attributes = htmlAttributes(html.slice(nameEnd, close));
    for (const name of wanted) {
      const value = attributes[name];
      if (value !== undefined) urls.push(...(name === 'srcset' ? srcsetUrls(value) : [value]));
    }
  }
  return urls;
}

/** Text made safe inside HTML, as element content or as a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
