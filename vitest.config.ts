import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // Kysely's FileMigrationProvider imports the migrations itself: inlined, its import() goes
    // through Vitest's transform and so loads the .ts migrations as the CLI (tsx) does.
    server: { deps: { inline: ['kysely'] } },
  },
});
