/**
 * Images' dimensions are read from git once, by whichever process builds a revision first, and stored by blob oid:
 * a process with nothing in memory (`quire site export`, another server) builds the same revision from what is
 * stored, without reading the images again. A blob whose header gives no dimensions is remembered as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';
import { loadRevision, RevisionCache } from '../../src/domain/content/revisions.js';
import { findImageDimensions } from '../../src/store/sql/image-dimensions.js';
import type { Context } from '../../src/domain/context.js';

describe('image dimensions across processes', () => {
  let t: TestApp;
  let spaceId: string;
  let commit: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Images' } })).body.id as string;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    await checkout.write('README.md', '# Home\n\n![](.gitbook/assets/wide.png)\n');
    await checkout.write('.gitbook/assets/wide.png', tinyPng(40, 10));
    await checkout.write('.gitbook/assets/tall.png', tinyPng(5, 30));
    await checkout.write('.gitbook/assets/broken.png', Buffer.from('not an image'));
    commit = await checkout.commitAndPush('images');
    await checkout.dispose();
  });
  afterAll(async () => {
    await t?.close();
  });

  const dimensionsByName = (files: Array<{ name: string; dimensions?: unknown }>) => Object.fromEntries(files.map((file) => [file.name, file.dimensions]));

  it('stores what a build read from git, and a build with nothing in memory reads it from the database, not git', async () => {
    const first = await loadRevision(t.container.ctx, spaceId, commit);
    const expected = { 'wide.png': { width: 40, height: 10 }, 'tall.png': { width: 5, height: 30 }, 'broken.png': undefined };
    expect(dimensionsByName(first.files)).toEqual(expected);
    const stored = await findImageDimensions(t.container.ctx.db, first.files.map((file) => ('blobOid' in file ? file.blobOid : '')));
    expect([...stored.values()]).toHaveLength(3);
    expect([...stored.values()]).toContainEqual(null);

    // Another process: an empty cache, and a git reader that counts the images it is asked for.
    const ctx = t.container.ctx;
    let imageReads = 0;
    const reader = Object.create(ctx.reader) as Context['reader'];
    reader.readBlobParts = (...args) => {
      imageReads += 1;
      return ctx.reader.readBlobParts(...args);
    };
    const fresh: Context = { ...ctx, revisions: new RevisionCache(), reader };
    const second = await loadRevision(fresh, spaceId, commit);
    expect(dimensionsByName(second.files)).toEqual(expected);
    expect(imageReads).toBe(0);
  });
});
