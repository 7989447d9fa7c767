/**
 * One organization with one of everything the API serves, made through the API as its admin, so that every
 * operation of `/v1/openapi.json` can be called with ids that exist: a space with pages, a file and an image, a change
 * request, comments and replies on both, a review of the change request and a requested reviewer, a collection, a
 * team, an invite link, a SAML provider, translation settings, an OpenAPI spec with a version, a site with a section,
 * a section group, site spaces and a share link (and, written to the store, a failed import and a Git Sync
 * connection). The fuzz and authorization-matrix suites use it.
 */
import { expect } from 'vitest';
import type { TestApp, TestUser } from './app.js';
import { tinyPng } from './content.js';
import { Checkout, spaceRemote } from './git.js';
import { insertContentImport } from '../../src/store/sql/imports.js';
import { saveGitSyncConnection } from '../../src/store/sql/git-sync.js';
import { waitFor } from './wait.js';

export interface World {
  organizationId: string;
  admin: TestUser;
  /** A plain member (role `read`) whose user id is the `userId` parameter. */
  member: TestUser;
  /** Path parameter name -> an existing value (`*` is a page path, `oid` and `name` a file download). */
  params: Record<string, string>;
  /** The comment and reply ids under the change request (its paths name them with the same parameters). */
  changeRequestParams: Record<string, string>;
}

/** The existing values for the parameters of a path template. */
export function paramsFor(world: World, template: string): Record<string, string> {
  return template.includes('/change-requests/{changeRequestId}/comments') ? { ...world.params, ...world.changeRequestParams } : world.params;
}

const PETSTORE = `openapi: 3.0.0
info: { title: Pets, version: '1' }
paths:
  /pets:
    get:
      responses:
        '200': { description: ok }
`;

/** A site's visitor-claims schema the API accepts. */
export const ADAPTIVE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { beta: { type: 'boolean', description: 'Beta testers' } },
  additionalProperties: false,
};

