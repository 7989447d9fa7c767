/**
 * URLs as logs may keep them: without the secrets they carry. Imports nothing, so that the thread writing access
 * lines (src/access-log-thread-entry.ts) loads it alone.
 */

/**
 * Query parameters whose value is a secret: share keys, visitor tokens, API and OAuth tokens, passwords, signatures
 * (signed URLs). By name, any case; also any name ending in `_token`, `-token`, `_key`, `_secret`, `_signature`...
 */
const SECRET_PARAMETER = /^(?:share|sharekey|jwt|jwt_token|token|access_token|id_token|refresh_token|auth|authorization|key|apikey|password|passwd|secret|signature|sig|code|credential)$|[_-](?:token|key|secret|password|signature|credential)$/i;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * `url` (a request's path and query, or a whole URL) as logs may keep it: the values of secret query parameters and
 * the credentials of a `user:password@` part replaced by `[redacted]`, the rest as written. Every URL a log line
 * holds goes through here (the access lines' `req.url` by the logger's request serializer).
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const question = beforeHash.indexOf('?');
  let head = question < 0 ? beforeHash : beforeHash.slice(0, question);
  // Every access line's URL comes here: the expression runs only on what it may change.
  if (head.includes('@')) head = head.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/?#]*@/, '$1[redacted]@');
  if (question < 0) return head + (hash < 0 ? '' : url.slice(hash));
  const query = beforeHash
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return equals >= 0 && SECRET_PARAMETER.test(decodedName(name)) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${head}?${query}${hash < 0 ? '' : url.slice(hash)}`;
}
