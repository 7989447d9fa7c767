/**
 * `quire migrate`'s collections step: an organization's collections, parents first, with their settings. Apart
 * from the spaces step, which only reads the map of ids it returns.
 */
import { createCollection, updateCollection } from '../content/collections.js';
import { fingerprintOf, roleOrNull, type MigrationRun } from './migration-run.js';
import type { SourceCollection } from './source-resources.js';

/** Copies the collections, parents first; returns source id -> id here. */
export async function copyCollections(run: MigrationRun, o: string, target: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const collections = await run.copyOrSkip('collections', o, () =>
    run.source.list<SourceCollection>(`collections of ${o}`, (c, p) => c.orgs.listCollectionsInOrganizationById(o, { ...p, nested: true })),
  );
  const pending = [...(collections ?? [])];
  while (pending.length > 0) {
    const ready = pending.filter((c) => !c.parent || ids.has(c.parent) || !pending.some((other) => other.id === c.parent));
    if (ready.length === 0) {
      for (const c of pending) run.skip('collection', c.id, 'its parent collections form a cycle at the source');
      break;
    }
    for (const collection of ready) {
      pending.splice(pending.indexOf(collection), 1);
      if (collection.parent && !ids.has(collection.parent)) {
        run.skip('collection', collection.id, `its parent collection "${collection.parent}" was not copied`);
        continue;
      }
      const id = await run.copyOrSkip('collection', collection.id, () => copyCollection(run, target, collection, collection.parent ? ids.get(collection.parent) : undefined));
      if (id) ids.set(collection.id, id);
    }
  }
  return ids;
}

async function copyCollection(run: MigrationRun, target: string, collection: SourceCollection, parent: string | undefined): Promise<string> {
  const patch = {
    title: collection.title.slice(0, 50),
    ...(collection.description ? { description: collection.description.slice(0, 100) } : {}),
    ...(roleOrNull(collection.defaultLevel) !== undefined ? { defaultLevel: roleOrNull(collection.defaultLevel) } : {}),
  };
  const fingerprint = fingerprintOf({ ...patch, parent: parent ?? null });
  const existing = await run.mapped('collection', collection.id);
  if (existing?.fingerprint === fingerprint) return existing.target_id;
  const id = existing?.target_id ?? (await createCollection(run.ctx, run.actor, target, { title: patch.title, ...(parent ? { parent } : {}) })).collection.id;
  if (!existing) await run.remember('collection', collection.id, id, null);
  await updateCollection(run.ctx, run.actor, id, patch);
  await run.remember('collection', collection.id, id, fingerprint);
  run.count('collections');
  return id;
}
