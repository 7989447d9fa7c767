/**
 * JSON text with parts written elsewhere put in: `value` holds the string `"<prefix>:<n>"` where part n (JSON text
 * itself, such as a document a CPU pool thread converted) goes. A prefix nobody can write (a random UUID) keeps
 * markers and content apart.
 */
export function jsonWithParts(value: unknown, prefix: string, parts: readonly string[]): string {
  const text = JSON.stringify(value);
  return parts.length === 0 ? text : text.replace(new RegExp(`"${prefix}:(\\d+)"`, 'g'), (_, index: string) => parts[Number(index)]);
}
