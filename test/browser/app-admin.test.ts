/**
 * An organization's admin at work in the app, in a real headless Chromium against a real git host on loopback: an
 * invite link made in the app and used by a newcomer after signing in, who then shows up among the members; their
 * role changed, a team made with them in it, an invite link revoked, a member removed and a team deleted after
 * confirming; a space's title, visibility and default level changed, its Git Sync shown (no credentials) and run; a
 * SAML provider made through the form with this server's values to give the identity provider, then edited; an
 * OpenID Connect provider whose secret is never shown. A member who is no admin sees no management control and the API refuses them. Every
 * view is checked by axe-core in light and dark and screenshot (light, dark, phone) in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_POSTGRES } from '../helpers/databases.js';
import type { TestApp, TestUser } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { HOST_TOKEN, startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';
import { IDP_CERTIFICATE } from '../helpers/saml.js';
import { waitFor } from '../helpers/wait.js';

describe.each(WALK_ON_POSTGRES)('the app\'s settings for admins in Chromium (%s)', (kind) => {
  let scene: GitSyncScene;
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let org: GitSyncScene['org'];
  let editor: TestUser;
  let spaceId: string;
  let teamId: string;
  let samlId: string;

  const member = (userId: string) => t.request('GET', `/v1/orgs/${org.id}/members/${userId}`, { token: org.admin.token, unchecked: true });

  beforeAll(async () => {
    scene = await startGitSyncScene(kind);
    t = scene.t;
    server = scene.api;
    org = scene.org;
    web = new AppBrowser(await launchBrowser(), server, t);
    editor = await t.member(org.id, 'edit');
    await web.withPassword(org.admin);
    await web.withPassword(editor);
    // A space synced with a repository on the git host: its settings show the connection.
    const user = await scene.hostRepository('handbook', ['install']);
    await user.dispose();
    spaceId = await scene.newSpace('Handbook');
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/handbook.git`, firstSync: 'import' })).status).toBe(200);
    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced' });
  });

  afterAll(async () => {
    await web?.close();
    await scene?.close();
  });

  it('invites a newcomer by a link who joins after signing in; changes their role and puts them in a new team', { timeout: 120_000 }, async () => {
    const admin = await web.signedIn(org.admin, `/o/${org.id}`);
    await admin.getByRole('link', { name: 'Members and settings' }).click();
    await admin.getByRole('heading', { name: 'Members', level: 2 }).waitFor();
    await admin.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Invite links' }).click();
    await admin.getByLabel('Role of who joins').selectOption('comment');
    await admin.getByRole('button', { name: 'Make an invite link' }).click();
    const link = await admin.getByLabel(/^Link for comment/).inputValue();
    expect(link).toMatch(/\/app\/invite\//);

    const newcomer = await t.user(undefined, 'Noor Newcomer');
    await web.withPassword(newcomer);
    const joining = await web.newPage();
    await joining.goto(link.replace('http://quire.test', server));
    await joining.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(joining, newcomer);
    await joining.getByText('This link makes you a member with the role "comment".').waitFor();
    await joining.getByRole('button', { name: 'Join' }).click();
    await joining.getByRole('heading', { level: 1, name: 'Acme Docs' }).waitFor();
    // A member who is no admin is offered the members and teams, not the settings.
    await joining.getByRole('link', { name: 'Members and teams' }).waitFor();

    // The newcomer among the members, found by searching; their role changed from the list.
    await admin.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Members' }).click();
    await admin.getByRole('searchbox', { name: 'Search members' }).fill('Noor');
    await waitFor(() => admin.locator('tbody tr').count(), { what: 'the newcomer alone in the list', until: (rows) => rows === 1 });
    const role = admin.getByLabel('Role of Noor Newcomer');
    expect(await role.inputValue()).toBe('comment');
    await role.selectOption('review');
    await waitFor(async () => (await member(newcomer.user.id)).body.role === 'review', { what: 'the newcomer to review' });
    // The last admin cannot step down: the app says why, and shows their role unchanged.
    await admin.getByRole('searchbox', { name: 'Search members' }).fill('');
    await admin.getByLabel('Role of Admin').selectOption('read');
    await admin.getByRole('alert').getByText(/last admin of the organization/).waitFor();
    expect(await admin.getByLabel('Role of Admin').inputValue()).toBe('admin');
    expect((await member(org.admin.user.id)).body.role).toBe('admin');

    // A team, made and renamed in the app, with the newcomer in it.
    await admin.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Teams' }).click();
    await admin.getByLabel('New team').fill('Writers');
    await admin.getByRole('button', { name: 'Make the team' }).click();
    await admin.getByRole('heading', { name: 'Writers', level: 2 }).waitFor();
    teamId = admin.url().split('/').pop()!;
    await admin.getByLabel('Name', { exact: true }).fill('Technical writers');
    await admin.getByRole('button', { name: 'Rename' }).click();
    await admin.getByRole('heading', { name: 'Technical writers', level: 2 }).waitFor();
    await admin.getByLabel('Add a member').selectOption({ label: `Noor Newcomer (${newcomer.user.email})` });
    await admin.getByRole('button', { name: 'Add to the team' }).click();
    await admin.getByRole('region', { name: 'Members of the team' }).getByText('Noor Newcomer', { exact: true }).waitFor();
    const seats = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token });
    expect(seats.body.items.map((seat: any) => seat.organization.id)).toEqual([newcomer.user.id]);
    expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}`, { token: org.admin.token })).body.title).toBe('Technical writers');
  });

  it('revokes an invite link, removes a member and deletes a team only once the admin confirms', { timeout: 60_000 }, async () => {
    const leaving = await t.member(org.id, 'read');
    await t.request('POST', `/v1/orgs/${org.id}/link-invites`, { token: org.admin.token, body: { role: 'read' } });
    const page = await web.signedIn(org.admin, `/o/${org.id}/settings/invites`);
    await page.getByRole('button', { name: 'Revoke the read link' }).click();
    // Asked first; cancelling keeps the link, and focus comes back to the button.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await waitFor(() => page.evaluate(() => document.activeElement?.textContent === 'Revoke the read link'), { what: 'focus back on the revoke button' });
    await page.getByRole('button', { name: 'Revoke the read link' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByLabel(/^Link for read/).waitFor({ state: 'detached' });
    const links = await t.request('GET', `/v1/orgs/${org.id}/link-invites`, { token: org.admin.token });
    expect(links.body.items.map((invite: any) => invite.role)).toEqual(['comment']);

    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Members' }).click();
    await page.getByRole('button', { name: `Remove ${leaving.user.display_name}` }).click();
    expect((await member(leaving.user.id)).status).toBe(200);
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await page.getByRole('rowheader', { name: leaving.user.display_name, exact: true }).waitFor({ state: 'detached' });
    expect((await member(leaving.user.id)).status).toBe(404);

    const temporary = (await t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: org.admin.token, body: { title: 'Temporary' } })).body;
    await page.goto(`${server}/app/o/${org.id}/settings/teams/${temporary.id}`);
    await page.getByRole('button', { name: 'Delete this team' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(`${server}/app/o/${org.id}/settings/teams`);
    await page.getByRole('link', { name: 'Technical writers' }).waitFor();
    expect(await page.getByRole('link', { name: 'Temporary' }).count()).toBe(0);
    expect((await t.request('GET', `/v1/orgs/${org.id}/teams/${temporary.id}`, { token: org.admin.token, unchecked: true })).status).toBe(404);
  });

  it('changes a space\'s title, visibility and default level, and shows and runs its Git Sync without credentials', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/s/${spaceId}`);
    await page.getByRole('navigation', { name: 'Space' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings of Handbook', level: 1 }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Team handbook');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Settings of Team handbook', level: 1 }).waitFor();
    await page.getByLabel('Visibility', { exact: true }).selectOption('public');
    await page.getByLabel('Role every member of the organization has here').selectOption('comment');
    await page.getByRole('button', { name: 'Save access' }).click();
    const space = await waitFor(async () => (await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token })).body, {
      what: 'the space to be public',
      until: (value: any) => value.visibility === 'public',
    });
    expect(space).toMatchObject({ title: 'Team handbook', visibility: 'public', defaultLevel: 'comment' });

    const sync = page.getByRole('region', { name: 'Git Sync' });
    await sync.getByRole('link', { name: 'handbook' }).waitFor();
    expect(await sync.getByRole('link', { name: 'handbook' }).getAttribute('href')).toBe(`${scene.host.url}/handbook`);
    expect(await sync.textContent()).toContain('In sync');
    expect(await sync.locator('code').textContent()).toBe('main');
    expect(await page.content()).not.toContain(HOST_TOKEN);
    const before = space.gitSync.updatedAt;
    await sync.getByRole('button', { name: 'Sync now' }).click();
    await waitFor(async () => (await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token })).body.gitSync.updatedAt !== before, { what: 'a new run' });
    await sync.getByRole('button', { name: 'Sync now' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('makes a SAML provider through the form, shows what to give the identity provider, and edits it', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/o/${org.id}/settings/sign-in`);
    await page.getByText('No SAML provider yet.').waitFor();
    await page.getByText('Add a SAML provider').click();
    const form = page.getByRole('form', { name: 'New SAML provider' });
    await form.getByLabel('Label on the sign-in page').fill('Okta');
    await form.getByLabel('Identity provider\'s entity ID').fill('https://idp.example.test/entity');
    await form.getByLabel('Identity provider\'s single sign-on URL').fill('https://idp.example.test/sso');
    await form.getByLabel('Identity provider\'s signing certificate (PEM)').fill(IDP_CERTIFICATE);
    await form.getByLabel('Role of people who join by signing in').selectOption('read');
    await form.getByLabel('Team they join').selectOption({ label: 'Technical writers' });
    await form.getByRole('button', { name: 'Add the SAML provider' }).click();

    const section = page.getByRole('region', { name: /^Okta/ });
    await section.getByText('active', { exact: true }).waitFor();
    const listed = await t.request('GET', `/v1/orgs/${org.id}/saml`, { token: org.admin.token });
    expect(listed.body.items).toHaveLength(1);
    const provider = listed.body.items[0];
    samlId = provider.id;
    expect(provider).toMatchObject({ label: 'Okta', entityID: 'https://idp.example.test/entity', ssoURL: 'https://idp.example.test/sso', defaultRole: 'read', status: 'active' });
    expect(provider.defaultTeam.id).toBe(teamId);
    const given = await section.locator('dl.given code').allTextContents();
    expect(given).toEqual([provider.service.entityID, provider.service.acsURL, provider.service.entityID, provider.service.startURL]);
    // The metadata URL is this server's metadata for the provider.
    const metadata = await t.request('GET', new URL(provider.service.entityID).pathname, { unchecked: true });
    expect(metadata.status).toBe(200);
    expect(String(metadata.body)).toContain(provider.service.acsURL);

    const edit = page.getByRole('form', { name: 'Settings of Okta' });
    await edit.getByLabel('Identity provider\'s entity ID').fill('https://idp.example.test/other-entity');
    await edit.getByRole('button', { name: 'Save Okta' }).click();
    await waitFor(async () => (await t.request('GET', `/v1/orgs/${org.id}/saml/${samlId}`, { token: org.admin.token })).body.entityID === 'https://idp.example.test/other-entity', {
      what: 'the new entity id',
    });

    // A mistake is said where the form is: a certificate that is none.
    await edit.getByLabel('Identity provider\'s signing certificate (PEM)').fill('not a certificate');
    await edit.getByRole('button', { name: 'Save Okta' }).click();
    await section.getByRole('alert').getByText(/certificate/).waitFor();
  });

  it('sets an OpenID Connect provider whose client secret is written and never shown', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/o/${org.id}/settings/sign-in`);
    const form = page.getByRole('form', { name: 'OpenID Connect provider' });
    await form.getByLabel('Issuer URL').fill('https://login.example.test');
    await form.getByLabel('Client ID').fill('quire-docs');
    await form.getByLabel('Client secret').fill('an oidc client secret');
    await form.getByLabel('E-mail domains whose people join on their first sign-in').fill('example.test, example.org');
    await form.getByRole('button', { name: 'Add the OpenID Connect provider' }).click();
    await form.getByRole('button', { name: 'Save the OpenID Connect provider' }).waitFor();
    const provider = (await t.request('GET', `/v1/orgs/${org.id}/oidc`, { token: org.admin.token })).body;
    expect(provider).toMatchObject({ issuer: 'https://login.example.test', clientId: 'quire-docs', allowedDomains: expect.arrayContaining(['example.test', 'example.org']), defaultRole: null });
    await page.getByText(provider.callbackUrl).waitFor();
    expect(await form.getByLabel('Client secret').inputValue()).toBe('');
    await page.reload();
    await page.getByRole('form', { name: 'OpenID Connect provider' }).getByLabel('Client ID').waitFor();
    expect(await page.content()).not.toContain('an oidc client secret');
  });

  it('shows a member who is no admin no management control, and the API refuses them', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(editor, `/o/${org.id}`);
    await page.getByRole('link', { name: 'Members and teams' }).click();
    await page.getByRole('heading', { name: 'Members', level: 2 }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    expect(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents()).toEqual(['Members', 'Teams']);
    expect(await page.getByRole('combobox').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);

    await page.goto(`${server}/app/o/${org.id}/settings/teams/${teamId}`);
    await page.getByRole('heading', { name: 'Technical writers', level: 2 }).waitFor();
    await page.getByRole('region', { name: 'Members of the team' }).getByText('Noor Newcomer', { exact: true }).waitFor();
    expect(await page.getByRole('button').filter({ hasNotText: /Theme|Sign out|Cancel/ }).count()).toBe(0);
    expect(await page.getByRole('textbox').count()).toBe(0);

    for (const section of ['invites', 'sign-in']) {
      await page.goto(`${server}/app/o/${org.id}/settings/${section}`);
      await page.getByRole('alert').first().waitFor();
      expect(await page.getByRole('alert').first().textContent()).toMatch(/admin/i);
      expect(await page.getByRole('button', { name: /Make|Add|Save|Revoke|Delete/ }).count()).toBe(0);
    }
    // An editor renames the space, but who may read it is for its admins.
    await page.goto(`${server}/app/s/${spaceId}/~/settings`);
    await page.getByLabel('Title', { exact: true }).waitFor();
    expect(await page.getByLabel('Visibility', { exact: true }).count()).toBe(0);

    const refusals = await Promise.all([
      t.request('PATCH', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: editor.token, body: { role: 'read' }, unchecked: true }),
      t.request('DELETE', `/v1/orgs/${org.id}/members/${org.admin.user.id}`, { token: editor.token, unchecked: true }),
      t.request('POST', `/v1/orgs/${org.id}/link-invites`, { token: editor.token, body: { role: 'admin' }, unchecked: true }),
      t.request('PUT', `/v1/orgs/${org.id}/teams`, { token: editor.token, body: { title: 'Mine' }, unchecked: true }),
      t.request('POST', `/v1/orgs/${org.id}/saml`, { token: editor.token, body: { label: 'Mine' }, unchecked: true }),
      t.request('PUT', `/v1/orgs/${org.id}/oidc`, { token: editor.token, body: { issuer: 'https://x.test', clientId: 'x', clientSecret: 'y' }, unchecked: true }),
      t.request('PATCH', `/v1/spaces/${spaceId}`, { token: editor.token, body: { visibility: 'private' }, unchecked: true }),
    ]);
    expect(refusals.map((response) => response.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
  });

  it('has no serious accessibility violations on any settings view, light and dark, and leaves screenshots of each', { timeout: 240_000 }, async () => {
    await web.lookAt(org.admin, `/o/${org.id}/settings/members`, 'app-admin-members', (page) => page.locator('tbody tr').first().waitFor());
    await web.lookAt(editor, `/o/${org.id}/settings/members`, 'app-admin-members-read-only', (page) => page.locator('tbody tr').first().waitFor());
    await web.lookAt(org.admin, `/o/${org.id}/settings/teams`, 'app-admin-teams', (page) => page.getByRole('link', { name: 'Technical writers' }).waitFor());
    await web.lookAt(org.admin, `/o/${org.id}/settings/teams/${teamId}`, 'app-admin-team', (page) => page.getByRole('region', { name: 'Members of the team' }).getByText('Noor Newcomer', { exact: true }).waitFor());
    await web.lookAt(org.admin, `/o/${org.id}/settings/invites`, 'app-admin-invites', (page) => page.getByLabel(/^Link for comment/).waitFor());
    await web.lookAt(org.admin, `/o/${org.id}/settings/sign-in`, 'app-admin-sign-in', async (page) => {
      await page.getByRole('region', { name: /^Okta/ }).waitFor();
      await page.getByRole('form', { name: 'OpenID Connect provider' }).getByLabel('Client ID').waitFor();
    });
    await web.lookAt(org.admin, `/s/${spaceId}/~/settings`, 'app-admin-space', (page) => page.getByRole('region', { name: 'Git Sync' }).getByRole('button', { name: 'Sync now' }).waitFor());
    // A destructive action asking for confirmation.
    const page = await web.signedIn(org.admin, `/o/${org.id}/settings/teams/${teamId}`);
    await page.getByRole('button', { name: 'Delete this team' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, `app-admin-confirm-${kind}`);
    expect(web.problems).toEqual([]);
  });
});
