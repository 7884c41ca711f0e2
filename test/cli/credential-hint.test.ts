/**
 * Issue 36 item 4: a refused credential names the account's own keys and the variable that holds
 * its secret (the gateway's `apiKeyEnv` variable too), and the scrubber hides the secret by its
 * value, never a word of the source's message: a password `wrong` leaves the source's "wrong".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let north: Simulator;
let south: Simulator;
let warehouse: TestDatabase;
let folder: { dir: string; remove(): void };

const WRONG_KEY = 'k3y-th4t-is-n0t-right';

beforeAll(async () => {
  north = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 3,
    username: 'north-user',
    password: 'the-right-one',
  });
  south = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 4,
    apiKey: 'the-right-key',
    org: 'south-org',
  });
  warehouse = await createTestDatabase();
  const retry = { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20, maxTotalWaitMs: 100 };
  folder = scratchFolder({
    'config/propsync.yaml': JSON.stringify({
      database: { url: warehouse.url },
      source: { format: 'json', maxClockSkewHours: 0, retry },
      accounts: [
        {
          id: 'north',
          source: {
            url: north.url,
            auth: { type: 'basic', username: 'north-user', passwordEnv: 'NORTH_API_PASSWORD' },
          },
        },
        {
          id: 'south',
          source: { url: south.url, auth: { type: 'apikey', org: 'south-org', apiKeyEnv: 'SOUTH_API_KEY' } },
        },
      ],
      metrics: { port: 0 },
    }),
  });
});

afterAll(async () => {
  await north?.close();
  await south?.close();
  await warehouse?.drop();
  folder?.remove();
});

it("a refused credential names the account's keys and variable; the source's word 'wrong' stays", async () => {
  const result = await runPropsync(['sync', '--stream', 'leases'], {
    cwd: folder.dir,
    env: {
      NORTH_API_PASSWORD: 'wrong',
      SOUTH_API_KEY: WRONG_KEY,
      PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true',
    },
  });
  const output = result.stdout + result.stderr;
  expect(result.code).not.toBe(0);
  expect(output).toContain(
    'missing or wrong Basic credentials; check accounts[0].source.auth.username and the password in NORTH_API_PASSWORD (accounts[0].source.auth.passwordEnv)',
  );
  expect(output).toContain(
    "check the API key in SOUTH_API_KEY (accounts[1].source.auth.apiKeyEnv) and accounts[1].source.auth.org ('south-org')",
  );
  expect(output).not.toMatch(/\*\*\* Basic credentials/);
  expect(output).not.toContain('check source.username and source.password');
  // The secrets themselves, in any form a request carries them, never show.
  expect(output).not.toContain(WRONG_KEY);
  expect(output).not.toContain(Buffer.from('north-user:wrong').toString('base64'));
  expect(output).not.toMatch(/["'=:]wrong\b/);
});
