/**
 * `quire git-sync status [SPACE_ID]` on the store a server uses: a line per connection (status, repository, branch,
 * when last in step, the error), one space's alone, the API's objects with --json, no secret printed, and an unknown
 * space refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveGitSyncConnection } from '../../src/store/sql/git-sync.js';
import { sealContext } from '../../src/domain/git-sync/credentials.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runQuire } from '../helpers/cli.js';

const TOKEN = 'glpat-status-secret-0123';

describe('quire git-sync status', () => {
  let t: TestApp;
  const spaces: string[] = [];
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    for (const title of ['Synced', 'Failing']) spaces.push((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id);
    const { ctx } = t.container;
    const base = {
      ref: 'refs/heads/main', first_sync: 'import', auth_kind: 'token', auth_username: 'docs-bot', webhook_secret: null, host_key: null, remote_commit: null, local_commit: null,
      change_request_id: null, connected_by: org.admin.user.id, notice: null, branch_pattern: null, created_at: '2026-11-01T00:00:00.000Z', updated_at: '2026-11-02T00:00:00.000Z',
    };
    await saveGitSyncConnection(ctx.db, {
      ...base, space_id: spaces[0], url: 'https://git.example.com/docs/handbook.git', project_directory: 'docs/', status: 'synced', error: null,
      auth_secret: ctx.secrets.seal(TOKEN, sealContext(spaces[0], 'auth')), last_synced_at: '2026-11-02T00:00:00.000Z',
    });
    await saveGitSyncConnection(ctx.db, {
      ...base, space_id: spaces[1], url: 'https://git.example.com/docs/api.git', project_directory: '', status: 'error', error: 'the host refused the credentials',
      auth_secret: ctx.secrets.seal(TOKEN, sealContext(spaces[1], 'auth')), last_synced_at: null, created_at: '2026-11-03T00:00:00.000Z',
    });
  });
  afterAll(async () => t?.close());
  const quire = (...args: string[]) => runQuire(['git-sync', 'status', ...args], { QUIRE_DATA_DIR: t.config.dataDir, DATABASE_URL: '', REDIS_URL: undefined });

  it('prints a line per connection, oldest first, and one space\'s alone', async () => {
    const all = await quire();
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n')).toEqual([
      `${spaces[0]}  synced  https://git.example.com/docs/handbook.git main (docs/)  last in step 2026-11-02T00:00:00.000Z`,
      `${spaces[1]}  error  https://git.example.com/docs/api.git main  never in step  the host refused the credentials`,
    ]);
    const one = await quire(spaces[1]);
    expect(one.stdout.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^${spaces[1]}  error`))]);
    expect(all.stdout + all.stderr).not.toContain(TOKEN);
  });

  it('answers the API\'s gitSync objects with --json, and refuses a space without a connection', async () => {
    const json = await quire('--json');
    expect(JSON.parse(json.stdout)).toEqual([
      { spaceId: spaces[0], gitSync: expect.objectContaining({ repoName: 'docs/handbook', integration: 'quire', status: 'synced', projectDirectory: 'docs/' }) },
      { spaceId: spaces[1], gitSync: expect.objectContaining({ repoName: 'docs/api', status: 'error', error: 'the host refused the credentials' }) },
    ]);
    expect(json.stdout).not.toContain(TOKEN);
    const unknown = await quire('no-such-space');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('space "no-such-space" is not connected to a git repository');
  });
});
