/**
 * Long lists of values go into statements in parts: each value is a parameter, and statements take a bounded number
 * of them (SQLite 32,766, PostgreSQL 65,535), with rows of several columns each.
 */
const CHUNK = 500;

/** `items` in parts of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
