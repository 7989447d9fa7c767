/** `quire admin ...`: the first admin, users, tokens and purging, on the store `quire serve` uses. */
import { Urls } from '../http/urls.js';
import { presentUser } from '../http/present.js';
import { presentOrganization } from '../http/routes/organizations/presenter.js';
import { createApiToken, createUser } from '../domain/identity/users.js';
import { createOrganization } from '../domain/organizations/organizations.js';
import { addMember } from '../domain/members/members.js';
import { isRole, loadOrgAccess, type Role } from '../domain/permissions.js';
import { purgeDeletedSpaces } from '../domain/content/spaces.js';
import { findUserByEmail } from '../store/sql/users.js';
import { createPasswordLink } from '../domain/identity/sessions.js';
import { appPaths } from '../http/app-paths.js';
import { emailDomainsOf } from '../store/sql/organizations.js';
import { CommandError, print, withContainer, type StoreOptions } from './common.js';

export async function bootstrap(options: { email: string; name?: string; org: string } & StoreOptions): Promise<void> {
  await withContainer('admin bootstrap', options, async ({ ctx, config }) => {
    const user = (await findUserByEmail(ctx.db, options.email)) ?? (await createUser(ctx, { email: options.email, name: options.name }));
    const organization = await createOrganization(ctx, user.id, { title: options.org });
    const token = await createApiToken(ctx, user.id);
    const urls = new Urls(config.publicUrl);
    const access = await loadOrgAccess(ctx, organization.id, user.id);
    const domains = await emailDomainsOf(ctx.db, [organization.id]);
    print({
      user: presentUser(urls, user),
      organization: presentOrganization(urls, { organization, access, emailDomains: domains.get(organization.id) ?? [] }),
      token,
    });
  });
}

function parseRole(value: string): Role | null {
  if (value === 'guest') return null;
  if (!isRole(value)) throw new CommandError(`--role: must be admin, create, review, edit, comment, read or guest, got "${value}"`);
  return value;
}

export async function createUserCommand(options: { email: string; name?: string; org?: string; role?: string }): Promise<void> {
  const role = options.role === undefined ? undefined : parseRole(options.role);
  if (role !== undefined && !options.org) throw new CommandError('--role needs --org');
  await withContainer('admin create-user', {}, async ({ ctx, config }) => {
    const user = await createUser(ctx, { email: options.email, name: options.name });
    if (options.org) await addMember(ctx, options.org, user.id, role === undefined ? 'read' : role);
    const token = await createApiToken(ctx, user.id);
    print({ user: presentUser(new Urls(config.publicUrl), user), token });
  });
}

export async function purge(): Promise<void> {
  await withContainer('admin purge', {}, async ({ ctx }) => {
    print({ purged: await purgeDeletedSpaces(ctx) });
  });
}

export async function createToken(options: { user: string }): Promise<void> {
  await withContainer('admin create-token', {}, async ({ ctx }) => {
    print({ token: await createApiToken(ctx, options.user) });
  });
}

/** Prints a one-time link that sets the user's password (their first, or a forgotten one) in the app. */
export async function resetPassword(user: string): Promise<void> {
  await withContainer('admin reset-password', {}, async ({ ctx, config }) => {
    const link = await createPasswordLink(ctx, user);
    // The token rides in the fragment: browsers never send it, so no access log or proxy sees it.
    print({ user: link.user.email, link: new Urls(config.publicUrl).app(`${appPaths.setPassword}#token=${link.token}`), expiresAt: link.expiresAt });
  });
}
