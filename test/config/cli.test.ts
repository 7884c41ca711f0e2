import { afterAll, describe, expect, it, vi } from 'vitest';
import { runPropsync, scratchFolder, type CliResult } from '../support/cli.js';

// The real CLI, run as an operator runs it (the test run's build of the sources) in a child process.
// One process at a time: each start costs seconds of CPU, and the suite shares two cores.
vi.setConfig({ testTimeout: 180_000 });

const PASSWORD = 'Zx9-never-printed-q7';

/** A complete, valid environment for commands that call the source. */
const VALID_ENV = {
  DATABASE_URL: 'postgres://propsync@127.0.0.1:5432/warehouse',
  PROPSYNC_API_URL: 'https://acme.example.com',
  PROPSYNC_API_USERNAME: 'sync-user',
  PROPSYNC_API_PASSWORD: PASSWORD,
};

const folders: { remove(): void }[] = [];
afterAll(() => {
  for (const folder of folders) folder.remove();
});

function folderWith(files: Record<string, string>): string {
  const folder = scratchFolder(files);
  folders.push(folder);
  return folder.dir;
}

/**
 * The run ended with exit code 2, printed nothing on stdout, and printed exactly the given
 * problem lines (each one a line of its own under the heading), without the password.
 */
function expectRejected(
  result: CliResult,
  problems: (string | RegExp)[],
  secrets: string[] = [PASSWORD],
): void {
  const output = `${result.stdout}\n${result.stderr}`;
  for (const secret of secrets) expect(output).not.toContain(secret);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines[0]).toBe('propsync: invalid configuration');
  const printed = lines.slice(1).map((line) => line.replace(/^ {2}/, ''));
  expect(printed).toHaveLength(problems.length);
  for (const problem of problems) {
    if (typeof problem === 'string') expect(printed).toContain(problem);
    else
      expect(
        printed.some((line) => problem.test(line)),
        `no line matches ${problem}:\n${printed.join('\n')}`,
      ).toBe(true);
  }
  expect(result.code).toBe(2);
}

