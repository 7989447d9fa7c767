import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // `agents_context` was stored but read by nothing: every published site served its markdown pages, llms.txt and MCP
  // server, whatever the column said ('excluded', the old default, for nearly all). Now it decides what a site serves
  // to agents, so each site starts out serving what it served before the upgrade; `excluded` is a choice made after it.
  await db.updateTable('sites').set({ agents_context: 'included' }).where('agents_context', '=', 'excluded').execute();
}

export async function down(): Promise<void> {
  // Which sites said 'excluded' before is not kept; 'included' is what they all served then.
}
