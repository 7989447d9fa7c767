/**
 * Migration 0020: before it, a site's agents_context was stored but read by nothing, so every published site served
 * its markdown pages, llms.txt and MCP server. The migration keeps that: every site says `included` after it. On a
 * real database of each kind, migrated to 0019 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from '../../src/store/sql/kysely.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0020, sites serve agents as before (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('up: every site serves agents, as every site did; down leaves them so', async () => {
    const { db, migrator } = await databaseAt(kind, '0019_site_page_feedback', cleanups);
    const any = db as unknown as Kysely<any>;
    const now = new Date().toISOString();
    const site = (id: string, agents_context: string) => ({
      id, organization_id: 'org1', type: 'basic', title: 'Docs', visibility: 'public', basename: null, proxy: null, agents_context,
      adaptive_content: 0, adaptive_schema: null, adaptive_schema_updated_at: null, created_at: now, updated_at: now,
    });
    await any.insertInto('sites').values([site('site1', 'excluded'), site('site2', 'included')]).execute();

    expect((await migrator.migrateTo('0020_sites_serve_agents')).error).toBeUndefined();
    const contexts = () => any.selectFrom('sites').select(['id', 'agents_context']).orderBy('id').execute();
    expect(await contexts()).toEqual([
      { id: 'site1', agents_context: 'included' },
      { id: 'site2', agents_context: 'included' },
    ]);

    expect((await migrator.migrateTo('0019_site_page_feedback')).error).toBeUndefined();
    expect(await contexts()).toEqual([
      { id: 'site1', agents_context: 'included' },
      { id: 'site2', agents_context: 'included' },
    ]);
  });
});
