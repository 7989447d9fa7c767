/** `quire sync`: runs until SIGINT or SIGTERM, then finishes what is in flight and exits 0. */
import type { Config } from '../../config/index.js';
import { Sync, SyncError } from '../sync/sync.js';
import { stopWhenNpmExits } from './common.js';

export async function sync(config: Config, spaceId: string, dir: string, options: { changeRequest?: number; debounceMs: number; intervalMs: number }): Promise<void> {
  const fail = (message: string): never => {
    process.stderr.write(`quire sync: ${message}\n`);
    process.exit(1);
  };
  if (!config.syncToken) fail('QUIRE_TOKEN is not set: set it to an API token of a user who can edit the space (and QUIRE_URL to the server)');
  const run = new Sync({
    spaceId,
    dir,
    serverUrl: config.syncUrl,
    token: config.syncToken!,
    changeRequest: options.changeRequest,
    debounceMs: options.debounceMs,
    intervalMs: options.intervalMs,
    env: config.childEnv,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  let signalled = false;
  const shutdown = (signal: string) => {
    // A second signal does not wait for the push in flight.
    if (signalled) process.exit(1);
    signalled = true;
    process.stdout.write(`${signal}: finishing the sync in flight\n`);
    run.stop().then(
      () => process.exit(0),
      (error: unknown) => fail((error as Error).message),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  stopWhenNpmExits(config, shutdown);
  try {
    await run.start();
  } catch (error) {
    if (error instanceof SyncError) fail(error.message);
    throw error;
  }
}

