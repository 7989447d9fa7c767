/**
 * `quire migrate`: copies organizations from any server that speaks this API (the hosted platform, or another
 * Quire) into this instance, reading the source with its public client (./source.ts) and writing here with the
 * domain's own functions.
 *
 * - Order: members (users by e-mail) first, so that authors map; then teams, collections (parents first), spaces
 *   with their open and draft change requests and comments, OpenAPI specifications, translation settings, sites.
 * - Content: through git when the source serves the space's repository (another Quire does): same commits, so the
 *   whole history and every page and file byte for byte; else from the API's pages and files, written as one commit
 *   (src/content/pages-tree.ts). Page and file ids of the source are kept either way, so comments find their pages.
 * - Idempotent and resumable: every copied resource is recorded in `migrated` (source, kind, id -> id here, and a
 *   fingerprint of what was copied). A second run copies what changed only: a space whose main moved at the source
 *   is fast-forwarded here (refused, with a reason, when it was edited here meanwhile), a comment's body and status
 *   follow the source, new replies are added. A site's structure is copied once (later changes are reported).
 * - One failed item (the source answering 500 for a space) is skipped with its reason and the run goes on; a
 *   source that cannot be read at all (unreachable, bad token, not this API) fails before anything is written.
 * - Authors and dates of comments, replies, reactions and change requests are the source's (rows written with the
 *   source's values); a source user without an e-mail cannot be matched, and what they wrote is attributed to the
 *   user running the migration.
 *
 * This module checks the source and the target and runs the steps for each organization; the steps are modules of
 * their own beside it (members-and-teams, collections, spaces with change-requests, comments and space-content,
 * specs-and-translations, sites), each taking the run's shared state (./migration-run.ts).
 */
import type { Context } from '../context.js';
import { InvalidArgument } from '../errors.js';
import { loadOrgAccess } from '../permissions.js';
import { createUser } from '../identity/users.js';
import { createOrganization } from '../organizations/organizations.js';
import { fingerprintOf, MigrationRun, type MigrationProgress, type MigrationReport } from './migration-run.js';
import { MigrationSource, SourceFailure } from './source.js';
import type { SourceOrganization, SourceUser } from './source-resources.js';
import { copyMembers, copyTeams } from './members-and-teams.js';
import { copyCollections } from './collections.js';
import { copySpaces } from './spaces.js';
import { copySpecs, copyTranslations } from './specs-and-translations.js';
import { copySites } from './sites.js';
import { findUserByEmail } from '../../store/sql/users.js';
import { findOrganizationById } from '../../store/sql/organizations.js';

export interface MigrateOptions {
  /** The source server (`https://api.gitbook.com`, or another Quire's public URL). */
  from: string;
  token: string;
  /** Source organizations to copy (default: every organization the token's user belongs to). */
  orgs?: string[];
  /** An organization here to copy into (default: a new organization per source organization). */
  into?: string;
}

/** The migration could not start: nothing was written. */
export class MigrationFailure extends Error {}

/** One organization: the steps in the order the header gives. */
async function copyOrganization(run: MigrationRun, org: SourceOrganization, into: string | undefined): Promise<void> {
  const o = org.id;
  const existing = await run.mapped('organization', o);
  let target = into ?? existing?.target_id;
  if (!target) {
    target = (await createOrganization(run.ctx, run.actor.user.id, { title: org.title.slice(0, 255) })).id;
    await run.remember('organization', o, target, fingerprintOf({ title: org.title }));
    run.count('organizations');
  }
  run.progress({ step: `${org.title}: members`, done: 0, total: 1 });
  await copyMembers(run, o, target);
  await copyTeams(run, o, target);
  const collections = await copyCollections(run, o, target);
  const spaces = await copySpaces(run, o, target, collections);
  await copySpecs(run, o, target);
  await copyTranslations(run, o, target);
  await copySites(run, o, target, spaces);
}

/**
 * Checks the source (reachable, the token accepted, this API) and the target before anything is written, then
 * copies. Throws MigrationFailure when it cannot start.
 */
export async function migrate(ctx: Context, options: MigrateOptions, progress: MigrationProgress = () => {}): Promise<MigrationReport> {
  let source: MigrationSource;
  let me: SourceUser;
  let organizations: SourceOrganization[];
  try {
    source = new MigrationSource(options.from, options.token, ctx.fetcher);
    me = await source.read<SourceUser>('the token\'s user', (c) => c.user.getAuthenticatedUser());
    if (typeof me.id !== 'string') throw new SourceFailure(undefined, 'the source\'s answer for its user is not this API\'s user');
    organizations = await source.list<SourceOrganization>('organizations', (c, p) => c.orgs.listOrganizationsForAuthenticatedUser(p));
  } catch (error) {
    if (error instanceof SourceFailure) {
      const hint = error.status === 401 || error.status === 403 ? ': is --token an API token of that server?' : error.status === 404 ? ': is --from a server of this API?' : '';
      throw new MigrationFailure(`--from ${options.from}: ${error.message}${hint}; nothing was copied`);
    }
    throw error;
  }
  if (organizations.some((o) => typeof o?.id !== 'string' || typeof o.title !== 'string')) throw new MigrationFailure(`--from ${options.from}: its organizations are not this API's; nothing was copied`);
  for (const wanted of options.orgs ?? []) {
    if (!organizations.some((o) => o.id === wanted)) throw new MigrationFailure(`--org ${wanted}: not an organization the token's user belongs to at the source; nothing was copied`);
  }
  const chosen = options.orgs?.length ? organizations.filter((o) => options.orgs!.includes(o.id)) : organizations;
  if (!me.email) throw new MigrationFailure('the source gives no e-mail for the token\'s user: the migration acts as the user with that e-mail here; nothing was copied');

  let actor = await findUserByEmail(ctx.db, me.email);
  if (options.into) {
    const access = actor && (await findOrganizationById(ctx.db, options.into)) ? await loadOrgAccess(ctx, options.into, actor.id) : undefined;
    if (!access?.membership) throw new MigrationFailure(`--into ${options.into}: no such organization here, or ${me.email} is not a member of it; nothing was copied`);
    if (access.membership.role !== 'admin') throw new MigrationFailure(`--into ${options.into}: ${me.email} (the source token's user) must be an admin of it; nothing was copied`);
  }
  actor ??= await createUser(ctx, { email: me.email, name: me.displayName });

  const run = new MigrationRun(ctx, source, actor, progress);
  for (const organization of chosen) {
    try {
      await copyOrganization(run, organization, options.into);
    } catch (error) {
      if (error instanceof InvalidArgument || error instanceof SourceFailure) run.report.skipped.push({ kind: 'organization', id: organization.id, reason: error.message });
      else throw error;
    }
  }
  return run.report;
}
