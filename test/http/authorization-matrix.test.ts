import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { ADAPTIVE_SCHEMA, buildWorld, fillPath, paramsFor, publishedOperations, type Operation, type World } from '../helpers/world.js';
import { zipOf } from '../helpers/web.js';
import { addMember } from '../../src/domain/members/members.js';
import { atLeast, ROLES, type Role } from '../../src/domain/permissions.js';

/**
 * Every operation of /v1/openapi.json x every kind of caller: each organization role, a guest with a grant of read on
 * the world's space, a member of another organization, another organization's admin, and no token. What each caller may
 * do is written below from the permission rules (src/domain/permissions.ts), not from the answers. A caller the rules
 * refuse must be refused with the status `refusal` gives (401 without a token, 404 where they may not see, 403 where
 * they see but may not act); no answer may be a 5xx; a caller the rules allow must get through authorization (2xx, or a
 * 400 / 409 about the request itself).
 */

type CallerName = Role | 'guest' | 'otherMember' | 'otherAdmin' | 'none';

/** Weakest first: on operations that remove their target, the callers who must be refused come before those who may. */
const CALLERS: CallerName[] = ['none', 'otherMember', 'otherAdmin', 'guest', 'read', 'comment', 'edit', 'review', 'create', 'admin'];

/** What a caller is in the world's organization, and their role on its space (the guest's grant is read). */
interface Who {
  org: Role | 'guest' | null;
  space: Role | null;
}

function whoIs(name: CallerName): Who {
  if (name === 'none' || name === 'otherMember' || name === 'otherAdmin') return { org: null, space: null };
  if (name === 'guest') return { org: 'guest', space: 'read' };
  return { org: name, space: name };
}

const anyone = () => true;
const member = (w: Who) => w.org !== null;
const nonGuest = (w: Who) => w.org !== null && w.org !== 'guest';
const org = (role: Role) => (w: Who) => nonGuest(w) && atLeast(w.org as Role, role);
/** The space's role; the collection above it gives non-guests their organization role (no grants, no default levels). */
const space = (role: Role) => (w: Who) => atLeast(w.space, role);
const collection = (role: Role) => org(role);

