import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Slots whose rows belong to no indexed revision: a big revision's rows being written in parts before it is
  // claimed, or a pruned revision's rows being removed in parts (src/store/sql/links.ts). One short transaction
  // per part keeps SQLite's one connection free for other requests; this list is what finds the rows again when a
  // process stops half-way.
  await db.schema
    .createTable('link_slots_unindexed')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('slot', text, (c) => c.notNull())
    // When the write began; '' for rows being removed (they may go at once).
    .addColumn('since', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_slots_unindexed_pk', ['space_id', 'slot'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('link_slots_unindexed').execute();
}
