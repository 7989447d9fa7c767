/**
 * Builds the stores and the domain context once, from the config, and hands them down explicitly.
 */
import type { Config } from '../config/index.js';
import { openStore, type Store } from './store/sql/db.js';
import { instanceSecret } from './store/sql/secrets.js';
import { GitStore } from './store/git/repositories.js';
import { GitReader } from './store/git/reader.js';
import { CursorCodec } from './domain/lists.js';
import { ReadCache } from './domain/cache.js';
import { LinkSigner } from './domain/signing.js';
import { GuardedFetcher } from './store/net/guarded-fetch.js';
import type { Context } from './domain/context.js';

export interface Container {
  config: Config;
  store: Store;
  git: GitStore;
  ctx: Context;
  close(): Promise<void>;
}

export async function createContainer(config: Config): Promise<Container> {
  const cache = new ReadCache(config.cacheTtlMs);
  const store = await openStore({
    onWrite: () => cache.invalidate(),
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    onPoolError: (error) => process.stderr.write(`${JSON.stringify({ level: 40, msg: 'database connection dropped', err: error.message })}\n`),
  });
  const git = new GitStore(config.dataDir);
  const cursors = new CursorCodec(await instanceSecret(store.db, 'cursor-signing'));
  const reader = new GitReader(git);
  const links = new LinkSigner(await instanceSecret(store.db, 'link-signing'));
  const fetcher = new GuardedFetcher({ allow: config.fetchAllow });
  const ctx: Context = { db: store.db, git, reader, cursors, cache, links, fetcher, spaceRetentionMs: config.spaceRetentionMs, gitMaxFileBytes: config.gitMaxFileBytes };
  return {
    config,
    store,
    git,
    ctx,
    close: async () => {
      reader.close();
      await fetcher.close();
      await store.close();
    },
  };
}
