import { defineConfig } from 'vitest/config';

/**
 * The tests that take minutes each (an npm pack and install, the .mcpb bundle, the load test, two
 * instances behind nginx): `npm run test:slow` runs them, and .ci/run runs that after `npm test`.
 */
const SLOW = ['test/package/**/*.test.ts', 'test/e2e/http-load.test.ts', 'test/e2e/http-nginx.test.ts'];

export default defineConfig({
  test: {
    // The tests wait for events with no bound of their own (test/support/waiting.ts): these are the
    // hang guards, sized for a loaded machine (a server's start alone can take ten seconds there).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    retry: 0,
    // Each file in a process of its own, two at once (the machine the suite is sized for has two
    // cores). A file's checks of processes and temp directories look only at its own process tree
    // and its own directories (test/support/), so files don't see each other's.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
    coverage: {
      provider: 'v8',
      // What the tests' own process loads (the in-process tests) and what the processes they start
      // load from dist/ is not mapped back here: the figure is the in-process share of src/, engine/,
      // prelude/, protocol/ and common/.
      include: ['src/**/*.ts', 'engine/**/*.ts', 'prelude/**/*.ts', 'protocol/**/*.ts', 'common/**/*.ts'],
      reporter: ['text-summary', 'html'],
      reportsDirectory: 'coverage',
    },
  },
});