/** Who may call each operation (the world: the space is private, in a collection; the site's visibility is share-link). */
const RULES: Record<string, (w: Who) => boolean> = {
  // organizations: any member reads it; admins change it; the e-mail-domain lookup and the user's own list are for anyone
  listOrganizationsForAuthenticatedUser: anyone,
  // users: oneself for anyone; another user for whoever shares an organization with them
  getAuthenticatedUser: anyone,
  getCurrentSession: anyone,
  signOut: anyone,
  listUserSessions: anyone,
  revokeUserSession: anyone,
  signOutEverywhere: anyone,
  changeUserPassword: anyone,
  listUserTokens: anyone,
  createUserToken: anyone,
  revokeUserToken: anyone,
  getUserById: member,
  getOrganizationsForEmailDomain: anyone,
  getOrganizationById: member,
  updateOrganizationById: org('admin'),
  searchOrganizationContent: member,
  // invite links are managed by admins; whoever holds an invite's id may read it and join with it
  listOrganizationInviteLinks: org('admin'),
  createOrganizationInvite: org('admin'),
  updateOrganizationInviteById: org('admin'),
  deleteOrganizationInviteById: org('admin'),
  getOrganizationInviteLink: anyone,
  getOrganizationInviteToJoin: anyone,
  // the imports of a space as they stand (a Quire extension): its readers
  listContentImports: space('read'),
  getContentImport: space('read'),
  joinOrganizationWithInvite: anyone,
  // members: non-guests list and read members (listMembers); admins change them; a member's spaces are for admins
  listMembersInOrganizationById: nonGuest,
  getMemberInOrganizationById: nonGuest,
  removeMemberFromOrganizationById: org('admin'),
  updateMemberInOrganizationById: org('admin'),
  updateOrganizationMemberLastSeenAt: member,
  setUserAsSSOMemberForOrganization: org('admin'),
  listSpacesForOrganizationMember: org('admin'),
  listTeamsForOrganizationMember: nonGuest,
  // teams: non-guests see them, org admins (or the team's owners, none here) manage them
  listTeamsInOrganizationById: nonGuest,
  createOrganizationTeam: org('admin'),
  getTeamInOrganizationById: nonGuest,
  removeTeamFromOrganizationById: org('admin'),
  updateTeamInOrganizationById: org('admin'),
  listTeamMembersInOrganizationById: nonGuest,
  updateMembersInOrganizationTeam: org('admin'),
  addMemberToOrganizationTeamById: org('admin'),
  deleteMemberFromOrganizationTeamById: org('admin'),
  // SAML providers are for admins; any member lists the sign-in links
  listSAMLProvidersInOrganizationById: org('admin'),
  createOrganizationSAMLProvider: org('admin'),
  getOrganizationSAMLProviderById: org('admin'),
  deleteOrganizationSAMLProvider: org('admin'),
  updateOrganizationSAMLProvider: org('admin'),
  listSSOProviderLoginsInOrganization: member,
  // the organization's OpenID Connect provider: admins only (its client secret is never returned)
  getOrganizationOIDCProvider: org('admin'),
  setOrganizationOIDCProvider: org('admin'),
  deleteOrganizationOIDCProvider: org('admin'),
  // translation settings: non-guests see them, admins change them
  listTranslations: nonGuest,
  createTranslation: org('admin'),
  getTranslation: nonGuest,
  updateTranslation: org('admin'),
  deleteTranslation: org('admin'),
  // collections: read to see, admin to change, create to make content in the organization or a collection
  getCollectionById: collection('read'),
  listSpacesInCollectionById: collection('read'),
  deleteCollectionById: collection('admin'),
  updateCollectionById: collection('admin'),
  moveCollection: collection('admin'),
  transferCollection: collection('admin'),
  listCollectionsInOrganizationById: member,
  createCollection: org('create'),
  // spaces: read to see, edit to change the title, admin to delete, restore, move, transfer; duplicating creates in
  // the space's collection
  getSpaceById: space('read'),
  updateSpaceById: space('edit'),
  deleteSpaceById: space('admin'),
  restoreSpace: space('admin'),
  moveSpace: space('admin'),
  transferSpace: space('admin'),
  duplicateSpace: (w) => space('read')(w) && collection('create')(w),
  listSpacesInOrganizationById: member,
  createSpace: org('create'),
  // content and change-request content: read; imports: edit
  getCurrentRevision: space('read'),
  getRevisionById: space('read'),
  listPages: space('read'),
  listFiles: space('read'),
  getFileById: space('read'),
  getPageById: space('read'),
  getPageHtml: space('read'),
  getPageHtmlInRevision: space('read'),
  getPageByPath: space('read'),
  listPagesInRevisionById: space('read'),
  getPageInRevisionById: space('read'),
  getPageInRevisionByPath: space('read'),
  // the history of main's revisions (a Quire extension): read, as the content
  listSpaceRevisions: space('read'),
  downloadFile: space('read'),
  importContent: space('edit'),
  importContentInChangeRequest: space('edit'),
  importGitRepository: space('edit'),
  importRepositoryIntoOrganization: org('create'),
  importRepositoryUploadIntoOrganization: org('create'),
  // Git Sync: admins connect and disconnect, readers see the state, editors run it (the reference's triggerGitSync)
  connectGitSync: space('admin'),
  getGitSync: space('read'),
  disconnectGitSync: space('admin'),
  runGitSync: space('edit'),
  exportToGitRepository: space('edit'),
  // change requests: read to see, edit to open, change and update from main, review to merge
  listChangeRequestsForSpace: space('read'),
  createChangeRequest: space('edit'),
  getChangeRequestById: space('read'),
  updateChangeRequestById: space('edit'),
  getRevisionOfChangeRequestById: space('read'),
  listPagesInChangeRequest: space('read'),
  listFilesInChangeRequestById: space('read'),
  getFileInChangeRequestById: space('read'),
  getPageInChangeRequestById: space('read'),
  getPageHtmlInChangeRequest: space('read'),
  mergeChangeRequest: space('review'),
  updateChangeRequest: space('edit'),
  getChangeRequestPDF: space('read'),
  // reviews: read to see them and the requested reviewers, review to submit one, edit (or being the author) to request
  // reviewers and take requests back
  getReviewsByChangeRequestId: space('read'),
  getChangeRequestReviewById: space('read'),
  submitChangeRequestReview: space('review'),
  getRequestedReviewersByChangeRequestId: space('read'),
  requestReviewersForChangeRequest: space('edit'),
  removeRequestedReviewerFromChangeRequest: space('edit'),
  // merge rules (a Quire extension): members read the organization's default, its admins set it; read on a space to
  // see its effective rules and a change request's mergeability, the space's admin to set them
  getOrganizationMergeRules: member,
  setOrganizationMergeRules: org('admin'),
  getSpaceMergeRules: space('read'),
  setSpaceMergeRules: space('admin'),
  getChangeRequestMergeability: space('read'),
  // a change request's preview (a Quire extension): read to find it; edit to share it with a link
  getChangeRequestPreview: space('read'),
  createChangeRequestPreviewLink: space('edit'),
  revokeChangeRequestPreviewLinks: space('edit'),
  // a change request's events: as reading it (the matrix asks without Accept: text/event-stream, which allowed callers
  // are then told, 400: a stream would never end; test/http/change-request-events.test.ts opens real ones)
  streamChangeRequestEvents: space('read'),
  // what a change request or a revision changes, and a change request's page block by block: read
  getChangeRequestChanges: space('read'),
  getRevisionSemanticChanges: space('read'),
  getChangeRequestPageDiff: space('read'),
  // comments: read to see, comment to post, resolve and react; editing or deleting another's needs admin
  listCommentsInSpace: space('read'),
  postCommentInSpace: space('comment'),
  getCommentInSpace: space('read'),
  updateCommentInSpace: space('comment'),
  deleteCommentInSpace: space('admin'),
  postCommentReplyInSpace: space('comment'),
  getCommentReplyInSpace: space('read'),
  updateCommentReplyInSpace: space('comment'),
  deleteCommentReplyInSpace: space('admin'),
  listCommentRepliesInSpace: space('read'),
  listCommentersInSpace: space('read'),
  listCommentsInChangeRequest: space('read'),
  postCommentInChangeRequest: space('comment'),
  getCommentInChangeRequest: space('read'),
  updateCommentInChangeRequest: space('comment'),
  deleteCommentInChangeRequest: space('admin'),
  postCommentReplyInChangeRequest: space('comment'),
  getCommentReplyInChangeRequest: space('read'),
  updateCommentReplyInChangeRequest: space('comment'),
  deleteCommentReplyInChangeRequest: space('admin'),
  listCommentRepliesInChangeRequest: space('read'),
  listCommentersInChangeRequest: space('read'),
  // OpenAPI specs: every member (guests too) reads them; createOpenAPISpec (create) changes them
  listOpenAPISpecs: member,
  createOpenAPISpec: org('create'),
  getOpenAPISpecBySlug: member,
  createOrUpdateOpenAPISpecBySlug: org('create'),
  deleteOpenAPISpecBySlug: org('create'),
  listOpenAPISpecVersions: member,
  getLatestOpenAPISpecVersion: member,
  getLatestOpenAPISpecVersionContent: member,
  getOpenAPISpecVersionById: member,
  getOpenAPISpecVersionContentById: member,
  // sites: non-guests see them (the site is share-link, so without a key nobody else does); create manages them
  listSites: nonGuest,
  createSite: org('create'),
  getSiteById: nonGuest,
  deleteSiteById: org('create'),
  updateSiteById: org('create'),
  getSiteAdaptiveSchema: nonGuest,
  updateSiteAdaptiveSchema: org('create'),
  listSiteAdaptiveTemplateConditions: nonGuest,
  // the visitor signing key (a Quire extension) opens a visitor-auth site to anyone: admins only
  getSiteVisitorKey: org('admin'),
  rotateSiteVisitorKey: org('admin'),
  // a preview URL opens the site to anyone for an hour: those who may edit it
  getSitePublishingPreviewById: org('create'),
  // the site's visitors' OpenID Connect provider (a Quire extension): admins only, as the visitor key
  getSiteVisitorOIDCProvider: org('admin'),
  setSiteVisitorOIDCProvider: org('admin'),
  deleteSiteVisitorOIDCProvider: org('admin'),
  // readers' feedback on the site's pages (a Quire extension): those who manage the site
  listSitePageFeedback: org('create'),
  listSitePageFeedbackSummary: org('create'),
  getPublishedContentSite: nonGuest,
  getSiteStructure: nonGuest,
  sortSiteStructure: org('create'),
  listSiteSections: nonGuest,
  getSiteSectionById: nonGuest,
  addSectionToSite: org('create'),
  deleteSiteSectionById: org('create'),
  updateSiteSectionById: org('create'),
  moveSiteSection: org('create'),
  listSiteSectionGroups: nonGuest,
  getSiteSectionGroupById: nonGuest,
  addSectionGroupToSite: org('create'),
  deleteSiteSectionGroupById: org('create'),
  updateSiteSectionGroupById: org('create'),
  addSectionToGroup: org('create'),
  removeSectionFromGroup: org('create'),
  moveSiteSectionGroup: org('create'),
  listSiteSpaces: nonGuest,
  getSiteSpaceById: nonGuest,
  addSpaceToSite: org('create'),
  deleteSiteSpaceById: org('create'),
  updateSiteSpaceById: org('create'),
  moveSiteSpace: org('create'),
  listSiteShareLinks: org('create'),
  getSiteShareLinkById: org('create'),
  createSiteShareLink: org('create'),
  deleteSiteShareLinkById: org('create'),
  updateSiteShareLinkById: org('create'),
  // links, backlinks and search in a space: read
  listSpaceLinks: space('read'),
  listPageLinksInSpace: space('read'),
  listPageLinksInChangeRequest: space('read'),
  listSpaceFileBacklinks: space('read'),
  listChangeRequestFileBacklinks: space('read'),
  searchSpaceContent: space('read'),
};

