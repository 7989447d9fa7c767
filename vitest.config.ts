import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The files share one module graph per worker: loading the app's ~1,500 modules again for each of some 200 files
    // was a third of the suite's time. What a file leaves behind must not change another's outcome: each suite starts
    // its own app, data dir and database (test/helpers/app.ts), and state of a module is owned by a container.
    isolate: false,
  },
});
