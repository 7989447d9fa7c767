/**
 * How deep a JSON text nests, read before JSON.parse walks it: a 1 MB body of a few hundred thousand `[` holds the
 * event loop for a long time per request through the parser and what reads the value after it, and nothing the API
 * takes nests deeper than a few dozen levels (a JSONDocument's blocks, lists in lists). One pass, no allocation.
 */

/** Arrays and objects a request body may nest (a document's nested lists take a few dozen). */
export const MAX_JSON_DEPTH = 256;

/** Whether `text` opens more than `max` arrays and objects inside one another (strings skipped, escapes read). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // A string: up to its closing quote, a backslash taking the character after it.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}