/** Operations that remove or move their target away: they run last, and once an allowed caller did it, it is gone. */
const REMOVES = new Set(['mergeChangeRequest', 'moveSpace', 'moveCollection', 'transferSpace', 'transferCollection', 'removeSectionFromGroup']);
/** Operations that take a space or collection away get one of their own, so the others keep the world's. */
/**
 * Operations on the caller's own sessions and tokens: the world's ids name none of theirs, and an API token has no
 * session, so allowed callers find nothing.
 */
const OWN_ONLY = new Set(['getCurrentSession', 'revokeUserSession', 'revokeUserToken']);
const OWN_TARGET = new Set(['deleteSpaceById', 'moveSpace', 'transferSpace', 'deleteCollectionById', 'moveCollection', 'transferCollection']);
/** Joining changes who the callers are: it runs after everything else. */
const LAST = 'joinOrganizationWithInvite';

/**
 * The status of a refusal: 401 without a token; 404 for what the caller cannot see (nothing of the organization for
 * outsiders; for the guest, the collections, teams, translation settings and sites named in the path); 403 for what
 * they see but may not do (members who are not guests see all of the organization here: no space is hidden from them).
 */
function refusal(name: CallerName, op: Operation): number {
  if (name === 'none') return 401;
  if (name === 'otherMember' || name === 'otherAdmin') return 404;
  // Deleting a team checks the organization role before looking the team up: a guest gets the same 403 for any id.
  if (name === 'guest' && op.operationId !== 'removeTeamFromOrganizationById' && /\{(collectionId|teamId|translationSettingsId|siteId)\}/.test(op.path)) {
    return 404;
  }
  return 403;
}