describe('bad configuration exits 2 with one line per problem, naming the key', () => {
  it('missing password', async () => {
    const { PROPSYNC_API_PASSWORD: _, ...env } = VALID_ENV;
    expectRejected(await runPropsync(['config', 'check'], { env }), [
      'source.password: is missing; set PROPSYNC_API_PASSWORD or source.password in config/propsync.yaml',
    ]);
  });

  it('bad API URL', async () => {
    expectRejected(
      await runPropsync(['config', 'check'], {
        env: { ...VALID_ENV, PROPSYNC_API_URL: 'acme.example.com/api' },
      }),
      [
        'PROPSYNC_API_URL: "acme.example.com/api" is not an http(s) URL; expected the service base such as https://example.entrata.com',
      ],
    );
  });

  it('bad database URL, with its password hidden', async () => {
    const env = { ...VALID_ENV, DATABASE_URL: 'mysql://admin:db-pw-4471@127.0.0.1/warehouse' };
    const expected =
      'DATABASE_URL: "mysql://admin:***@127.0.0.1/warehouse" is not a Postgres URL; expected postgres://user@host:5432/database';
    expectRejected(await runPropsync(['migrate'], { env }), [expected], [PASSWORD, 'db-pw-4471']);
  });

  it('bad cron expression', async () => {
    const cwd = folderWith({ 'ops/propsync.yaml': 'streams:\n  invoices:\n    schedule: "at 2am"\n' });
    expectRejected(
      await runPropsync(['--config', 'ops/propsync.yaml', 'config', 'check'], { env: VALID_ENV, cwd }),
      [
        'ops/propsync.yaml: streams.invoices.schedule: "at 2am" is not a valid cron expression; expected five or six fields such as "0 2 * * *"',
      ],
    );
  });

  it('a worker.concurrency that database.maxConnections cannot hold', async () => {
    const cwd = folderWith({
      'propsync.yaml': 'database:\n  maxConnections: 16\nworker:\n  concurrency: 4\n',
    });
    expectRejected(
      await runPropsync(['--config', 'propsync.yaml', 'config', 'check'], { env: VALID_ENV, cwd }),
      [
        /^worker\.concurrency: 4 jobs at once need at least 18 warehouse connections .*more than database\.maxConnections \(16\): raise it, or lower worker\.concurrency/,
      ],
    );
    const fits = folderWith({
      'propsync.yaml': 'database:\n  maxConnections: 18\nworker:\n  concurrency: 4\n',
    });
    const result = await runPropsync(['--config', 'propsync.yaml', 'config', 'check'], {
      env: VALID_ENV,
      cwd: fits,
    });
    expect(result.code).toBe(0);
  });

  it('unknown format', async () => {
    expectRejected(
      await runPropsync(['config', 'check'], { env: { ...VALID_ENV, PROPSYNC_FORMAT: 'csv' } }),
      ['PROPSYNC_FORMAT: "csv" is not a known format; expected json or xml'],
    );
  });

  it('non-numeric property id', async () => {
    expectRejected(
      await runPropsync(['config', 'check'], {
        env: { ...VALID_ENV, PROPSYNC_PROPERTY_IDS: '100001,10O002' },
      }),
      [
        'PROPSYNC_PROPERTY_IDS (item 2): "10O002" is not a numeric property id; expected digits such as 100001',
      ],
    );
  });

  it('unknown key', async () => {
    const cwd = folderWith({ 'config/propsync.yaml': 'source:\n  formt: xml\nlog_level: debug\n' });
    expectRejected(await runPropsync(['migrate'], { env: VALID_ENV, cwd }), [
      'config/propsync.yaml: source.formt: is not a known key; check the spelling against config/propsync.example.yaml',
      'config/propsync.yaml: log_level: is not a known key; did you mean logLevel?',
    ]);
  });

  it('a misspelt top-level key: "did you mean" before anything else', async () => {
    const cwd = folderWith({
      'config/propsync.yaml': [
        'database:',
        '  url: postgres://propsync@127.0.0.1:5432/warehouse',
        'acounts:',
        '  - id: north',
        '    source:',
        '      url: https://north.example.com',
        '      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }',
      ].join('\n'),
    });
    const result = await runPropsync(['sync'], { cwd, env: { NORTH_API_PASSWORD: PASSWORD } });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      'propsync: invalid configuration',
      '  config/propsync.yaml: acounts: is not a known key; did you mean accounts?',
    ]);
  });

  it('bad YAML', async () => {
    const cwd = folderWith({ 'config/propsync.yaml': `source:\n  password: ${PASSWORD}\n   username: [x\n` });
    expectRejected(await runPropsync(['migrate'], { env: { DATABASE_URL: VALID_ENV.DATABASE_URL }, cwd }), [
      /^config\/propsync\.yaml: is not valid YAML \(.*line \d+.*\); fix the file's syntax$/,
    ]);
  });

  it('missing --config file', async () => {
    expectRejected(
      await runPropsync(['--config', '/nonexistent/propsync.yaml', 'migrate'], { env: VALID_ENV }),
      [
        '--config: file /nonexistent/propsync.yaml does not exist; expected the path of a YAML configuration file',
      ],
    );
  });

  it('the password itself is the faulty value', async () => {
    // A number where a string belongs (YAML reads an all-digit password as a number) …
    const digits = folderWith({ 'config/propsync.yaml': 'source:\n  password: 8675309123\n' });
    const { PROPSYNC_API_PASSWORD: _, ...env } = VALID_ENV;
    expectRejected(
      await runPropsync(['config', 'check'], { env, cwd: digits }),
      ['config/propsync.yaml: source.password: (value hidden) is a number; expected a string'],
      ['8675309123'],
    );
    // … a list, or the password pasted under the wrong key.
    const pasted = folderWith({
      'config/propsync.yaml': `source:\n  url: "${PASSWORD}"\n  password: ["${PASSWORD}"]\n  passwd: "${PASSWORD}"\n`,
    });
    const { PROPSYNC_API_URL: __, ...withoutUrl } = env;
    expectRejected(await runPropsync(['config', 'check'], { env: withoutUrl, cwd: pasted }), [
      'config/propsync.yaml: source.url: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com',
      'config/propsync.yaml: source.password: (value hidden) is a list; expected a string',
      'config/propsync.yaml: source.passwd: is not a known key; check the spelling against config/propsync.example.yaml',
    ]);
  });
});

