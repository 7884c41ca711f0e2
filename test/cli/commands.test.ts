import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const COMMANDS = ['sync', 'backfill', 'status', 'schedule', 'demo', 'reset'];
const API = {
  PROPSYNC_API_URL: 'http://127.0.0.1:9',
  PROPSYNC_API_USERNAME: 'u',
  PROPSYNC_API_PASSWORD: 'not-Used-pw-77',
};

let unmigrated: TestDatabase;
beforeAll(async () => {
  unmigrated = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await unmigrated?.drop();
});

/** The real program in this process (for the many small usage cases), with its stderr captured. */
async function inProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const empty = join(tmpdir(), `propsync-empty-${process.pid}.yaml`);
  writeFileSync(empty, '');
  const saved = { ...process.env };
  for (const key of Object.keys(process.env))
    if (key === 'DATABASE_URL' || key.startsWith('PROPSYNC_')) delete process.env[key];
  Object.assign(process.env, env);
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  try {
    const code = await runCli(['node', 'propsync', '--config', empty, ...args]);
    return { code, stderr };
  } finally {
    spy.mockRestore();
    process.env = saved;
  }
}

describe('propsync commands, as an operator runs them', () => {
  it('each has --help with examples (child processes)', async () => {
    const results = await Promise.all(COMMANDS.map((command) => runPropsync([command, '--help'])));
    results.forEach((result, index) => {
      expect(result.code, COMMANDS[index]).toBe(0);
      expect(result.stdout).toContain(`Usage: propsync ${COMMANDS[index]}`);
      expect(result.stdout).toContain('Examples:');
      expect(result.stdout).toContain(
        `$ propsync ${COMMANDS[index]}`.replace('propsync demo', 'npm run demo'),
      );
    });
  });

  it('--version prints the package version and exits 0 (child process)', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const result = await runPropsync([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });

  it('bad usage exits 2 with the reason (child processes)', async () => {
    const cases: [string[], RegExp][] = [
      [['sync', '--stream', 'payments'], /unknown stream 'payments'; expected leases or invoices/],
      [
        ['backfill', '--stream', 'invoices', '--from', '2024-03-01', '--to', '2024-02-01'],
        /--from 2024-03-01 is after --to 2024-02-01/,
      ],
      [['reset', '--stream', 'leases'], /not on a terminal, pass --yes to confirm/],
    ];
    const results = await Promise.all(
      cases.map(([args]) => runPropsync(args, { env: { DATABASE_URL: unmigrated.url, ...API } })),
    );
    results.forEach((result, index) => {
      expect(result.code, cases[index][0].join(' ')).toBe(2);
      expect(result.stderr, cases[index][0].join(' ')).toMatch(cases[index][1]);
    });
  });

  it('missing or broken configuration exits 2, naming what to set and hiding passwords (child processes)', async () => {
    const [noSource, unreachable, notMigrated] = await Promise.all([
      runPropsync(['sync'], { env: { DATABASE_URL: unmigrated.url } }),
      runPropsync(['status'], {
        env: { DATABASE_URL: 'postgres://someone:Db-Secret-9@127.0.0.1:9/warehouse' },
      }),
      runPropsync(['backfill', '--stream', 'leases', '--from', '2024-01-01', '--to', '2024-12-31'], {
        env: { DATABASE_URL: unmigrated.url, ...API },
      }),
    ]);
    expect(noSource.code).toBe(2);
    expect(noSource.stderr).toContain('PROPSYNC_API_URL');
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr).toContain(
      'cannot reach the warehouse at postgres://someone:***@127.0.0.1:9/warehouse',
    );
    expect(unreachable.stderr).not.toContain('Db-Secret-9');
    expect(notMigrated.code).toBe(2);
    expect(notMigrated.stderr).toContain('the warehouse is not migrated');
    expect(notMigrated.stderr).toContain('run `propsync migrate` first');
    expect(notMigrated.stderr).not.toContain(API.PROPSYNC_API_PASSWORD);
  });

  it('more bad usage exits 2 (the same program, in this process)', async () => {
    const env = { DATABASE_URL: unmigrated.url, ...API, PROPSYNC_METRICS_PORT: '0' };
    const cases: [string[], RegExp][] = [
      [['sync', '--property', '12a'], /'12a' is not a property id/],
      [
        ['backfill', '--stream', 'invoices', '--from', '2024-02-30', '--to', '2024-03-31'],
        /'2024-02-30' is not a date; expected YYYY-MM-DD/,
      ],
      [
        ['backfill', '--stream', 'invoices', '--from', '2024-03-01'],
        /required option '--to <date>' not specified/,
      ],
      [
        ['backfill', '--stream', 'leases', '--from', '2024-01-01', '--to', '2024-02-01', '--chunk', '2w'],
        /'2w' is not a chunk size; expected 1m, 3m, 1y/,
      ],
      [['reset', '--yes'], /required option '--stream <name>' not specified/],
      [['status', '--quarantine-limit', 'many'], /expected a whole number/],
      [['worker', '--concurrency', '0'], /'0' is not a count; expected a whole number from 1 to 64/],
      [['demo', '--colour'], /unknown option '--colour'/],
      [['schedule', '--stream', 'x'], /unknown stream 'x'/],
      [['schedule'], /the warehouse is not migrated/],
      [['status'], /the warehouse is not migrated/],
      [['reset', '--stream', 'invoices', '--yes'], /the warehouse is not migrated/],
    ];
    for (const [args, expected] of cases) {
      const result = await inProcess(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(expected);
    }
  });
});