function runOrder(operations: Operation[]): Operation[] {
  const removes = (op: Operation) => op.method === 'DELETE' || REMOVES.has(op.operationId);
  const depth = (op: Operation) => op.path.split('/').length;
  const rest = operations.filter((op) => !removes(op) && op.operationId !== LAST);
  return [...rest, ...operations.filter(removes).sort((a, b) => depth(b) - depth(a)), ...operations.filter((op) => op.operationId === LAST)];
}

describe.each(DATABASE_KINDS)('authorization matrix (%s)', (kind) => {
  let t: TestApp;
  let world: World;
  let operations: Operation[];
  const callers = new Map<CallerName, TestUser | null>();
  let target: string;
  /** An invite of its own for joining: the world's is deleted before. */
  let joinInvite: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    world = await buildWorld(t, await t.listen());
    // Signing in needs no credentials: there is no permission to check (test/http/sessions.test.ts).
    operations = (await publishedOperations(t)).filter((op) => !op.public);
    callers.set('none', null);
    callers.set('admin', world.admin);
    for (const role of ROLES.filter((r) => r !== 'admin')) callers.set(role, await t.member(world.organizationId, role));
    const guest = await t.member(world.organizationId, null);
    await t.grant(world.organizationId, { space: world.params.spaceId }, { user: guest.user.id }, 'read');
    callers.set('guest', guest);
    const other = await t.organization('Elsewhere');
    callers.set('otherAdmin', other.admin);
    callers.set('otherMember', await t.member(other.id, 'read'));
    // The transfers' target: an organization the world's admin also administers.
    const destination = await t.organization('Destination');
    await addMember(t.container.ctx, destination.id, world.admin.user.id, 'admin');
    target = destination.id;
    // An OpenID Connect provider, so that reading it finds one (whatever the order of the operations).
    const oidc = { issuer: 'https://idp.example.com', clientId: 'quire', clientSecret: 'a secret' };
    expect((await t.request('PUT', `/v1/orgs/${world.organizationId}/oidc`, { token: world.admin.token, body: oidc })).status).toBe(200);
    const siteOidc = `/v1/orgs/${world.organizationId}/sites/${world.params.siteId}/visitor-oidc`;
    expect((await t.request('PUT', siteOidc, { token: world.admin.token, body: oidc })).status).toBe(200);
    joinInvite = (await t.request('POST', `/v1/orgs/${world.organizationId}/link-invites`, { token: world.admin.token, body: { role: 'read' } })).body.id;
  });
  afterAll(async () => t?.close());

  /** A new space in a new collection (the guest granted read on it, as on the world's), or a new collection. */
  async function ownTarget(op: Operation): Promise<Record<string, string>> {
    const token = world.admin.token;
    const organization = world.organizationId;
    const collection = (await t.request('POST', `/v1/orgs/${organization}/collections`, { token, body: { title: 'Own' } })).body.id as string;
    if (!op.path.includes('{spaceId}')) return { collectionId: collection };
    const spaceId = (await t.request('POST', `/v1/orgs/${organization}/spaces`, { token, body: { title: 'Own', parent: collection } })).body.id as string;
    await t.grant(organization, { space: spaceId }, { user: callers.get('guest')!.user.id }, 'read');
    return { spaceId };
  }

  /** A body the operation's schema accepts; `n` keeps names unique per call. */
  function bodyFor(operationId: string, n: number): { body?: unknown; rawBody?: Buffer; headers?: Record<string, string> } {
    const p = world.params;
    const bodies: Record<string, unknown> = {
      updateOrganizationById: { title: 'World' },
      changeUserPassword: { currentPassword: 'not the password', newPassword: 'a new long password' },
      createUserToken: { label: `Token ${n}` },
      createOrganizationInvite: { role: 'read' },
      updateOrganizationInviteById: { role: 'read' },
      updateMemberInOrganizationById: { role: 'read' },
      createOrganizationTeam: { title: `Team ${n}` },
      updateTeamInOrganizationById: { title: 'Writers' },
      updateMembersInOrganizationTeam: { add: [p.userId] },
      addMemberToOrganizationTeamById: { role: 'member' },
      createOrganizationSAMLProvider: { label: `Provider ${n}` },
      updateOrganizationSAMLProvider: { label: 'Okta' },
      setOrganizationOIDCProvider: { issuer: 'https://idp.example.com', clientId: 'quire', clientSecret: `secret-${n}` },
      createTranslation: { title: `Translation ${n}` },
      updateTranslation: { title: 'French' },
      updateCollectionById: { title: 'Guides' },
      moveCollection: { parent: null },
      transferCollection: { organization: target },
      createCollection: { title: `Collection ${n}` },
      updateSpaceById: { title: 'Handbook' },
      moveSpace: { parent: null },
      transferSpace: { organization: target },
      createSpace: { title: `Space ${n}` },
      importContent: { url: 'http://127.0.0.1:9/page.md', source: 'markdown' },
      importContentInChangeRequest: { url: 'http://127.0.0.1:9/page.md', source: 'markdown' },
      postCommentInSpace: { body: { markdown: 'Hello' } },
      updateCommentInSpace: { resolved: true },
      postCommentReplyInSpace: { body: { markdown: 'Hello' } },
      updateCommentReplyInSpace: { addedReactions: ['👍'] },
      postCommentInChangeRequest: { body: { markdown: 'Hello' } },
      updateCommentInChangeRequest: { resolved: true },
      postCommentReplyInChangeRequest: { body: { markdown: 'Hello' } },
      updateCommentReplyInChangeRequest: { addedReactions: ['👍'] },
      createChangeRequest: { subject: `Change ${n}` },
      updateChangeRequestById: { subject: 'A change' },
      // The world's admin opened the change request: as its author, an approval would be a conflict.
      submitChangeRequestReview: { status: 'changes-requested' },
      requestReviewersForChangeRequest: { users: [p.userId] },
      // Rules that block nothing: the matrix's merges stay about permissions.
      setOrganizationMergeRules: { requiredApprovals: 0 },
      setSpaceMergeRules: { requiredApprovals: 0 },
      createOpenAPISpec: { slug: `spec-${n}`, source: { text: 'openapi: 3.0.0\ninfo: {title: X, version: "1"}\npaths: {}\n' } },
      createOrUpdateOpenAPISpecBySlug: { source: { text: 'openapi: 3.0.0\ninfo: {title: Pets, version: "2"}\npaths: {}\n' } },
      createSite: { title: `Site ${n}` },
      updateSiteById: { title: 'Docs' },
      updateSiteAdaptiveSchema: { jsonSchema: ADAPTIVE_SCHEMA },
      setSiteVisitorOIDCProvider: { issuer: 'https://login.example.com', clientId: 'quire', clientSecret: 'a client secret' },
      sortSiteStructure: { item: { type: 'site-section', id: p.siteSectionId }, position: {} },
      addSectionToSite: { spaceId: p.spaceId, title: `Section ${n}` },
      updateSiteSectionById: { title: 'Handbook' },
      moveSiteSection: { position: {} },
      addSectionGroupToSite: { title: `Group ${n}` },
      updateSiteSectionGroupById: { title: 'Reference' },
      addSectionToGroup: { sectionId: p.siteSectionId },
      moveSiteSectionGroup: { position: {} },
      addSpaceToSite: { spaceId: p.spaceId, sectionId: p.siteSectionId },
      updateSiteSpaceById: { path: `handbook-${n}` },
      moveSiteSpace: { position: {} },
      createSiteShareLink: { name: `Link ${n}` },
      updateSiteShareLinkById: { name: 'Partners' },
      importRepositoryIntoOrganization: { url: 'http://127.0.0.1:9/repo.git' },
      importGitRepository: { url: 'http://127.0.0.1:9/repo.git', ref: 'main' },
      connectGitSync: { url: 'http://127.0.0.1:9/docs.git', firstSync: 'import' },
      exportToGitRepository: { url: 'http://127.0.0.1:9/docs.git', ref: 'refs/heads/main', commitMessage: 'Export' },
    };
    if (operationId === 'importRepositoryUploadIntoOrganization') {
      return { rawBody: zipOf({ [`docs-${n}/README.md`]: '# Imported\n' }), headers: { 'content-type': 'application/zip' } };
    }
    return operationId in bodies ? { body: bodies[operationId] } : {};
  }

  it('refuses every caller the permission rules refuse, lets through those they allow, and never answers 5xx', async () => {
    const missing = operations.map((op) => op.operationId).filter((id) => !(id in RULES));
    expect(missing, 'operations without a rule in the matrix').toEqual([]);
    const leaks: string[] = [];
    const wrong: string[] = [];
    const neverAllowed: string[] = [];
    let n = 0;
    for (const op of runOrder(operations)) {
      const removes = op.method === 'DELETE' || REMOVES.has(op.operationId);
      let done = false;
      let succeeded = false;
      let lastAllowed = '';
      const own = OWN_TARGET.has(op.operationId) ? await ownTarget(op) : {};
      for (const name of CALLERS) {
        const caller = callers.get(name)!;
        const allowed = name !== 'none' && RULES[op.operationId](whoIs(name));
        const url = fillPath(op.path, { ...paramsFor(world, op.path), ...own, ...(op.operationId === LAST ? { inviteId: joinInvite } : {}) });
        n += 1;
        const { body, rawBody, headers } = bodyFor(op.operationId, n);
        const query = op.parameters.some((p) => p.name === 'query' && p.in === 'query') ? { query: 'install' } : undefined;
        const res = await t.request(op.method, url, { token: caller?.token ?? null, body, rawBody, headers, query, unchecked: true });
        const line = `${op.operationId} as ${name}: ${res.status} ${JSON.stringify(res.body ?? '').slice(0, 160)}`;
        if (res.status >= 500) {
          wrong.push(`${line} (a 5xx)`);
        } else if (!allowed) {
          const expected = [refusal(name, op)];
          if (res.status < 300) leaks.push(`${line} (the rules refuse this caller)`);
          else if (!expected.includes(res.status)) wrong.push(`${line} (a refusal should be ${expected.join(' or ')})`);
        } else {
          // Allowed: through authorization. After an allowed caller removed the target, the next ones find it gone.
          const passed = res.status < 300 || res.status === 400 || res.status === 409 || (removes && done && res.status === 404) || (OWN_ONLY.has(op.operationId) && res.status === 404);
          if (!passed) wrong.push(`${line} (the rules allow this caller)`);
          lastAllowed = line;
          if (res.status < 300) {
            succeeded = true;
            if (removes) done = true;
          }
        }
      }
      if (!succeeded) neverAllowed.push(lastAllowed);
    }
    console.log(`authorization matrix (${kind}): ${n} requests; no caller got a 2xx on:\n${neverAllowed.join('\n') || 'none'}`);
    expect({ leaks, wrong }, 'leaks (a 2xx where the rules refuse); refusals in the wrong code, allowed callers refused, or 5xx').toEqual({ leaks: [], wrong: [] });
  }, 600_000);
});
