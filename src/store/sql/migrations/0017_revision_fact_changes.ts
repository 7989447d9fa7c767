import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

const commitKey = ['space_id', 'commit_oid'] as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A commit's history facts may be stored as the change from another commit's (`base_oid`; `depth` changes from a
  // whole copy): a push into a 10,000-page space stored 1.6 MB of facts for one changed page. SQLite adds a
  // table's foreign key only with the table, so the table is made anew under another name and its rows copied.
  await db.schema
    .createTable('revision_fact_rows')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('base_oid', text)
    .addColumn('depth', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('facts', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('revision_fact_rows_pk', [...commitKey])
    // A change needs its base: it is refused without it, and goes when its base goes (the rows are a cache).
    .addForeignKeyConstraint('revision_fact_rows_base_fk', ['space_id', 'base_oid'], 'revision_fact_rows', [...commitKey], (c) => c.onDelete('cascade'))
    .execute();
  // The changes of a base, found when it goes: without it, every row deleted (a space's, all at once) scans the table.
  await db.schema.createIndex('revision_facts_base').on('revision_fact_rows').columns(['space_id', 'base_oid']).execute();
  await sql`insert into revision_fact_rows (space_id, commit_oid, facts) select space_id, commit_oid, facts from revision_facts`.execute(db);
  await db.schema.dropTable('revision_facts').execute();
  await db.schema.alterTable('revision_fact_rows').renameTo('revision_facts').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Change rows cannot be kept without their base: they are left out (the facts are computed again when read).
  await db.schema
    .createTable('revision_facts_whole')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('facts', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('revision_facts_whole_pk', [...commitKey])
    .execute();
  await sql`insert into revision_facts_whole (space_id, commit_oid, facts) select space_id, commit_oid, facts from revision_facts where base_oid is null`.execute(db);
  await db.schema.dropTable('revision_facts').execute();
  await db.schema.alterTable('revision_facts_whole').renameTo('revision_facts').execute();
}
