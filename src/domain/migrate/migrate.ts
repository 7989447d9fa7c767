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
 */
import { createHash } from 'node:crypto';
import type { Caller, Context } from '../context.js';
import { DomainError, InvalidArgument } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { isRole, loadOrgAccess, type Role } from '../permissions.js';
import { createUser } from '../identity/users.js';
import { addMember } from '../members/members.js';
import { createOrganization } from '../organizations/organizations.js';
import { createTeam, updateTeamMembers } from '../teams/teams.js';
import { createCollection, updateCollection } from '../content/collections.js';
import { createSpaceFromRepository, updateSpace, type SpacePatch } from '../content/spaces.js';
import { recordPush } from '../content/git-access.js';
import { enqueueIndexingAfterPush } from '../content/indexing.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { createSpec, putSpec } from '../openapi/specs.js';
import { createTranslationSettings, updateTranslationSettings } from '../translations/translations.js';
import { updateSite } from '../sites/sites.js';
import { buildSite } from '../sites/build.js';
import { createShareLink, updateShareLink } from '../sites/share-links.js';
import { MigrationSource, SourceFailure } from './source.js';
import { treeOfPages, type SourcePage } from '../../content/pages-tree.js';
import type { SitePlan, SiteSectionGroupItem, SiteSectionItem, SiteSpaceItem } from '../../content/monorepo.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { bringRefs, createEmptyRepository, fetchRefsFromUrl } from '../../store/git/transfer.js';
import { findMigrated, saveMigrated } from '../../store/sql/migrated.js';
import { findUserByEmail, findUserById, type UserRow } from '../../store/sql/users.js';
import { findMember } from '../../store/sql/members.js';
import { findOrganizationById } from '../../store/sql/organizations.js';
import { findSpace } from '../../store/sql/content.js';
import { findChangeRequest, insertChangeRequest, nextChangeRequestNumber, updateChangeRequestRow } from '../../store/sql/change-requests.js';
import { addReactions, insertComment, insertReply, updateCommentRow, updateReplyRow } from '../../store/sql/comments.js';
import { isUniqueViolation } from '../../store/sql/errors.js';

export interface MigrateOptions {
  /** The source server (`https://api.gitbook.com`, or another Quire's public URL). */
  from: string;
  token: string;
  /** Source organizations to copy (default: every organization the token's user belongs to). */
  orgs?: string[];
  /** An organization here to copy into (default: a new organization per source organization). */
  into?: string;
}

export interface MigrationReport {
  copied: Record<string, number>;
  skipped: Array<{ kind: string; id: string; reason: string }>;
}

/** What the run is doing, for a progress line on a terminal. */
export type MigrationProgress = (event: { step: string; done: number; total: number; title?: string }) => void;

/** The migration could not start: nothing was written. */
export class MigrationFailure extends Error {}

/* The source's resources, as far as they are read here (the reference's shapes). */
interface SourceUser {
  id: string;
  email?: string;
  displayName?: string;
}
interface SourceOrganization {
  id: string;
  title: string;
}
interface SourceMember {
  id: string;
  role: string | null;
  user: SourceUser;
}
interface SourceTeam {
  id: string;
  title: string;
}
interface SourceCollection {
  id: string;
  title: string;
  description?: string;
  parent?: string;
  defaultLevel?: string | null;
}
interface SourceSpace {
  id: string;
  title: string;
  emoji?: string;
  visibility?: string;
  editMode?: string;
  defaultLevel?: string | null;
  parent?: string;
  revision: string;
}
interface SourceChangeRequest {
  id: string;
  number: number;
  status: string;
  subject?: string;
  createdBy?: SourceUser;
  createdAt?: string;
  updatedAt?: string;
  revision: string;
  revisionInitial?: string;
}
interface SourceReaction {
  emoji: string;
  users?: Array<{ user: SourceUser; reactedAt?: string }>;
}
interface SourceComment {
  id: string;
  postedBy?: SourceUser;
  postedAt?: string;
  editedAt?: string;
  body?: { markdown?: string };
  status?: string;
  resolvedAt?: string;
  resolvedBy?: SourceUser;
  replies?: number;
  reactions?: SourceReaction[];
  target?: { page?: { id: string }; node?: { id: string } };
}
interface SourceReply {
  id: string;
  postedBy?: SourceUser;
  postedAt?: string;
  editedAt?: string;
  body?: { markdown?: string };
  reactions?: SourceReaction[];
}
interface SourceFileInfo {
  id: string;
  name: string;
  downloadURL: string;
  /** With `metadata` (another Quire): where the file is in its repository. */
  git?: { path?: string };
}
interface SourceSpec {
  id: string;
  slug: string;
  sourceURL?: string;
}
interface SourceTranslation {
  id: string;
  title: string;
  languages?: string[];
}
interface SourceSite {
  id: string;
  title: string;
  visibility?: string;
  basename?: string;
}
interface SourceSection {
  id: string;
  title?: string;
  path?: string;
  icon?: string;
  description?: string;
  default?: boolean;
}
interface SourceSectionGroup {
  id: string;
  title?: string;
  icon?: string;
  sections?: Array<{ id: string }>;
}
interface SourceSiteSpace {
  id: string;
  path?: string;
  default?: boolean;
  section?: string;
  space?: { id: string };
}
interface SourceShareLink {
  id: string;
  name: string;
  active?: boolean;
}

