import type { Expression, SqlBool } from 'kysely';
import { sql } from './kysely.js';

/** Case-insensitive "contains" that treats `%`, `_` and `\` in the needle literally, in SQLite and PostgreSQL. */
export function containsInsensitive(column: string, needle: string): Expression<SqlBool> {
  const pattern = `%${needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
