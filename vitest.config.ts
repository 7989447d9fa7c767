import { defineConfig } from 'vitest/config';

/**
 * Suites that assert how long this process's event loop is held, or the CPU time it spends: they run after the
 * others, one file at a time, so that no other suite shares the two cores with them.
 */
const ALONE = [
  'test/content/bounded-markdown.test.ts',
  'test/http/big-page.test.ts',
  'test/http/hostile-imports.test.ts',
  'test/http/hostile-inputs.test.ts',
  'test/http/hostile-pushes.test.ts',
  'test/http/published-highlighting.test.ts',
  'test/http/semantic-changes.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs file after file with the modules it has loaded: most suites load the whole app, and loading it
    // anew for each file cost more time than many of their tests. Suites close what they open (apps, servers,
    // browsers), so nothing of one file is left for the next.
    isolate: false,
    projects: [
      {
        extends: true,
        // Most suites wait on git, PostgreSQL, Chromium or a server as much as they compute: two at once.
        test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
