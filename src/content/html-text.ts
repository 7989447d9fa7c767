/**
 * The little HTML that GitBook-flavoured markdown carries in attributes and short fragments (`<summary>`,
 * `<figcaption>`, `<img alt>`, a button's `href`): decoding it to text and escaping text back. Not an HTML parser:
 * whole HTML goes through rehype (src/content/convert.ts).
 */

const codePoint = (whole: string, point: number) => (Number.isInteger(point) && point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole);

/** Character references decoded: numeric ones (`&#x26;`, `&#38;`; one that names no character stays) and `&quot; &lt; &gt; &amp;`. */
export function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]{1,8});/gi, (whole, hex: string) => codePoint(whole, Number.parseInt(hex, 16)))
    .replace(/&#([0-9]{1,9});/g, (whole, decimal: string) => codePoint(whole, Number(decimal)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The text of an HTML fragment: tags dropped, references decoded, trimmed. */
export function htmlText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, '')).trim();
}

/** Text made safe inside HTML, as element content or as a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
