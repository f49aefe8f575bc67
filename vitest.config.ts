import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    retry: 0,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/temp-dirs-cleanup.ts'],
  },
});
