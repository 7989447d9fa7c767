/**
 * The one rule for a URL written in content (a SUMMARY.md link item, a markdown link or image, an `href` or `src` of
 * the HTML a page carries, a card's target, a `.gitbook.yaml` redirect) before it becomes an `href`, a `src` or a
 * `Location`: relative URLs, and the schemes of the list the place allows; nothing else (`javascript:`, `data:`,
 * `vbscript:`, ...). The live site's CSP would stop a script URL, but a static export has no CSP, and one rule for
 * both keeps them alike.
 *
 * The scheme is read as browsers read it (the WHATWG URL parser): leading and trailing C0 controls and spaces are
 * not part of the URL, tabs and newlines anywhere are removed, and the scheme is case-insensitive. So
 * ` JaVa\tScRiPt:x` is a `javascript:` URL. Character references (`&#106;avascript:`) are decoded by whoever parses
 * the HTML or markdown before this rule sees the URL; the URLs it allows are written escaped, so never decoded again.
 */

/** Where a link may lead: the web and e-mail. */
export const LINK_SCHEMES: readonly string[] = ['http', 'https', 'mailto'];

/** What a page may load (images, media), and where a redirect may send a reader: the web only. */
export const WEB_SCHEMES: readonly string[] = ['http', 'https'];

/** The scheme of `url` as a browser reads it, lower case; undefined for a relative URL (`page`, `/a`, `#x`, `//host`). */
export function urlScheme(url: string): string | undefined {
  const cleaned = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  return /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned)?.[1].toLowerCase();
}

/** Whether `url` is relative or has one of `schemes`. */
export function isAllowedUrl(url: string, schemes: readonly string[] = LINK_SCHEMES): boolean {
  const scheme = urlScheme(url);
  return scheme === undefined || schemes.includes(scheme);
}

/** `url` when the rule allows it, else undefined (the caller shows no link). */
export function allowedUrl(url: string, schemes: readonly string[] = LINK_SCHEMES): string | undefined {
  return isAllowedUrl(url, schemes) ? url : undefined;
}