/** A stable hash of what was copied: equal fingerprints mean nothing changed at the source. */
function fingerprintOf(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex');
}

function reasonOf(error: unknown): string {
  if (error instanceof SourceFailure || error instanceof DomainError) return error.message;
  return (error as Error)?.message ?? String(error);
}

const roleOrNull = (value: string | null | undefined): Role | null | undefined => (value === null ? null : value && isRole(value) ? value : undefined);

class Migration {
  readonly report: MigrationReport = { copied: {}, skipped: [] };
  private readonly actor: Caller;

  constructor(
    private readonly ctx: Context,
    private readonly source: MigrationSource,
    actor: UserRow,
    private readonly progress: MigrationProgress,
  ) {
    this.actor = { user: actor };
  }

  private count(kind: string, n = 1): void {
    this.report.copied[kind] = (this.report.copied[kind] ?? 0) + n;
  }

  private skip(kind: string, id: string, error: unknown): void {
    this.report.skipped.push({ kind, id, reason: typeof error === 'string' ? error : reasonOf(error) });
  }

  private mapped(kind: string, sourceId: string) {
    return findMigrated(this.ctx.db, this.source.endpoint, kind, sourceId);
  }

  private remember(kind: string, sourceId: string, targetId: string, fingerprint: string | null): Promise<void> {
    return saveMigrated(this.ctx.db, { source: this.source.endpoint, kind, source_id: sourceId, target_id: targetId, fingerprint, migrated_at: nowIso() });
  }

