import { defineConfig } from 'vitest/config';

/**
 * The tests that take minutes each (an npm pack and install, the .mcpb bundle, the load test, two
 * instances behind nginx, a load through it): `npm run test:slow` runs them, and .ci/run runs that after `npm test`.
 */
const SLOW = [
  'test/package/**/*.test.ts',
  'test/e2e/http-load.test.ts',
  'test/e2e/http-nginx.test.ts',
  'test/e2e/http-nginx-load.test.ts',
];

export default defineConfig({
  test: {
    // The tests wait for events with no bound of their own (test/support/waiting.ts): these are the
    // hang guards, sized for a loaded machine (a server's start alone can take ten seconds there).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    retry: 0,
    // Two worker processes (the machine the suite is sized for has two cores), each running files
    // one after another in one module graph (isolate: false): a file's imports (the SDK, src/) are
    // evaluated once per worker rather than once per file, which was a third of the suite's CPU. So a
    // file must leave no state behind in the modules it shares (a test that needs a module fresh
    // calls vi.resetModules() and imports it). A file's checks of processes and temp directories
    // look only at its own process tree and its own directories (test/support/), and the files of
    // one worker run one at a time, so files don't see each other's.
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
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