export async function buildWorld(t: TestApp, base: string): Promise<World> {
  const org = await t.organization('World');
  const token = org.admin.token;
  const member = await t.member(org.id, 'read');
  async function created(method: string, url: string, body?: unknown): Promise<any> {
    const res = await t.request(method, url, { token, body, unchecked: true });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  }

  const collection = await created('POST', `/v1/orgs/${org.id}/collections`, { title: 'Guides' });
  const space = await created('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Handbook', parent: collection.id });
  const second = await created('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Second' });
  const checkout = await Checkout.clone(spaceRemote(base, token, space.id));
  await checkout.write('SUMMARY.md', '# Table of contents\n\n* [Welcome](README.md)\n* [Install](guide/install.md)\n');
  await checkout.write('README.md', '# Welcome\n\nSee [install](guide/install.md) and ![hero](.gitbook/assets/hero.png).\n');
  await checkout.write('guide/install.md', '---\ndescription: How to install\n---\n\n# Install\n\nRun it.\n');
  await checkout.write('.gitbook/assets/hero.png', tinyPng(4, 3));
  await checkout.commitAndPush('content');
  await checkout.dispose();

  const revision = await created('GET', `/v1/spaces/${space.id}/content`);
  const pages = (await created('GET', `/v1/spaces/${space.id}/content/pages`)).pages;
  const file = (await created('GET', `/v1/spaces/${space.id}/content/files`)).items[0];
  const [, oid, name] = new URL(file.downloadURL).pathname.match(/\/files\/([^/]+)\/([^/]+)$/)!;

  const changeRequest = await created('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'A change' });
  const crUrl = `/v1/spaces/${space.id}/change-requests/${changeRequest.number}`;
  const comment = await created('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: 'A comment' } });
  const reply = await created('POST', `/v1/spaces/${space.id}/comments/${comment.id}/replies`, { body: { markdown: 'A reply' } });
  const crComment = await created('POST', `${crUrl}/comments`, { body: { markdown: 'On the change' } });
  const crReply = await created('POST', `${crUrl}/comments/${crComment.id}/replies`, { body: { markdown: 'A reply' } });
  const review = await created('POST', `${crUrl}/reviews`, { status: 'changes-requested', comment: { markdown: 'Needs work' } });
  await created('POST', `${crUrl}/requested-reviewers`, { users: [member.user.id] });

  const team = await created('PUT', `/v1/orgs/${org.id}/teams`, { title: 'Writers', members: [member.user.id] });
  const invite = await created('POST', `/v1/orgs/${org.id}/link-invites`, { role: 'read' });
  const saml = await created('POST', `/v1/orgs/${org.id}/saml`, { label: 'Okta' });
  const translation = await created('POST', `/v1/orgs/${org.id}/translations`, { title: 'French' });
  await created('POST', `/v1/orgs/${org.id}/openapi`, { slug: 'pets', source: { text: PETSTORE } });
  const spec = await waitFor(() => created('GET', `/v1/orgs/${org.id}/openapi/pets`), { until: (read) => Boolean(read.lastVersion), what: 'the OpenAPI spec to get a version' });

  const site = await created('POST', `/v1/orgs/${org.id}/sites`, { title: 'Docs' });
  const siteUrl = `/v1/orgs/${org.id}/sites/${site.id}`;
  const section = await created('POST', `${siteUrl}/sections`, { spaceId: space.id });
  const grouped = await created('POST', `${siteUrl}/sections`, { spaceId: second.id });
  const group = await created('POST', `${siteUrl}/section-groups`, { title: 'Reference', sections: [grouped.id] });
  const shareLink = await created('POST', `${siteUrl}/share-links`, { name: 'Partners' });
  await created('PUT', `${siteUrl}/adaptive-schema`, { jsonSchema: ADAPTIVE_SCHEMA });

  // An import of the space that failed (as one whose source was unreachable does), for the imports reads.
  const now = new Date().toISOString();
  const importRow = {
    id: `import-${space.id}`,
    space_id: space.id,
    change_request_id: null,
    url: 'http://127.0.0.1:9/page.md',
    source: 'markdown',
    requested_by: org.admin.user.id,
    status: 'failed',
    result_revision: null,
    imported_resources: null,
    total_resources: null,
    error: 'url: could not fetch http://127.0.0.1:9/page.md: ECONNREFUSED',
    created_at: now,
    updated_at: now,
  };
  await insertContentImport(t.container.ctx.db, importRow);
  // A Git Sync connection of the space to a host that is not there (the API would refuse to connect to a loopback
  // address the test's fetch guard does not allow), for the connection's reads and runs.
  await saveGitSyncConnection(t.container.ctx.db, {
    space_id: space.id, url: 'http://127.0.0.1:9/docs.git', ref: 'refs/heads/main', project_directory: '', first_sync: 'import', auth_kind: 'none', auth_username: null,
    auth_secret: null, webhook_secret: null, host_key: null, status: 'error', error: 'the host did not answer', remote_commit: null, local_commit: null,
    last_synced_at: null, change_request_id: null, connected_by: org.admin.user.id, notice: null, branch_pattern: null, created_at: now, updated_at: now,
  });

  // The cross-organization move targets (transferSpace, transferCollection) need no fixture: the fuzz sends bad ones.
  return {
    organizationId: org.id,
    admin: org.admin,
    member,
    params: {
      organizationId: org.id,
      spaceId: space.id,
      collectionId: collection.id,
      changeRequestId: String(changeRequest.number),
      reviewId: review.id,
      commentId: comment.id,
      commentReplyId: reply.id,
      pageId: pages[1].id,
      fileId: file.id,
      revisionId: revision.id,
      '*': 'guide/install',
      oid,
      name,
      userId: member.user.id,
      // A caller's own sessions and tokens are theirs alone: these name none of anyone's (every caller finds nothing).
      sessionId: 'no-such-session',
      tokenId: 'no-such-token',
      teamId: team.id,
      inviteId: invite.id,
      importId: importRow.id,
      samlProviderId: saml.id,
      translationSettingsId: translation.id,
      specSlug: 'pets',
      versionId: spec.lastVersion,
      siteId: site.id,
      siteSectionId: section.id,
      siteSectionGroupId: group.id,
      siteSpaceId: section.siteSpaces[0].id,
      shareLinkId: shareLink.id,
      emailDomain: 'example.com',
    },
    changeRequestParams: { commentId: crComment.id, commentReplyId: crReply.id },
  };
}

/** An operation of `/v1/openapi.json`. */
export interface Operation {
  operationId: string;
  method: string;
  /** The path template, `/v1/spaces/{spaceId}`. */
  path: string;
  parameters: Array<{ in: string; name: string; required?: boolean; schema?: any }>;
  body?: any;
  /** Needs no credentials (`security: []`: signing in). */
  public: boolean;
}

export async function publishedOperations(t: TestApp): Promise<Operation[]> {
  const doc = (await t.request('GET', '/v1/openapi.json', { unchecked: true })).body as { paths: Record<string, Record<string, any>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      operationId: op.operationId as string,
      method: method.toUpperCase(),
      path,
      parameters: op.parameters ?? [],
      body: op.requestBody?.content?.['application/json']?.schema,
      public: Array.isArray(op.security) && op.security.length === 0,
    })),
  );
}

/** The path with its parameters replaced (each value percent-encoded unless `raw` keeps it as is). */
export function fillPath(template: string, values: Record<string, string>, raw = new Set<string>()): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for the path parameter ${name} of ${template}`);
    if (raw.has(name) || name === '*') return value;
    return encodeURIComponent(value);
  });
}
