/**
 * A short name for the browser or program of a User-Agent header ("Firefox 132 on Windows"), for the list of a
 * person's sessions: whole headers are 100 to 200 characters of history (every browser claims to be Mozilla, Chrome
 * claims Safari) that fill a phone's screen. Only names people recognise; the header itself is the row's title.
 *
 * Written here rather than taken from a parsing library: the label needs a dozen names, not a device database shipped
 * to every browser that opens the app.
 */

/** Browsers in the order their tokens must be tried: each claims the tokens of those after it. */
const BROWSERS: Array<[name: string, token: RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)(?:\.\d+)*(?: Mobile\/\w+)? Safari\//],
];

const SYSTEMS: Array<[name: string, token: RegExp]> = [
  ['iPhone', /\biPhone\b/],
  ['iPad', /\biPad\b/],
  ['Android', /\bAndroid\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b/],
  ['Linux', /\bLinux\b/],
];

/** The longest label of a program that is no browser (its own first token, cut). */
const MAX_PROGRAM = 40;

export function browserLabel(userAgent: string | undefined): string {
  const header = userAgent?.trim();
  if (!header) return 'Unknown browser';
  const system = SYSTEMS.find(([, token]) => token.test(header))?.[0];
  for (const [name, token] of BROWSERS) {
    const version = token.exec(header)?.[1];
    if (version !== undefined) return system ? `${name} ${version} on ${system}` : `${name} ${version}`;
  }
  // A program (curl/8.5.0, git/2.39, a script): its name and version, as it gives them first.
  const first = header.split(/\s/, 1)[0].replace('/', ' ');
  return first.length > MAX_PROGRAM ? `${first.slice(0, MAX_PROGRAM)}…` : first;
}
