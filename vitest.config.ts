import os from 'node:os';
import { defineConfig } from 'vitest/config';

/** Files that measure their own process (its heap): they run each in a process of its own. */
const OWN_PROCESS = ['test/domain/revisions-weight.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker per core, where vitest's default leaves one free: the suites mostly wait on git, databases and browsers
    // (on 2 cores, 18 minutes with two workers, 27 with one).
    maxWorkers: os.availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: OWN_PROCESS,
          // The files of a worker share one module graph: loading the app's ~1,500 modules again for each of some 200
          // files was a third of the suite's time. What a file leaves behind must not change another's outcome: each
          // suite starts its own app, data dir and database (test/helpers/app.ts); a module's state is a container's.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, isolate: true } },
    ],
  },
});
