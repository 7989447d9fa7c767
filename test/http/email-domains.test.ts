import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// getOrganizationsForEmailDomain: an organization is listed for its members (guests included) and for users whose
// e-mail is at the domain; nobody else learns it exists.
describe.each(DATABASE_KINDS)('GET /v1/email-domains/:emailDomain/orgs (getOrganizationsForEmailDomain, %s)', (kind) => {
  let t: TestApp;
  const domain = `corp-${kind}.example`;
  let first: Awaited<ReturnType<TestApp['organization']>>;
  let second: Awaited<ReturnType<TestApp['organization']>>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    first = await t.organization('First Corp');
    second = await t.organization('Second Corp');
    for (const o of [first, second]) {
      const res = await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { emailDomains: [domain, `other-${kind}.example`] } });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => t?.close());

  const lookup = (value: string, token?: string) => t.request('GET', `/v1/email-domains/${encodeURIComponent(value)}/orgs`, { token });

  it('lists every organization of the domain, oldest first, to a user of that domain, with no permissions', async () => {
    const colleague = await t.user(`someone@${domain}`);
    const res = await lookup(domain, colleague.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['organizations']);
    expect(res.body.organizations.map((o: any) => o.id)).toEqual([first.id, second.id]);
    expect(res.body.organizations[0]).toMatchObject({ object: 'organization', title: 'First Corp', emailDomains: [domain, `other-${kind}.example`] });
    expect(Object.values(res.body.organizations[0].permissions).every((v) => v === false)).toBe(true);
    // Domains compare without regard to case.
    expect((await lookup(domain.toUpperCase(), colleague.token)).body.organizations.map((o: any) => o.id)).toEqual([first.id, second.id]);
  });

  it('lists to other users only the organizations they are members of, guests included', async () => {
    const guest = await t.member(second.id, null);
    const res = await lookup(domain, guest.token);
    expect(res.body.organizations.map((o: any) => o.id)).toEqual([second.id]);
    expect(res.body.organizations[0].permissions.view).toBe(true);
    expect((await lookup(domain, first.admin.token)).body.organizations.map((o: any) => o.id)).toEqual([first.id]);
  });

  it('lists nothing to strangers and disabled members, and nothing for a domain no organization lists', async () => {
    const outsider = await t.user();
    expect((await lookup(domain, outsider.token)).body).toEqual({ organizations: [] });
    const disabled = await t.member(first.id, 'read');
    await t.container.ctx.db.updateTable('members').set({ disabled: 1 }).where('user_id', '=', disabled.user.id).execute();
    expect((await lookup(domain, disabled.token)).body).toEqual({ organizations: [] });
    const loner = await t.user(`someone@nobody-${kind}.example`);
    expect((await lookup(`nobody-${kind}.example`, loner.token)).body).toEqual({ organizations: [] });
  });

  it('is 400 for a value that is not a domain name, 401 without a token', async () => {
    for (const bad of ['not a domain', 'localhost', 'user@corp.example', '-corp.example']) {
      const res = await lookup(bad, first.admin.token);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.message).toMatch(/^emailDomain: ".*" is not a domain name$/);
    }
    expect((await lookup(domain)).status).toBe(401);
  });
});
