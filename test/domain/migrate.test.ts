/**
 * migrate() of src/domain/migrate on each database (the end-to-end suite, test/cli/migrate-e2e.test.ts, runs the
 * command between two processes on SQLite): the mapping table, progress reports, a run stopped after a space was
 * made (resumed without a second copy), and sources that answer but are not this API (nothing written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { migrate, MigrationFailure } from '../../src/domain/migrate/migrate.js';
import { createUser } from '../../src/domain/identity/users.js';

describe.each(DATABASE_KINDS)('migrate (%s)', (kind) => {
  let source: TestApp;
  let target: TestApp;
  let files: FileServer;
  let base: string;
  let token: string;
  let spaceId: string;

  beforeAll(async () => {
    source = await startTestApp('sqlite');
    target = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    files = await startFileServer({ '/v1/user': '<html>a website</html>', '/v1/orgs': '<html>a website</html>' });
    const org = await source.organization('Northwind');
    token = org.admin.token;
    base = await source.listen();
    spaceId = (await source.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Runbook' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(base, token, spaceId));
    await checkout.write('README.md', '# Runbook\n\nWhat to do when paged.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Runbook](README.md)\n');
    await checkout.commitAndPush('Runbook');
    await checkout.dispose();
    await source.request('POST', `/v1/spaces/${spaceId}/comments`, { token, body: { body: { markdown: 'Add the pager number' } } });
    await createUser(target.container.ctx, { email: org.admin.user.email, name: 'Admin here' });
  });
  afterAll(async () => {
    await files?.close();
    await source?.close();
    await target?.close();
  });

  const rows = (kindOf: string) => target.container.ctx.db.selectFrom('migrated').selectAll().where('kind', '=', kindOf).execute();

  it('copies, records each item in the mapping table, reports progress, and copies nothing again', async () => {
    const events: Array<{ step: string; done: number; total: number }> = [];
    const report = await migrate(target.container.ctx, { from: base, token }, (event) => events.push(event));
    expect(report).toEqual({ copied: { organizations: 1, spaces: 1, comments: 1 }, skipped: [] });
    expect(events).toContainEqual(expect.objectContaining({ step: 'spaces', done: 1, total: 1 }));
    const [space] = await rows('space');
    expect(space).toMatchObject({ source: base, source_id: spaceId, target_id: spaceId, fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await rows('comment')).toHaveLength(1);
    await target.container.ctx.jobs.idle();

    expect(await migrate(target.container.ctx, { from: `${base}/v1/`, token })).toEqual({ copied: {}, skipped: [] });
  });

  it('resumes a run stopped after a space was made: the same space is finished, not made twice', async () => {
    await target.container.ctx.db.updateTable('migrated').set({ fingerprint: null }).where('kind', '=', 'space').execute();
    const report = await migrate(target.container.ctx, { from: base, token });
    expect(report).toEqual({ copied: { spaces: 1 }, skipped: [] });
    const spaces = await target.container.ctx.db.selectFrom('spaces').select(['id', 'title']).where('title', '=', 'Runbook').execute();
    expect(spaces).toEqual([{ id: spaceId, title: 'Runbook' }]);
  });

  it('refuses a source that answers but is not this API, a bad --from and an --into it may not use, writing nothing', async () => {
    const before = { users: await target.container.ctx.db.selectFrom('users').select('id').execute(), migrated: await target.container.ctx.db.selectFrom('migrated').select('kind').execute() };
    await expect(migrate(target.container.ctx, { from: files.base, token })).rejects.toThrow(/not answer JSON/);
    await expect(migrate(target.container.ctx, { from: 'ftp://example.com', token })).rejects.toThrow(MigrationFailure);
    await expect(migrate(target.container.ctx, { from: 'not a url', token })).rejects.toThrow(/--from/);
    const other = await target.organization('Elsewhere');
    await expect(migrate(target.container.ctx, { from: base, token, into: other.id })).rejects.toThrow(/--into .*not a member/);
    await expect(migrate(target.container.ctx, { from: base, token, into: 'no_such_org' })).rejects.toThrow(/--into no_such_org/);
    const after = { users: await target.container.ctx.db.selectFrom('users').select('id').execute(), migrated: await target.container.ctx.db.selectFrom('migrated').select('kind').execute() };
    // The organization made above brought its admin; nothing else is new.
    expect(after.users.length).toBe(before.users.length + 1);
    expect(after.migrated).toEqual(before.migrated);
  });
});
