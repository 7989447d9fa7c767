/**
 * Migration 0027 makes saml_requests and saml_used_assertions (src/store/sql/saml.ts): a sent AuthnRequest is taken
 * once and only before it expires, an assertion is recorded as used once, expired rows go when new ones come, and
 * both are gone with their provider. The down migration removes the tables. On a real database of each kind,
 * migrated to 0026 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from '../../src/store/sql/kysely.js';
import { findSamlRequest, insertSamlProvider, insertSamlRequest, recordUsedSamlAssertion, takeSamlRequest } from '../../src/store/sql/saml.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0027, SAML sign-in (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('up: requests taken once before they expire, assertions used once, rows gone with their provider; down removes the tables', async () => {
    const { db, migrator } = await databaseAt(kind, '0026_merge_rules', cleanups);
    await expect(sql`select count(*) from saml_requests`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0027_saml_sign_in')).error).toBeUndefined();
    const at = '2026-01-01T00:00:00.000Z';
    await insertSamlProvider(db, {
      id: 'p1', organization_id: 'org1', label: 'IdP', entity_id: null, sso_url: null, certificate: null, default_team_id: null, default_role: null,
      created_at: at, updated_at: at,
    });

    await insertSamlRequest(db, { id: '_r1', provider_id: 'p1', next: '/app/x', created_at: at, expires_at: '2026-01-01T00:10:00.000Z' });
    expect(await findSamlRequest(db, 'p1', '_r1', '2026-01-01T00:10:00.000Z')).toBeUndefined();
    expect(await takeSamlRequest(db, 'p2', '_r1', at)).toBeUndefined();
    expect((await takeSamlRequest(db, 'p1', '_r1', at))?.next).toBe('/app/x');
    expect(await takeSamlRequest(db, 'p1', '_r1', at)).toBeUndefined();
    // A later request removes the expired ones.
    await insertSamlRequest(db, { id: '_r2', provider_id: 'p1', next: '/app/', created_at: at, expires_at: '2026-01-01T00:10:00.000Z' });
    await insertSamlRequest(db, { id: '_r3', provider_id: 'p1', next: '/app/', created_at: '2026-01-01T00:20:00.000Z', expires_at: '2026-01-01T00:30:00.000Z' });
    expect((await db.selectFrom('saml_requests').select('id').execute()).map((r) => r.id)).toEqual(['_r3']);
    await expect(insertSamlRequest(db, { id: '_r4', provider_id: 'nope', next: '/app/', created_at: at, expires_at: at })).rejects.toThrow();

    const used = { provider_id: 'p1', assertion_id: '_a1', expires_at: '2026-01-01T00:05:00.000Z' };
    expect(await recordUsedSamlAssertion(db, used, at)).toBe(true);
    expect(await recordUsedSamlAssertion(db, used, at)).toBe(false);
    // Once expired (and refused as such), its id may be recorded again.
    expect(await recordUsedSamlAssertion(db, used, '2026-01-01T00:05:00.000Z')).toBe(true);

    await db.deleteFrom('saml_providers').where('id', '=', 'p1').execute();
    expect(await db.selectFrom('saml_requests').selectAll().execute()).toEqual([]);
    expect(await db.selectFrom('saml_used_assertions').selectAll().execute()).toEqual([]);

    expect((await migrator.migrateTo('0026_merge_rules')).error).toBeUndefined();
    await expect(sql`select count(*) from saml_requests`.execute(db)).rejects.toThrow();
    await expect(sql`select count(*) from saml_used_assertions`.execute(db)).rejects.toThrow();
  });
});
