/**
 * Images' dimensions for a revision's build (the TreeSource's dimensionsOf): this process's memory (RevisionCache),
 * else the database, where any process that read them before stored them, else the image's first bytes read from
 * git, then stored for the next process. A space's images are asked for at once by a build (hundreds): the database
 * is asked once for all of those asked in the same turn of the event loop, and what git gave is stored likewise.
 */
import type { Context } from '../context.js';
import { findImageDimensions, saveImageDimensions, type StoredDimensions } from '../../store/sql/image-dimensions.js';

/**
 * `run` once for all the keys handed over in the same turn of the event loop (batch), each caller given its
 * answer's promise.
 */
function batched<K, A>(run: (keys: K[]) => Promise<A>): (key: K) => Promise<A> {
  let next: { keys: K[]; answer: Promise<A> } | undefined;
  return (key) => {
    if (!next) {
      const keys: K[] = [];
      const answer = new Promise((resolve) => setImmediate(resolve)).then(() => {
        next = undefined;
        return run(keys);
      });
      next = { keys, answer };
    }
    next.keys.push(key);
    return next.answer;
  };
}

/** The dimensions of an image of `spaceId` by its blob's oid, as a build asks for them (undefined: none). */
export function imageDimensionsReader(ctx: Context, spaceId: string): (oid: string) => Promise<{ width: number; height: number } | undefined> {
  const stored = batched((oids: string[]) => findImageDimensions(ctx.db, oids));
  const pending = new Map<string, StoredDimensions>();
  const store = batched(async (oids: string[]) => {
    const rows = new Map(oids.map((oid) => [oid, pending.get(oid) ?? null]));
    for (const oid of oids) pending.delete(oid);
    // Only a shortcut for the next process: one that cannot store them reads them from git again.
    await saveImageDimensions(ctx.db, rows).catch((error: unknown) => ctx.log.warn({ err: (error as Error).message, space: spaceId }, 'image dimensions not stored'));
  });
  const find = async (oid: string): Promise<StoredDimensions> => {
    const known = (await stored(oid)).get(oid);
    if (known !== undefined) return known;
    // Read in parts: most of a big image is never looked at (imageDimensionsOfParts). Loaded with the content code by
    // the first read (image-size and mime-types are ~30 modules): a command that reads no image starts without them.
    const parts = await ctx.reader.readBlobParts(spaceId, oid);
    if (!parts) throw new Error(`blob ${oid} not found`);
    const { imageDimensionsOfParts } = await import('../../content/files.js');
    const found = imageDimensionsOfParts(parts) ?? null;
    pending.set(oid, found);
    await store(oid);
    return found;
  };
  return async (oid) => (await ctx.revisions.dimensionsOf(oid, () => find(oid))) ?? undefined;
}