  /** Runs one item; a failure is reported as skipped and the run goes on. */
  private async item<T>(kind: string, id: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      this.skip(kind, id, error);
      return undefined;
    }
  }

  /** The user here for a source user: by e-mail; undefined when the source gives no e-mail or they are unknown. */
  private async userOf(user: SourceUser | undefined): Promise<UserRow | undefined> {
    if (!user) return undefined;
    const row = await this.mapped('user', user.id);
    if (row) return findUserById(this.ctx.db, row.target_id);
    return user.email ? findUserByEmail(this.ctx.db, user.email) : undefined;
  }

  private async authorId(user: SourceUser | undefined): Promise<string> {
    return (await this.userOf(user))?.id ?? this.actor.user.id;
  }

  // ---- organizations

  async organization(org: SourceOrganization, into: string | undefined): Promise<void> {
    const o = org.id;
    const existing = await this.mapped('organization', o);
    let target = into ?? existing?.target_id;
    if (!target) {
      target = (await createOrganization(this.ctx, this.actor.user.id, { title: org.title.slice(0, 255) })).id;
      await this.remember('organization', o, target, fingerprintOf({ title: org.title }));
      this.count('organizations');
    }
    this.progress({ step: `${org.title}: members`, done: 0, total: 1 });
    await this.members(o, target);
    await this.teams(o, target);
    const collections = await this.collections(o, target);
    const spaces = await this.spaces(o, target, collections);
    await this.specs(o, target);
    await this.translations(o, target);
    await this.sites(o, target, spaces);
  }

  // ---- members and teams

  private async members(o: string, target: string): Promise<void> {
    const members = await this.item('members', o, () => this.source.list<SourceMember>(`members of ${o}`, (c, p) => c.orgs.listMembersInOrganizationById(o, p)));
    for (const member of members ?? []) {
      await this.item('member', member.user?.id ?? member.id, async () => {
        const email = member.user?.email;
        if (!email) throw new Error('the source gives no e-mail for this member: they cannot be matched to a user here');
        let user = await findUserByEmail(this.ctx.db, email);
        if (!user) {
          user = await createUser(this.ctx, { email, name: member.user.displayName });
          this.count('users');
        }
        await this.remember('user', member.user.id, user.id, null);
        if (!(await findMember(this.ctx.db, target, user.id))) {
          const role = roleOrNull(member.role);
          await addMember(this.ctx, target, user.id, role === undefined ? 'read' : role);
          this.count('members');
        }
      });
    }
  }

  private async teams(o: string, target: string): Promise<void> {
    const teams = await this.item('teams', o, () => this.source.list<SourceTeam>(`teams of ${o}`, (c, p) => c.orgs.listTeamsInOrganizationById(o, p)));
    for (const team of teams ?? []) {
      await this.item('team', team.id, async () => {
        const members = await this.source.list<{ organization: SourceMember; team?: { role?: string } }>(`members of team ${team.id}`, (c, p) =>
          c.orgs.listTeamMembersInOrganizationById(o, team.id, p),
        );
        const memberships: Record<string, { role: 'owner' | 'member' }> = {};
        for (const entry of members) {
          const user = await this.userOf(entry.organization?.user);
          if (user && (await findMember(this.ctx.db, target, user.id))) memberships[user.id] = { role: entry.team?.role === 'owner' ? 'owner' : 'member' };
        }
        const fingerprint = fingerprintOf({ title: team.title, memberships });
        const existing = await this.mapped('team', team.id);
        if (existing?.fingerprint === fingerprint) return;
        const teamId = existing?.target_id ?? (await createTeam(this.ctx, this.actor, target, { title: team.title.slice(0, 64) })).team.id;
        if (!existing) await this.remember('team', team.id, teamId, null);
        if (Object.keys(memberships).length > 0) await updateTeamMembers(this.ctx, this.actor, target, teamId, { memberships });
        await this.remember('team', team.id, teamId, fingerprint);
        this.count('teams');
      });
    }
  }

  // ---- collections

  /** Copies the collections, parents first; returns source id -> id here. */
  private async collections(o: string, target: string): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const collections = await this.item('collections', o, () =>
      this.source.list<SourceCollection>(`collections of ${o}`, (c, p) => c.orgs.listCollectionsInOrganizationById(o, { ...p, nested: true })),
    );
    const pending = [...(collections ?? [])];
    while (pending.length > 0) {
      const ready = pending.filter((c) => !c.parent || ids.has(c.parent) || !pending.some((other) => other.id === c.parent));
      if (ready.length === 0) {
        for (const c of pending) this.skip('collection', c.id, 'its parent collections form a cycle at the source');
        break;
      }
      for (const collection of ready) {
        pending.splice(pending.indexOf(collection), 1);
        if (collection.parent && !ids.has(collection.parent)) {
          this.skip('collection', collection.id, `its parent collection "${collection.parent}" was not copied`);
          continue;
        }
        const id = await this.item('collection', collection.id, () => this.collection(target, collection, collection.parent ? ids.get(collection.parent) : undefined));
        if (id) ids.set(collection.id, id);
      }
    }
    return ids;
  }

  private async collection(target: string, collection: SourceCollection, parent: string | undefined): Promise<string> {
    const patch = {
      title: collection.title.slice(0, 50),
      ...(collection.description ? { description: collection.description.slice(0, 100) } : {}),
      ...(roleOrNull(collection.defaultLevel) !== undefined ? { defaultLevel: roleOrNull(collection.defaultLevel) } : {}),
    };
    const fingerprint = fingerprintOf({ ...patch, parent: parent ?? null });
    const existing = await this.mapped('collection', collection.id);
    if (existing?.fingerprint === fingerprint) return existing.target_id;
    const id = existing?.target_id ?? (await createCollection(this.ctx, this.actor, target, { title: patch.title, ...(parent ? { parent } : {}) })).collection.id;
    if (!existing) await this.remember('collection', collection.id, id, null);
    await updateCollection(this.ctx, this.actor, id, patch);
    await this.remember('collection', collection.id, id, fingerprint);
    this.count('collections');
    return id;
  }

  // ---- spaces

  /** Copies the spaces; returns source id -> id here, for the spaces that are here. */
  private async spaces(o: string, target: string, collections: Map<string, string>): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    const spaces = (await this.item('spaces', o, () => this.source.list<SourceSpace>(`spaces of ${o}`, (c, p) => c.orgs.listSpacesInOrganizationById(o, p)))) ?? [];
    for (const [i, listed] of spaces.entries()) {
      this.progress({ step: 'spaces', done: i, total: spaces.length, title: listed.title });
      const id = await this.item('space', listed.id, () => this.space(target, listed.id, collections));
      if (id) ids.set(listed.id, id);
      else {
        // A space that is here from an earlier run stays published in its sites.
        const earlier = await this.mapped('space', listed.id);
        if (earlier) ids.set(listed.id, earlier.target_id);
      }
    }
    this.progress({ step: 'spaces', done: spaces.length, total: spaces.length });
    return ids;
  }

  private async space(target: string, spaceId: string, collections: Map<string, string>): Promise<string> {
    // Read again by id: a source failing for this space fails here, and the listing's fields may be partial.
    const space = await this.source.read<SourceSpace>(`space ${spaceId}`, (c) => c.spaces.getSpaceById(spaceId));
    if (typeof space.revision !== 'string') throw new SourceFailure(undefined, `space ${spaceId}: the source gives no revision`);
    const changeRequests: SourceChangeRequest[] = [];
    for (const status of ['open', 'draft']) {
      changeRequests.push(
        ...(await this.source.list<SourceChangeRequest>(`change requests of space ${spaceId}`, (c, p) => c.spaces.listChangeRequestsForSpace(spaceId, { ...p, status }))),
      );
    }
    const parent = space.parent ? collections.get(space.parent) : undefined;
    const settings: SpacePatch = {
      title: space.title.slice(0, 50),
      ...(space.emoji ? { emoji: space.emoji } : {}),
      ...(space.editMode === 'live' || space.editMode === 'locked' ? { editMode: space.editMode } : {}),
      ...(roleOrNull(space.defaultLevel) !== undefined ? { defaultLevel: roleOrNull(space.defaultLevel) } : {}),
      ...(space.visibility ? { visibility: space.visibility as SpacePatch['visibility'] } : {}),
    };
    const fingerprint = fingerprintOf({ settings, parent: parent ?? null, revision: space.revision, changeRequests: changeRequests.map((cr) => [cr.id, cr.revision, cr.status, cr.subject ?? '']) });
    const existing = await this.mapped('space', spaceId);
    const here = existing ? await findSpace(this.ctx.db, existing.target_id) : undefined;
    let id: string;
    if (existing && here && !here.deleted_at && existing.fingerprint === fingerprint) {
      id = here.id;
    } else {
      id = here && !here.deleted_at ? here.id : await this.newSpaceId(spaceId);
      const staging = newId();
      await createEmptyRepository(this.ctx.git, staging);
      try {
        const viaGit = await this.source.servesGit(spaceId);
        if (viaGit) await this.fetchRepository(staging, spaceId);
        else await this.writeFromApi(staging, spaceId, undefined, MAIN_REF);
        if (here && !here.deleted_at) await this.moveMain(id, staging, spaceId);
        else {
          await createSpaceFromRepository(this.ctx, this.actor, target, { id, sourceId: staging, title: space.title, projectDirectory: '', parentId: parent ?? null });
          await this.remember('space', spaceId, id, null);
          await enqueueIndexingAfterPush(this.ctx, { spaceId: id, revision: (await this.ctx.reader.resolveRef(id, MAIN_REF))! });
        }
        await this.applySpaceSettings(spaceId, id, settings);
        for (const cr of changeRequests) await this.item('change-request', cr.id, () => this.changeRequest(spaceId, id, staging, cr, viaGit));
      } finally {
        this.ctx.reader.close(staging);
        await this.ctx.git.removeRepository(staging);
      }
      await this.remember('space', spaceId, id, fingerprint);
      this.count('spaces');
    }
    await this.comments(spaceId, id, undefined);
    for (const cr of changeRequests) {
      const mapped = await this.mapped('change-request', cr.id);
      if (mapped) await this.comments(spaceId, id, { source: cr.id, target: mapped.target_id });
    }
    return id;
  }

  /**
   * The source's own id when it is free here: page ids derive from the space's id and the history (history.ts), so
   * a space copied through git keeps its page ids, and links and clients that name the space keep working.
   */
  private async newSpaceId(sourceId: string): Promise<string> {
    const usable = /^[a-zA-Z0-9_-]{2,64}$/.test(sourceId) && !(await findSpace(this.ctx.db, sourceId)) && !(await this.ctx.git.exists(sourceId));
    return usable ? sourceId : newId();
  }

  /** Main and the change requests' branches of the source's repository, with their history, into `staging`. */
  private async fetchRepository(staging: string, spaceId: string): Promise<void> {
    const url = this.source.gitUrl(spaceId);
    const pin = await this.ctx.fetcher.resolvePinned(url);
    await fetchRefsFromUrl(
      this.ctx.git,
      staging,
      url,
      ['+refs/heads/main:refs/heads/main', '+refs/heads/change-requests/*:refs/migrate/change-requests/*'],
      pin,
      this.source.gitHeaders(),
    ).catch((error: unknown) => {
      throw new SourceFailure(undefined, `space ${spaceId}: git could not fetch its repository: ${(error as Error).message}`);
    });
  }

  /**
   * Writes the pages and files the source's API gives for the space (or one of its change requests) as one commit
   * on `ref` of `repository`, on top of `parent`.
   */
  private async writeFromApi(repository: string, spaceId: string, changeRequestId: string | undefined, ref: string, parent?: string): Promise<string> {
    const where = changeRequestId ? `change request ${changeRequestId} of space ${spaceId}` : `space ${spaceId}`;
    const { pages } = await this.source.read<{ pages: SourcePage[] }>(`pages of ${where}`, (c) =>
      changeRequestId ? c.spaces.listPagesInChangeRequest(spaceId, changeRequestId, {}) : c.spaces.listPages(spaceId, {}),
    );
    const withMarkdown = async (list: SourcePage[]): Promise<SourcePage[]> => {
      const out: SourcePage[] = [];
      for (const page of list) {
        let markdown = page.markdown;
        if ((page.type ?? 'document') === 'document' && typeof markdown !== 'string') {
          const read = await this.source.read<{ markdown?: string }>(`page ${page.id} of ${where}`, (c) =>
            changeRequestId
              ? c.spaces.getPageInChangeRequestById(spaceId, changeRequestId, page.id, { format: 'markdown' })
              : c.spaces.getPageById(spaceId, page.id, { format: 'markdown' }),
          );
          markdown = read.markdown;
        }
        out.push({ ...page, markdown, pages: await withMarkdown(page.pages ?? []) });
      }
      return out;
    };
    const files = await this.source.list<SourceFileInfo>(`files of ${where}`, (c, p) =>
      changeRequestId ? c.spaces.listFilesInChangeRequestById(spaceId, changeRequestId, { ...p, metadata: true }) : c.spaces.listFiles(spaceId, { ...p, metadata: true }),
    );
    const withBytes = [];
    for (const file of files) {
      const gitPath = typeof file.git?.path === 'string' ? { gitPath: file.git.path } : {};
      withBytes.push({ id: file.id, name: file.name, bytes: await this.source.download(file.downloadURL), ...gitPath });
    }
    const tree = await this.ctx.git.replaceInTree(repository, EMPTY_TREE, treeOfPages(await withMarkdown(pages), withBytes));
    const commit = await this.ctx.git.commitTree(repository, tree, parent ? [parent] : [], `Migrated from ${this.source.endpoint}`, {
      name: this.actor.user.display_name,
      email: this.actor.user.email,
    });
    await this.ctx.git.setRef(repository, ref, commit);
    return commit;
  }

  /**
   * A second run: main here moves to the source's main when it only adds commits to what is here (through git), or
   * gets a commit with the source's pages on top (through the API). Edited here meanwhile: refused, with a reason.
   */
  private async moveMain(id: string, staging: string, spaceId: string): Promise<void> {
    const current = await this.ctx.reader.resolveRef(id, MAIN_REF);
    const incoming = await this.ctx.reader.resolveRef(staging, MAIN_REF);
    if (!current || !incoming || current === incoming) return;
    await bringRefs(this.ctx.git, staging, id, [`+${MAIN_REF}:refs/quire/migrate`]);
    let next = incoming;
    if (!(await this.ctx.git.isAncestor(id, current, incoming))) {
      const previous = await this.mapped('space-revision', spaceId);
      // Not our history (the API path): the source's tree as a new commit on top of main, if main is still ours.
      if (previous?.target_id !== current) throw new Error('main was changed here since the last migration and at the source too; copy the change by hand');
      const tree = (await this.ctx.reader.readCommit(id, incoming))!.tree;
      // The same pages (only settings or comments changed at the source): no empty commit.
      if (tree === (await this.ctx.reader.readCommit(id, current))?.tree) return;
      next = await this.ctx.git.commitTree(id, tree, [current], `Migrated from ${this.source.endpoint}`, QUIRE_SIGNATURE);
    }
    if (!(await this.ctx.git.compareAndSwapRef(id, MAIN_REF, next, current))) throw new Error('main moved here while the migration ran; run it again');
    await recordPush(this.ctx, id);
  }

  /** The source's settings of the space; its main here is recorded as what the migration wrote (see moveMain). */
  private async applySpaceSettings(spaceId: string, id: string, settings: SpacePatch): Promise<void> {
    const { visibility, ...rest } = settings;
    await updateSpace(this.ctx, this.actor, id, rest);
    if (visibility && visibility !== 'private') {
      await updateSpace(this.ctx, this.actor, id, { visibility }).catch((error: unknown) => this.skip('space-visibility', id, error));
    }
    await this.remember('space-revision', spaceId, (await this.ctx.reader.resolveRef(id, MAIN_REF)) ?? '', null);
  }

  /** An open or draft change request: its row (number kept when free) and its branch. */
  private async changeRequest(spaceId: string, id: string, staging: string, cr: SourceChangeRequest, viaGit: boolean): Promise<void> {
    const fingerprint = fingerprintOf({ revision: cr.revision, status: cr.status, subject: cr.subject ?? '' });
    const existing = await this.mapped('change-request', cr.id);
    const row = existing ? await findChangeRequest(this.ctx.db, id, existing.target_id) : undefined;
    if (row && existing?.fingerprint === fingerprint) return;
    const number = row?.number ?? ((await findChangeRequest(this.ctx.db, id, String(cr.number))) ? await nextChangeRequestNumber(this.ctx.db, id) : cr.number);
    const main = (await this.ctx.reader.resolveRef(id, MAIN_REF))!;
    if (viaGit) {
      const fetched = await this.ctx.reader.resolveRef(staging, `refs/migrate/change-requests/${cr.number}`);
      if (!fetched) throw new Error(`the source's repository has no branch change-requests/${cr.number}`);
      await bringRefs(this.ctx.git, staging, id, [`+refs/migrate/change-requests/${cr.number}:${branchOf(number)}`]);
    } else {
      await this.writeFromApi(id, spaceId, cr.id, branchOf(number), (await this.ctx.reader.resolveRef(id, branchOf(number))) ?? main);
    }
    const createdBy = await this.authorId(cr.createdBy);
    const status = cr.status === 'draft' ? 'draft' : 'open';
    let rowId = row?.id;
    if (row) {
      await updateChangeRequestRow(this.ctx.db, row.id, { subject: (cr.subject ?? '').slice(0, 100), status, updated_at: nowIso() });
    } else {
      const now = nowIso();
      rowId = newId();
      const inserted = {
        id: rowId,
        space_id: id,
        number,
        subject: (cr.subject ?? '').slice(0, 100),
        status,
        created_by: createdBy,
        revision_initial: cr.revisionInitial && (await this.ctx.reader.readCommit(id, cr.revisionInitial).catch(() => undefined)) ? cr.revisionInitial : main,
        revision_merged_ancestor: null,
        revision_merged: null,
        created_at: cr.createdAt ?? now,
        updated_at: cr.updatedAt ?? now,
      };
      try {
        await insertChangeRequest(this.ctx.db, inserted);
      } catch (error) {
        if (isUniqueViolation(error)) throw new Error(`change request number ${number} was taken here while the migration ran; run it again`, { cause: error });
        throw error;
      }
    }
    await this.remember('change-request', cr.id, rowId!, fingerprint);
    this.count('changeRequests');
  }

  // ---- comments

  private async comments(spaceId: string, id: string, changeRequest: { source: string; target: string } | undefined): Promise<void> {
    const where = changeRequest ? `change request ${changeRequest.source} of space ${spaceId}` : `space ${spaceId}`;
    const comments = await this.item('comments', changeRequest?.source ?? spaceId, () =>
      this.source.list<SourceComment>(`comments of ${where}`, (c, p) =>
        changeRequest
          ? c.spaces.listCommentsInChangeRequest(spaceId, changeRequest.source, { ...p, format: 'markdown', status: 'all' })
          : c.spaces.listCommentsInSpace(spaceId, { ...p, format: 'markdown', status: 'all' }),
      ),
    );
    const head = await this.ctx.reader.resolveRef(id, changeRequest ? branchOf((await findChangeRequest(this.ctx.db, id, changeRequest.target))!.number) : MAIN_REF);
    for (const comment of [...(comments ?? [])].reverse()) {
      await this.item('comment', comment.id, async () => {
        const fingerprint = fingerprintOf({ body: comment.body, status: comment.status, editedAt: comment.editedAt ?? null, replies: comment.replies ?? 0, reactions: comment.reactions ?? [] });
        const existing = await this.mapped('comment', comment.id);
        if (existing?.fingerprint === fingerprint) return;
        const fields = {
          body: JSON.stringify({ markdown: comment.body?.markdown ?? '' }),
          status: comment.status === 'resolved' ? 'resolved' : 'open',
          resolved_at: comment.status === 'resolved' ? (comment.resolvedAt ?? nowIso()) : null,
          resolved_by: comment.status === 'resolved' ? await this.authorId(comment.resolvedBy) : null,
          edited_at: comment.editedAt ?? null,
        };
        let commentId = existing?.target_id;
        if (commentId) await updateCommentRow(this.ctx.db, commentId, fields);
        else {
          commentId = newId();
          await insertComment(this.ctx.db, {
            id: commentId,
            space_id: id,
            change_request_id: changeRequest?.target ?? null,
            posted_by: await this.authorId(comment.postedBy),
            target_revision: head ?? '',
            target_page: comment.target?.page?.id ?? null,
            target_node: comment.target?.node?.id ?? null,
            posted_at: comment.postedAt ?? nowIso(),
            ...fields,
          });
          await this.remember('comment', comment.id, commentId, null);
          this.count('comments');
        }
        await this.reactions({ commentId }, comment.reactions);
        if ((comment.replies ?? 0) > 0) await this.replies(spaceId, changeRequest?.source, comment.id, commentId);
        await this.remember('comment', comment.id, commentId, fingerprint);
      });
    }
  }

  private async replies(spaceId: string, changeRequestId: string | undefined, sourceCommentId: string, commentId: string): Promise<void> {
    const replies = await this.source.list<SourceReply>(`replies of comment ${sourceCommentId}`, (c, p) =>
      changeRequestId
        ? c.spaces.listCommentRepliesInChangeRequest(spaceId, changeRequestId, sourceCommentId, { ...p, format: 'markdown' })
        : c.spaces.listCommentRepliesInSpace(spaceId, sourceCommentId, { ...p, format: 'markdown' }),
    );
    for (const reply of replies) {
      await this.item('reply', reply.id, async () => {
        const fingerprint = fingerprintOf({ body: reply.body, editedAt: reply.editedAt ?? null, reactions: reply.reactions ?? [] });
        const existing = await this.mapped('reply', reply.id);
        if (existing?.fingerprint === fingerprint) return;
        const body = JSON.stringify({ markdown: reply.body?.markdown ?? '' });
        let replyId = existing?.target_id;
        if (replyId) await updateReplyRow(this.ctx.db, replyId, { body, edited_at: reply.editedAt ?? null });
        else {
          replyId = newId();
          await insertReply(this.ctx.db, { id: replyId, comment_id: commentId, posted_by: await this.authorId(reply.postedBy), body, posted_at: reply.postedAt ?? nowIso(), edited_at: reply.editedAt ?? null });
          this.count('replies');
        }
        await this.reactions({ replyId }, reply.reactions);
        await this.remember('reply', reply.id, replyId, fingerprint);
      });
    }
  }

  private async reactions(target: { commentId: string } | { replyId: string }, reactions: SourceReaction[] | undefined): Promise<void> {
    for (const reaction of reactions ?? []) {
      for (const { user, reactedAt } of reaction.users ?? []) {
        const here = await this.userOf(user);
        if (here) await addReactions(this.ctx.db, target, here.id, [reaction.emoji], reactedAt ?? nowIso());
      }
    }
  }

  // ---- OpenAPI specifications and translation settings

  private async specs(o: string, target: string): Promise<void> {
    const specs = await this.item('openapi-specs', o, () => this.source.list<SourceSpec>(`OpenAPI specifications of ${o}`, (c, p) => c.orgs.listOpenApiSpecs(o, p)));
    for (const spec of specs ?? []) {
      await this.item('openapi-spec', spec.id, async () => {
        let source: { url: string } | { text: string };
        if (spec.sourceURL) source = { url: spec.sourceURL };
        else {
          const content = await this.source.read<{ filesystem?: Record<string, unknown> }>(`OpenAPI specification ${spec.slug}`, (c) => c.orgs.getLatestOpenApiSpecVersionContent(o, spec.slug));
          const documents = Object.values(content.filesystem ?? {});
          if (documents.length !== 1) throw new Error(`the source gives ${documents.length} files for its latest version; one document was expected`);
          source = { text: typeof documents[0] === 'string' ? documents[0] : JSON.stringify(documents[0]) };
        }
        const fingerprint = fingerprintOf({ slug: spec.slug, source });
        const existing = await this.mapped('openapi-spec', spec.id);
        if (existing?.fingerprint === fingerprint) return;
        const view = existing ? await putSpec(this.ctx, this.actor, target, spec.slug, { source }) : await createSpec(this.ctx, this.actor, target, { slug: spec.slug, source });
        await this.remember('openapi-spec', spec.id, view.spec.id, fingerprint);
        this.count('openapiSpecs');
      });
    }
  }

  private async translations(o: string, target: string): Promise<void> {
    const settings = await this.item('translations', o, () => this.source.list<SourceTranslation>(`translation settings of ${o}`, (c, p) => c.orgs.listTranslations(o, p)));
    for (const entry of settings ?? []) {
      await this.item('translation-settings', entry.id, async () => {
        const input = { title: entry.title, languages: (entry.languages ?? []) as never[] };
        const fingerprint = fingerprintOf(input);
        const existing = await this.mapped('translation-settings', entry.id);
        if (existing?.fingerprint === fingerprint) return;
        const view = existing
          ? await updateTranslationSettings(this.ctx, this.actor, target, existing.target_id, input)
          : await createTranslationSettings(this.ctx, this.actor, target, input);
        await this.remember('translation-settings', entry.id, view.settings.id, fingerprint);
        this.count('translationSettings');
      });
    }
  }

  // ---- sites

  private async sites(o: string, target: string, spaces: Map<string, string>): Promise<void> {
    const sites = await this.item('sites', o, () => this.source.list<SourceSite>(`sites of ${o}`, (c, p) => c.orgs.listSites(o, p)));
    for (const site of sites ?? []) await this.item('site', site.id, () => this.site(o, target, site, spaces));
  }

  private async site(o: string, target: string, site: SourceSite, spaces: Map<string, string>): Promise<void> {
    const s = site.id;
    const sections = await this.source.list<SourceSection>(`sections of site ${s}`, (c, p) => c.orgs.listSiteSections(o, s, p));
    const groups = await this.source.list<SourceSectionGroup>(`section groups of site ${s}`, (c, p) => c.orgs.listSiteSectionGroups(o, s, p));
    const siteSpaces = await this.source.list<SourceSiteSpace>(`site spaces of site ${s}`, (c, p) => c.orgs.listSiteSpaces(o, s, p));
    const shareLinks = await this.source.list<SourceShareLink>(`share links of site ${s}`, (c, p) => c.orgs.listSiteShareLinks(o, s, p));
    // What is copied, and nothing that moves by itself (the site space's embedded space carries its revision).
    const fingerprint = fingerprintOf({
      site: { title: site.title, visibility: site.visibility, basename: site.basename },
      sections: sections.map((x) => [x.id, x.title, x.path, x.icon, x.description, x.default]),
      groups: groups.map((g) => [g.id, g.title, g.icon, (g.sections ?? []).map((x) => x.id)]),
      siteSpaces: siteSpaces.map((x) => [x.id, x.path, x.default, x.section, x.space?.id]),
      shareLinks: shareLinks.map((l) => [l.id, l.name, l.active]),
    });
    const existing = await this.mapped('site', s);
    if (existing?.fingerprint === fingerprint) return;
    if (existing) {
      // The structure is copied once: rebuilding it would give its site spaces and share links new ids and keys.
      await updateSite(this.ctx, this.actor, target, existing.target_id, { title: site.title.slice(0, 128) });
      await this.remember('site', s, existing.target_id, fingerprint);
      this.skip('site', s, 'changed at the source since the last migration: its title was updated here; changes of its sections, site spaces and share links are not copied again');
      return;
    }
    const spaceOf = new Map<string, string>();
    const item = (siteSpace: SourceSiteSpace): SiteSpaceItem | undefined => {
      const space = siteSpace.space?.id ? spaces.get(siteSpace.space.id) : undefined;
      if (!space) {
        this.skip('site-space', siteSpace.id, `its space "${siteSpace.space?.id ?? '?'}" was not copied`);
        return undefined;
      }
      spaceOf.set(siteSpace.id, space);
      return { type: 'space', key: siteSpace.id, directory: '', default: siteSpace.default === true, ...(siteSpace.path ? { path: siteSpace.path } : {}) };
    };
    const sectionItem = (section: SourceSection): SiteSectionItem | undefined => {
      const children = siteSpaces.filter((ss) => ss.section === section.id).map(item).filter((c): c is SiteSpaceItem => !!c);
      if (children.length === 0) {
        this.skip('site-section', section.id, 'none of its site spaces was copied');
        return undefined;
      }
      return {
        type: 'section',
        key: section.id,
        default: section.default === true,
        children,
        ...(section.title ? { title: section.title } : {}),
        ...(section.path ? { path: section.path } : {}),
        ...(section.icon ? { icon: section.icon } : {}),
        ...(section.description ? { description: section.description } : {}),
      };
    };
    const structure: SitePlan['structure'] = [];
    if (sections.length === 0) structure.push(...siteSpaces.map(item).filter((c): c is SiteSpaceItem => !!c));
    else {
      const groupOf = new Map(groups.flatMap((g) => (g.sections ?? []).map((section) => [section.id, g] as const)));
      const emitted = new Set<string>();
      for (const section of sections) {
        const group = groupOf.get(section.id);
        if (!group) {
          const made = sectionItem(section);
          if (made) structure.push(made);
        } else if (!emitted.has(group.id)) {
          emitted.add(group.id);
          const children = sections.filter((other) => groupOf.get(other.id) === group).map(sectionItem).filter((c): c is SiteSectionItem => !!c);
          if (children.length > 0) {
            const made: SiteSectionGroupItem = { type: 'section-group', key: group.id, children, ...(group.title ? { title: group.title } : {}), ...(group.icon ? { icon: group.icon } : {}) };
            structure.push(made);
          }
        }
      }
    }
    let siteId: string | undefined;
    siteId = await buildSite(this.ctx, this.actor, target, { title: site.title, structure }, spaceOf, site.title, async (id) => {
      siteId = id;
      await this.remember('site', s, id, null);
    });
    const patch = {
      ...(site.visibility && site.visibility !== 'private' ? { visibility: site.visibility as never } : {}),
      ...(site.basename ? { basename: site.basename } : {}),
    };
    if (Object.keys(patch).length > 0) await updateSite(this.ctx, this.actor, target, siteId, patch).catch((error: unknown) => this.skip('site-settings', s, error));
    for (const link of shareLinks) {
      await this.item('share-link', link.id, async () => {
        const made = await createShareLink(this.ctx, this.actor, target, siteId!, { name: link.name.slice(0, 50) });
        if (link.active === false) await updateShareLink(this.ctx, this.actor, target, siteId!, made.link.id, { active: false });
        await this.remember('share-link', link.id, made.link.id, null);
        this.count('shareLinks');
      });
    }
    await this.remember('site', s, siteId, fingerprint);
    this.count('sites');
  }
}

/** git's empty tree: the base of a tree written from nothing. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

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

  const run = new Migration(ctx, source, actor, progress);
  for (const organization of chosen) {
    try {
      await run.organization(organization, options.into);
    } catch (error) {
      if (error instanceof InvalidArgument || error instanceof SourceFailure) run.report.skipped.push({ kind: 'organization', id: organization.id, reason: error.message });
      else throw error;
    }
  }
  return run.report;
}
