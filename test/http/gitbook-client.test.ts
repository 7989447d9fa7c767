/**
 * The reference's own public client (@gitbook/api, the one `quire migrate` will read sources with) against a real
 * Quire server, unchanged: organizations, spaces, pages by id and by path, documents, comments posted as
 * documents. Errors come back as the client's GitBookAPIError with the status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/**
 * The client's methods as this test calls them. Its own declarations import './client' without an extension, which
 * TypeScript's NodeNext resolution cannot follow, so the methods are unknown to the compiler (they run all the same).
 */
type Operations = Record<string, (...args: any[]) => Promise<{ data: any }>>;
type Client = { orgs: Operations; spaces: Operations };

describe('the @gitbook/api client against Quire (sqlite)', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let api: Client;
  let spaceId: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    org = await t.organization('Acme');
    const base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Handbook' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nStart here.\n');
    await checkout.write('guide.md', '# Guide\n\n{% hint style="warning" %}\nRead **this** first.\n{% endhint %}\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Guide](guide.md)\n');
    await checkout.commitAndPush('Pages');
    await checkout.dispose();
    api = new GitBookAPI({ endpoint: base, authToken: org.admin.token }) as unknown as Client;
  });
  afterAll(async () => t?.close());

  it('lists organizations and their spaces, reads pages by id and by path, as markdown and as documents', async () => {
    const orgs = (await api.orgs.listOrganizationsForAuthenticatedUser()).data;
    expect(orgs.items.map((item: { title: string }) => item.title)).toContain('Acme');
    const spaces = (await api.orgs.listSpacesInOrganizationById(org.id)).data;
    expect(spaces.items.map((item: { id: string }) => item.id)).toContain(spaceId);

    const pages = (await api.spaces.listPages(spaceId)).data.pages as Array<{ id: string; title: string }>;
    expect(pages.map((page) => page.title)).toEqual(['Welcome', 'Guide']);
    const guide = (await api.spaces.getPageByPath(spaceId, 'guide', { format: 'document' })).data;
    expect(guide.id).toBe(pages[1].id);
    expect('document' in guide && guide.document?.nodes[0]).toMatchObject({ type: 'hint', data: { style: 'warning' } });
    const byId = (await api.spaces.getPageById(spaceId, pages[1].id)).data;
    expect('markdown' in byId && byId.markdown).toContain('{% hint style="warning" %}');
  });

  it('posts a comment as a document and reads it back as markdown', async () => {
    const posted = (
      await api.spaces.postCommentInSpace(spaceId, {
        body: {
          document: {
            object: 'document',
            data: {},
            nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Looks good', marks: [{ object: 'mark', type: 'bold' }] }] }] }],
          },
        },
      })
    ).data;
    const read = (await api.spaces.getCommentInSpace(spaceId, posted.id, { format: 'markdown' })).data;
    expect(read.body).toEqual({ markdown: '**Looks good**' });
  });

  it('gives the client its error with the status for what is not there', async () => {
    const missing = await api.spaces.getSpaceById('no_such_space').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(GitBookAPIError);
    expect((missing as GitBookAPIError).code).toBe(404);
  });
});