describe('propsync config check', () => {
  it('prints a valid configuration with defaults filled in and the password masked, and exits 0', async () => {
    const cwd = folderWith({
      'config/propsync.yaml': [
        'database:',
        '  url: postgres://wh:wh-db-secret@127.0.0.1:5432/warehouse',
        'source:',
        '  url: https://acme.example.com',
        '  username: file-user',
        `  password: "${PASSWORD}"`,
        'propertyIds: [100001]',
      ].join('\n'),
    });
    const result = await runPropsync(['config', 'check'], { cwd, env: { PROPSYNC_FORMAT: 'xml' } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(PASSWORD);
    expect(result.stdout).not.toContain('wh-db-secret');
    expect(result.stdout).toContain(
      '# configuration is valid; read from config/propsync.yaml, then environment (PROPSYNC_FORMAT)',
    );
    expect(result.stdout).toContain(
      '\n# account default: auth basic, https://acme.example.com, time zone America/Denver\n',
    );
    expect(result.stdout).toContain('url: postgres://wh:***@127.0.0.1:5432/warehouse');
    expect(result.stdout).toContain('password: "***"');
    expect(result.stdout).toContain('format: xml');
    expect(result.stdout).toContain('timeZone: America/Denver');
    expect(result.stdout).toMatch(/getLeases: r2/);
    expect(result.stdout).toMatch(/propertyIds:\n {2}- "100001"/);
  });

  it('prints one line per account, its warnings, and no secret', async () => {
    const [north, south, east] = ['n0rth-Pa55-cli-q8', 's0uth-K3y-cli-w4', 'ea5t-inl1ne-cli-v0'];
    const cwd = folderWith({
      'config/propsync.yaml': [
        'database:',
        '  url: postgres://propsync@127.0.0.1:5432/propsync',
        'accounts:',
        '  - id: north',
        '    name: North portfolio',
        '    source:',
        '      url: https://north.example.com',
        '      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }',
        '  - id: south',
        '    source:',
        '      url: https://apis.entrata.com',
        '      timeZone: America/Chicago',
        '      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }',
        '  - id: east',
        '    source:',
        `      url: https://east-user:${east}@east.example.com`,
        `      auth: { type: basic, username: east-user, password: "${east}" }`,
      ].join('\n'),
    });
    const result = await runPropsync(['config', 'check'], {
      cwd,
      env: { NORTH_API_PASSWORD: north, SOUTH_API_KEY: south },
    });
    const output = `${result.stdout}\n${result.stderr}`;
    for (const secret of [north, south, east]) expect(output).not.toContain(secret);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').slice(0, 4)).toEqual([
      '# configuration is valid; read from config/propsync.yaml',
      '# account north (North portfolio): auth basic, https://north.example.com, time zone America/Denver',
      '# account south: auth apikey, https://apis.entrata.com, time zone America/Chicago',
      '# account east: auth basic, https://east-user:***@east.example.com, time zone America/Denver',
    ]);
    expect(result.stderr).toBe(
      'propsync: warning: config/propsync.yaml: accounts[2].source.auth.password: the password is written in the configuration; it is accepted, but keep it out of the file: set passwordEnv to the name of an environment variable that holds it\n',
    );
    // Masked in the configuration printed after the lines.
    expect(result.stdout.match(/^ {8}password: "\*\*\*"$/gm)).toHaveLength(2);
    expect(result.stdout.match(/^ {8}apiKey: "\*\*\*"$/gm)).toHaveLength(1);
  });

  it('reads the file named by PROPSYNC_CONFIG when no --config is given (an empty value means none)', async () => {
    const cwd = folderWith({
      'elsewhere/accounts.yaml': [
        'database:',
        '  url: postgres://propsync@127.0.0.1:5432/propsync',
        'accounts:',
        '  - id: west',
        '    source:',
        '      url: https://west.example.com',
        '      auth: { type: apikey, org: west-org, apiKeyEnv: WEST_API_KEY }',
      ].join('\n'),
    });
    const named = await runPropsync(['config', 'check'], {
      cwd,
      env: { PROPSYNC_CONFIG: 'elsewhere/accounts.yaml', WEST_API_KEY: 'w3st-K3y-env-p2' },
    });
    expect(named.code).toBe(0);
    expect(named.stdout.split('\n').slice(0, 2)).toEqual([
      '# configuration is valid; read from elsewhere/accounts.yaml',
      '# account west: auth apikey, https://west.example.com, time zone America/Denver',
    ]);
    const empty = await runPropsync(['config', 'check'], { cwd, env: { ...VALID_ENV, PROPSYNC_CONFIG: '' } });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/^# account default: /m);
  });

  it('groups the problems per account', async () => {
    const secret = 's0uth-K3y-cli-z7';
    const cwd = folderWith({
      'config/propsync.yaml': [
        'accounts:',
        '  - id: north',
        '    source:',
        '      url: https://north.example.com',
        '      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }',
        '  - id: south',
        '    source:',
        `      url: "${secret}"`,
        '      format: xml',
        '      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }',
        '  - id: South',
        '    source: { url: https://s.example.com, auth: { type: basic, username: u, passwordEnv: NORTH_API_PASSWORD } }',
      ].join('\n'),
    });
    const result = await runPropsync(['config', 'check'], { cwd, env: { SOUTH_API_KEY: secret } });
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain(secret);
    expect(result.stderr).toBe(
      [
        'propsync: invalid configuration',
        '  database.url: is missing; set DATABASE_URL or database.url in config/propsync.yaml',
        '  accounts[0] (north):',
        '    config/propsync.yaml: accounts[0].source.auth.passwordEnv: "NORTH_API_PASSWORD" names a variable that is not set (or is empty); expected NORTH_API_PASSWORD to hold the password',
        '  accounts[1] (south):',
        '    config/propsync.yaml: accounts[1].source.url: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com',
        '  accounts[2]:',
        '    config/propsync.yaml: accounts[2].id: "South" is not a valid account id; expected 1 to 40 lowercase letters, digits, - or _ (the id is stored with every row of the account, so keep it stable)',
        '    config/propsync.yaml: accounts[2].source.auth.passwordEnv: "NORTH_API_PASSWORD" names a variable that is not set (or is empty); expected NORTH_API_PASSWORD to hold the password',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(2);
  });

  it('has examples in its help', async () => {
    const result = await runPropsync(['config', 'check', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: propsync config check');
    expect(result.stdout).toMatch(/Examples:\n {2}\$ propsync config check\n/);
  });

  it('treats a missing command as bad usage (exit 2, with the help), and help asked for as success', async () => {
    for (const args of [[], ['config']]) {
      const result = await runPropsync(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout + result.stderr).toMatch(/Usage: propsync/);
    }
    for (const args of [['help'], ['--help'], ['config', '--help'], ['help', 'sync']])
      expect((await runPropsync(args)).code, args.join(' ')).toBe(0);
  });

  it('treats an unknown command as bad usage (exit 2)', async () => {
    const result = await runPropsync(['confg', 'check']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'confg'");
  });
});
