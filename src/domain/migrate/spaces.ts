/**
 * `quire migrate`'s spaces step: each space's content (./space-content.ts), its settings, its open and draft change
 * requests (./change-requests.ts) and its comments (./comments.ts); on a later run, main fast-forwarded to the
 * source's (or refused when edited here too). Apart from the organization's other steps: it is the only one that
 * writes repositories.
 */
import { newId } from '../ids.js';
import { createSpaceFromRepository, updateSpace, type SpacePatch } from '../content/spaces.js';
import { recordMainMoved } from '../content/main-moved.js';
import { enqueueIndexingAfterPush } from '../content/indexing.js';
import { MAIN_REF } from '../content/refs.js';
import { fingerprintOf, roleOrNull, type MigrationRun } from './migration-run.js';
import { SourceFailure } from './source.js';
import type { SourceChangeRequest, SourceSpace } from './source-resources.js';
import { fetchRepository, writeFromApi } from './space-content.js';
import { copyChangeRequest } from './change-requests.js';
import { copyComments } from './comments.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { bringRefs, createEmptyRepository } from '../../store/git/transfer.js';
import { findSpace } from '../../store/sql/spaces.js';

/** Copies the spaces; returns source id -> id here, for the spaces that are here. */
export async function copySpaces(run: MigrationRun, o: string, target: string, collections: Map<string, string>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const spaces = (await run.copyOrSkip('spaces', o, () => run.source.list<SourceSpace>(`spaces of ${o}`, (c, p) => c.orgs.listSpacesInOrganizationById(o, p)))) ?? [];
  for (const [i, listed] of spaces.entries()) {
    run.progress({ step: 'spaces', done: i, total: spaces.length, title: listed.title });
    const id = await run.copyOrSkip('space', listed.id, () => copySpace(run, target, listed.id, collections));
    if (id) ids.set(listed.id, id);
    else {
      // A space that is here from an earlier run stays published in its sites.
      const earlier = await run.mapped('space', listed.id);
      if (earlier) ids.set(listed.id, earlier.target_id);
    }
  }
  run.progress({ step: 'spaces', done: spaces.length, total: spaces.length });
  return ids;
}

async function copySpace(run: MigrationRun, target: string, spaceId: string, collections: Map<string, string>): Promise<string> {
  // Read again by id: a source failing for this space fails here, and the listing's fields may be partial.
  const space = await run.source.read<SourceSpace>(`space ${spaceId}`, (c) => c.spaces.getSpaceById(spaceId));
  if (typeof space.revision !== 'string') throw new SourceFailure(undefined, `space ${spaceId}: the source gives no revision`);
  const changeRequests: SourceChangeRequest[] = [];
  for (const status of ['open', 'draft']) {
    changeRequests.push(
      ...(await run.source.list<SourceChangeRequest>(`change requests of space ${spaceId}`, (c, p) => c.spaces.listChangeRequestsForSpace(spaceId, { ...p, status }))),
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
  const existing = await run.mapped('space', spaceId);
  const here = existing ? await findSpace(run.ctx.db, existing.target_id) : undefined;
  let id: string;
  if (existing && here && !here.deleted_at && existing.fingerprint === fingerprint) {
    id = here.id;
  } else {
    id = here && !here.deleted_at ? here.id : await newSpaceId(run, spaceId);
    const staging = newId();
    await createEmptyRepository(run.ctx.git, staging);
    try {
      const viaGit = await run.source.servesGit(spaceId);
      if (viaGit) await fetchRepository(run, staging, spaceId);
      else await writeFromApi(run, staging, spaceId, undefined, MAIN_REF);
      if (here && !here.deleted_at) await moveMain(run, id, staging, spaceId);
      else {
        await createSpaceFromRepository(run.ctx, run.actor, target, { id, sourceId: staging, title: space.title, projectDirectory: '', parentId: parent ?? null });
        await run.remember('space', spaceId, id, null);
        await enqueueIndexingAfterPush(run.ctx, { spaceId: id, revision: (await run.ctx.reader.resolveRef(id, MAIN_REF))! });
      }
      await applySpaceSettings(run, spaceId, id, settings);
      for (const cr of changeRequests) await run.copyOrSkip('change-request', cr.id, () => copyChangeRequest(run, spaceId, id, staging, cr, viaGit));
    } finally {
      run.ctx.reader.close(staging);
      await run.ctx.git.removeRepository(staging);
    }
    await run.remember('space', spaceId, id, fingerprint);
    run.count('spaces');
  }
  await copyComments(run, spaceId, id, undefined);
  for (const cr of changeRequests) {
    const mapped = await run.mapped('change-request', cr.id);
    if (mapped) await copyComments(run, spaceId, id, { source: cr.id, target: mapped.target_id });
  }
  return id;
}

/**
 * The source's own id when it is free here: page ids derive from the space's id and the history (history.ts), so
 * a space copied through git keeps its page ids, and links and clients that name the space keep working.
 */
async function newSpaceId(run: MigrationRun, sourceId: string): Promise<string> {
  const usable = /^[a-zA-Z0-9_-]{2,64}$/.test(sourceId) && !(await findSpace(run.ctx.db, sourceId)) && !(await run.ctx.git.exists(sourceId));
  return usable ? sourceId : newId();
}

/**
 * A second run: main here moves to the source's main when it only adds commits to what is here (through git), or
 * gets a commit with the source's pages on top (through the API). Edited here meanwhile: refused, with a reason.
 */
async function moveMain(run: MigrationRun, id: string, staging: string, spaceId: string): Promise<void> {
  const current = await run.ctx.reader.resolveRef(id, MAIN_REF);
  const incoming = await run.ctx.reader.resolveRef(staging, MAIN_REF);
  if (!current || !incoming || current === incoming) return;
  await bringRefs(run.ctx.git, staging, id, [`+${MAIN_REF}:refs/quire/migrate`]);
  let next = incoming;
  if (!(await run.ctx.git.isAncestor(id, current, incoming))) {
    const previous = await run.mapped('space-revision', spaceId);
    // Not our history (the API path): the source's tree as a new commit on top of main, if main is still ours.
    if (previous?.target_id !== current) throw new Error('main was changed here since the last migration and at the source too; copy the change by hand');
    const tree = (await run.ctx.reader.readCommit(id, incoming))!.tree;
    // The same pages (only settings or comments changed at the source): no empty commit.
    if (tree === (await run.ctx.reader.readCommit(id, current))?.tree) return;
    next = await run.ctx.git.commitTree(id, tree, [current], `Migrated from ${run.source.endpoint}`, QUIRE_SIGNATURE);
  }
  if (!(await run.ctx.git.compareAndSwapRef(id, MAIN_REF, next, current))) throw new Error('main moved here while the migration ran; run it again');
  await recordMainMoved(run.ctx, id);
}

/** The source's settings of the space; its main here is recorded as what the migration wrote (see moveMain). */
async function applySpaceSettings(run: MigrationRun, spaceId: string, id: string, settings: SpacePatch): Promise<void> {
  const { visibility, ...rest } = settings;
  await updateSpace(run.ctx, run.actor, id, rest);
  if (visibility && visibility !== 'private') {
    await updateSpace(run.ctx, run.actor, id, { visibility }).catch((error: unknown) => run.skip('space-visibility', id, error));
  }
  await run.remember('space-revision', spaceId, (await run.ctx.reader.resolveRef(id, MAIN_REF)) ?? '', null);
}
