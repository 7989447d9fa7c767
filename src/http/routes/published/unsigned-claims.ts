/**
 * Unsigned visitor claims (a Quire reading of GitBook's `?visitor.NAME=value`): the values a reader puts in a
 * published page's query to see its adaptive content as such a visitor would, remembered in a cookie of the site.
 * Anyone can write them, so they are bounded: a few short values in a flat object.
 */

/** Unsigned claims: `?visitor.NAME=value`, at most this many, each value at most this long (they ride in a cookie). */
const MAX_UNSIGNED_CLAIMS = 20;
const MAX_UNSIGNED_VALUE = 256;
const CLAIM_PARAMETER = /^visitor\.([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * The unsigned claims of the query (`visitor.NAME=value`, as GitBook takes them), or undefined when it names none.
 * `true` and `false` are booleans (the adaptive schema's claims are), anything else a string.
 */
export function unsignedClaimsOf(query: Record<string, unknown>): Record<string, unknown> | undefined {
  const claims: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const claim = CLAIM_PARAMETER.exec(name)?.[1];
    if (!claim || typeof value !== 'string' || value.length > MAX_UNSIGNED_VALUE || Object.keys(claims).length >= MAX_UNSIGNED_CLAIMS) continue;
    claims[claim] = value === 'true' ? true : value === 'false' ? false : value;
  }
  return Object.keys(claims).length > 0 ? claims : undefined;
}

/** The unsigned claims a cookie remembers (anything but a flat object of booleans and strings is ignored). */
export function unsignedClaimsOfCookie(value: string | undefined): Record<string, unknown> | undefined {
  if (!value) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed).filter(([name, claim]) => CLAIM_PARAMETER.test(`visitor.${name}`) && (typeof claim === 'boolean' || typeof claim === 'string'));
    return entries.length > 0 ? Object.fromEntries(entries.slice(0, MAX_UNSIGNED_CLAIMS)) : undefined;
  } catch {
    return undefined;
  }
}
