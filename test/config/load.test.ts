import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadOfflineConfig, type LoadOptions } from '../../src/config/load.js';
import { scratchFolder } from '../support/cli.js';

const PASSWORD = 'Tr0ub4dor&3-not-printed';

const FULL_ENV = {
  DATABASE_URL: 'postgres://propsync@127.0.0.1:5432/warehouse',
  PROPSYNC_API_URL: 'https://acme.example.com',
  PROPSYNC_API_USERNAME: 'sync-user',
  PROPSYNC_API_PASSWORD: PASSWORD,
};

const folders: { remove(): void }[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

/** A working directory holding the given files. */
function inFolder(files: Record<string, string>): string {
  const folder = scratchFolder(files);
  folders.push(folder);
  return folder.dir;
}

/** The problems of a configuration that must not load; fails the test when it loads. */
function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    for (const problem of problems) expect(problem).not.toContain('\n');
    return problems;
  }
  throw new Error('expected the configuration to be rejected, but it loaded');
}

function load(options: LoadOptions) {
  return loadConfig(options);
}

describe('loadConfig: file, then environment', () => {
  it('reads config/propsync.yaml from the working directory and fills in every default', () => {
    const cwd = inFolder({
      'config/propsync.yaml': [
        'database:',
        '  url: postgres://wh@db.internal:5432/warehouse',
        'source:',
        '  url: https://acme.example.com',
        '  username: file-user',
        `  password: "${PASSWORD}"`,
        'propertyIds: [100001, 100002]',
      ].join('\n'),
    });
    const config = load({ cwd, env: {} });
    expect(config.database.url).toBe('postgres://wh@db.internal:5432/warehouse');
    expect(config.source).toMatchObject({
      url: 'https://acme.example.com',
      username: 'file-user',
      password: PASSWORD,
      format: 'json',
      versions: { getLeases: 'r2', getInvoices: 'r2' },
    });
    // YAML numbers become the string ids the rest of the code uses.
    expect(config.propertyIds).toEqual(['100001', '100002']);
    expect(config.timeZone).toBe('America/Denver');
    expect(config.logLevel).toBe('info');
    expect(config.streams.leases.enabled).toBe(true);
    expect(config.streams.invoices.enabled).toBe(true);
    // (Every other default is checked against config/propsync.example.yaml in example.test.ts.)
  });

  it('needs no file when the environment carries everything', () => {
    const config = load({ cwd: inFolder({}), env: FULL_ENV });
    expect(config.database.url).toBe(FULL_ENV.DATABASE_URL);
    expect(config.source.username).toBe('sync-user');
    expect(config.propertyIds).toEqual([]);
  });

  it('lets environment variables win over the file, and ignores empty ones', () => {
    const cwd = inFolder({
      'ops.yaml': [
        'database: { url: "postgres://file@127.0.0.1/file_db" }',
        'source:',
        '  url: https://file.example.com',
        '  username: file-user',
        '  password: file-password',
        '  format: json',
        '  pageSize: 100',
        'propertyIds: [1]',
        'logLevel: warn',
      ].join('\n'),
    });
    const config = load({
      cwd,
      configPath: 'ops.yaml',
      env: {
        DATABASE_URL: 'postgres://env@127.0.0.1/env_db',
        PROPSYNC_FORMAT: 'xml',
        PROPSYNC_PAGE_SIZE: '250',
        PROPSYNC_PROPERTY_IDS: ' 100001, 100002,,100003 ',
        PROPSYNC_API_USERNAME: '',
        PROPSYNC_LOG_LEVEL: 'debug',
      },
    });
    expect(config.database.url).toBe('postgres://env@127.0.0.1/env_db');
    expect(config.source.format).toBe('xml');
    expect(config.source.pageSize).toBe(250);
    expect(config.propertyIds).toEqual(['100001', '100002', '100003']);
    expect(config.logLevel).toBe('debug');
    // Empty variables count as unset: the file's value stays.
    expect(config.source.username).toBe('file-user');
    expect(config.source.url).toBe('https://file.example.com');
  });

  it('resolves --config against the working directory and rejects a file that does not exist', () => {
    const cwd = inFolder({ 'elsewhere/p.yaml': 'logLevel: error\n' });
    expect(load({ cwd, configPath: 'elsewhere/p.yaml', env: FULL_ENV }).logLevel).toBe('error');
    expect(problemsOf(() => load({ cwd, configPath: 'missing.yaml', env: FULL_ENV }))).toEqual([
      '--config: file missing.yaml does not exist; expected the path of a YAML configuration file',
    ]);
  });

  it('reports each missing key with the variable and the file key that set it', () => {
    const problems = problemsOf(() => load({ cwd: inFolder({}), env: {} }));
    expect(problems).toEqual([
      'database.url: is missing; set DATABASE_URL or database.url in config/propsync.yaml',
      'source.url: is missing; set PROPSYNC_API_URL or source.url in config/propsync.yaml',
      'source.username: is missing; set PROPSYNC_API_USERNAME or source.username in config/propsync.yaml',
      'source.password: is missing; set PROPSYNC_API_PASSWORD or source.password in config/propsync.yaml',
    ]);
  });

  it('names the --config file in the hint when one was given', () => {
    const cwd = inFolder({ 'ops.yaml': 'source:\n  url: https://acme.example.com\n  username: u\n' });
    const problems = problemsOf(() =>
      load({ cwd, configPath: 'ops.yaml', env: { DATABASE_URL: FULL_ENV.DATABASE_URL } }),
    );
    expect(problems).toEqual([
      'source.password: is missing; set PROPSYNC_API_PASSWORD or source.password in ops.yaml',
    ]);
  });
});

describe('loadOfflineConfig', () => {
  it('needs only the database, while loadConfig also needs the source', () => {
    const cwd = inFolder({});
    const env = { DATABASE_URL: FULL_ENV.DATABASE_URL };
    expect(loadOfflineConfig({ cwd, env }).database.url).toBe(FULL_ENV.DATABASE_URL);
    expect(problemsOf(() => load({ cwd, env })).map((p) => p.split(':')[0])).toEqual([
      'source.url',
      'source.username',
      'source.password',
    ]);
  });

  it('still validates whatever source keys are given', () => {
    const problems = problemsOf(() =>
      loadOfflineConfig({
        cwd: inFolder({}),
        env: { DATABASE_URL: FULL_ENV.DATABASE_URL, PROPSYNC_FORMAT: 'csv' },
      }),
    );
    expect(problems).toEqual(['PROPSYNC_FORMAT: "csv" is not a known format; expected json or xml']);
  });

  it('reports a missing database URL', () => {
    expect(problemsOf(() => loadOfflineConfig({ cwd: inFolder({}), env: {} }))).toEqual([
      'database.url: is missing; set DATABASE_URL or database.url in config/propsync.yaml',
    ]);
  });
});

describe('problems: one line each, naming the key, the fault and what is expected', () => {
  it('labels environment values by variable, list items by position', () => {
    const problems = problemsOf(() =>
      load({
        cwd: inFolder({}),
        env: {
          ...FULL_ENV,
          DATABASE_URL: 'mysql://root:db-secret-pw@127.0.0.1/wh',
          PROPSYNC_API_URL: 'acme.example.com',
          PROPSYNC_FORMAT: 'yaml',
          PROPSYNC_PROPERTY_IDS: '100001,12a,100003',
          PROPSYNC_PAGE_SIZE: '2',
          PROPSYNC_CONCURRENCY: 'four',
          PROPSYNC_REQUEST_TIMEOUT_MS: '1.5',
          PROPSYNC_TIME_ZONE: 'Mountain',
          PROPSYNC_LOG_LEVEL: 'loud',
        },
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'DATABASE_URL: "mysql://root:***@127.0.0.1/wh" is not a Postgres URL; expected postgres://user@host:5432/database',
        'PROPSYNC_API_URL: "acme.example.com" is not an http(s) URL; expected the service base such as https://example.entrata.com',
        'PROPSYNC_FORMAT: "yaml" is not a known format; expected json or xml',
        'PROPSYNC_PROPERTY_IDS (item 2): "12a" is not a numeric property id; expected digits such as 100001',
        'PROPSYNC_PAGE_SIZE: "2" is too small; expected at least 5',
        'PROPSYNC_CONCURRENCY: "four" is not a number; expected a number',
        'PROPSYNC_REQUEST_TIMEOUT_MS: "1.5" has a fraction; expected a whole number',
        'PROPSYNC_TIME_ZONE: "Mountain" is not an IANA time zone; expected America/Denver',
      ]),
    );
    expect(problems.find((p) => p.startsWith('PROPSYNC_LOG_LEVEL: "loud"'))).toMatch(
      /expected one of fatal, error, warn, info, debug, trace, silent/,
    );
    expect(problems).toHaveLength(9);
    expect(problems.join('\n')).not.toContain('db-secret-pw');
  });

  it('labels file values by file and key, and names unknown keys one per line', () => {
    const cwd = inFolder({
      'config/propsync.yaml': [
        'database: { url: "postgres://wh@127.0.0.1/wh" }',
        'source:',
        '  url: https://acme.example.com',
        '  username: u',
        '  password: p4ssw0rd-file',
        '  versions: { getLeases: r3 }',
        '  retry: { maxAttempts: 0 }',
        '  pagesize: 100',
        'streams:',
        '  leases: { schedule: "every night", chunk: 2y }',
        '  invoices: { enabled: "yes" }',
        'propertyIds: 100001',
        'metrics: { port: 70000 }',
        'colour: blue',
      ].join('\n'),
    });
    const problems = problemsOf(() => load({ cwd, env: {} }));
    const file = 'config/propsync.yaml';
    expect(problems.sort()).toEqual(
      [
        `${file}: source.versions.getLeases: "r3" is invalid; expected r1 or r2`,
        `${file}: source.retry.maxAttempts: 0 is too small; expected more than 0`,
        `${file}: source.pagesize: is not a known key; check the spelling against config/propsync.example.yaml`,
        `${file}: streams.leases.schedule: "every night" is not a valid cron expression; expected five or six fields such as "0 2 * * *"`,
        `${file}: streams.leases.chunk: "2y" is invalid; expected 1m, 3m or 1y`,
        `${file}: streams.invoices.enabled: "yes" is a string; expected true or false`,
        `${file}: propertyIds: 100001 is a number; expected a list`,
        `${file}: metrics.port: 70000 is too large; expected at most 65535`,
        `${file}: colour: is not a known key; check the spelling against config/propsync.example.yaml`,
      ].sort(),
    );
  });

  it('labels a list item of the file by its position', () => {
    const cwd = inFolder({ 'config/propsync.yaml': 'propertyIds: [100001, 100002, "Maple Court"]\n' });
    expect(problemsOf(() => load({ cwd, env: FULL_ENV }))).toEqual([
      'config/propsync.yaml: propertyIds[2]: "Maple Court" is not a numeric property id; expected digits such as 100001',
    ]);
  });

  it('names the file when its YAML is broken or not a mapping', () => {
    const broken = inFolder({ 'config/propsync.yaml': 'source:\n  url: "https://x\n  username: [\n' });
    const [problem] = problemsOf(() => load({ cwd: broken, env: FULL_ENV }));
    expect(problem).toMatch(
      /^config\/propsync\.yaml: is not valid YAML \(.+line \d+.*\); fix the file's syntax$/,
    );
    const list = inFolder({ 'config/propsync.yaml': '- database\n- source\n' });
    expect(problemsOf(() => load({ cwd: list, env: FULL_ENV }))).toEqual([
      'config/propsync.yaml: expected a mapping of keys at the top level (such as "database:" and "source:"), found a list',
    ]);
  });
});

describe('http:// with the password in clear text', () => {
  it('is refused for another machine, saying what to fix', () => {
    const problems = problemsOf(() =>
      load({ env: { ...FULL_ENV, PROPSYNC_API_URL: 'http://api.acme.example.com' } }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^PROPSYNC_API_URL: "http:\/\/api\.acme\.example\.com" would send the API password in clear text/,
    );
    expect(problems[0]).toContain(
      'use https://, or set source.allowInsecureHttp: true (PROPSYNC_API_ALLOW_INSECURE_HTTP=true)',
    );
    expect(problems[0]).not.toContain(PASSWORD);
    const cwd = inFolder({ 'config/propsync.yaml': 'source:\n  url: http://10.0.0.8:8080\n' });
    expect(problemsOf(() => load({ cwd, env: { ...FULL_ENV, PROPSYNC_API_URL: '' } }))[0]).toMatch(
      /^config\/propsync\.yaml: source\.url: "http:\/\/10\.0\.0\.8:8080" would send/,
    );
  });

  it('is accepted for this machine, and for another one when allowed explicitly', () => {
    for (const url of [
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://127.9.9.9',
      'http://[::1]:8080',
    ]) {
      expect(load({ env: { ...FULL_ENV, PROPSYNC_API_URL: url } }).source.url, url).toBe(url);
    }
    expect(load({ env: { ...FULL_ENV } }).source.allowInsecureHttp).toBe(false);
    const allowed = load({
      env: {
        ...FULL_ENV,
        PROPSYNC_API_URL: 'http://simulator:8080',
        PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true',
      },
    });
    expect(allowed.source).toMatchObject({ url: 'http://simulator:8080', allowInsecureHttp: true });
    const cwd = inFolder({
      'config/propsync.yaml': 'source:\n  url: http://simulator:8080\n  allowInsecureHttp: true\n',
    });
    expect(load({ cwd, env: { ...FULL_ENV, PROPSYNC_API_URL: '' } }).source.allowInsecureHttp).toBe(true);
    expect(problemsOf(() => load({ env: { ...FULL_ENV, PROPSYNC_API_ALLOW_INSECURE_HTTP: 'yes' } }))).toEqual(
      ['PROPSYNC_API_ALLOW_INSECURE_HTTP: "yes" is invalid; expected true or false'],
    );
  });
});

describe('the password is never printed', () => {
  const SECRET = 'c0rrect-h0rse-battery';

  it('hides a password of the wrong type, wherever it sits', () => {
    for (const yaml of [
      `password: 31415926535`,
      `password: [${SECRET}]`,
      `password: { value: ${SECRET} }`,
      `password: ""`,
    ]) {
      const cwd = inFolder({
        'config/propsync.yaml': `source:\n  url: https://acme.example.com\n  username: u\n  ${yaml}\n`,
      });
      const problems = problemsOf(() => load({ cwd, env: { DATABASE_URL: FULL_ENV.DATABASE_URL } }));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^config\/propsync\.yaml: source\.password: \(value hidden\) /);
      expect(problems[0]).not.toMatch(/31415926535|c0rrect/);
    }
  });

  it('hides it when it was pasted under another key', () => {
    const cwd = inFolder({
      'config/propsync.yaml': `source:\n  url: "${SECRET}"\n  username: u\n  password: "${SECRET}"\n  pasword: "${SECRET}"\n`,
    });
    const problems = problemsOf(() => load({ cwd, env: { DATABASE_URL: FULL_ENV.DATABASE_URL } }));
    expect(problems).toEqual([
      'config/propsync.yaml: source.url: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com',
      'config/propsync.yaml: source.pasword: is not a known key; check the spelling against config/propsync.example.yaml',
    ]);
  });

  it('hides the environment password when it shows up in another faulty value', () => {
    const problems = problemsOf(() =>
      load({
        cwd: inFolder({}),
        env: { ...FULL_ENV, PROPSYNC_API_PASSWORD: SECRET, PROPSYNC_API_URL: SECRET },
      }),
    );
    expect(problems).toEqual([
      'PROPSYNC_API_URL: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com',
    ]);
  });

  it('hides the whole password of a database URL, even one with a raw @', () => {
    const problems = problemsOf(() =>
      loadOfflineConfig({
        cwd: inFolder({}),
        env: { DATABASE_URL: 'mysql://wh:p@ss-w0rd@127.0.0.1:3306/wh' },
      }),
    );
    expect(problems).toEqual([
      'DATABASE_URL: "mysql://wh:***@127.0.0.1:3306/wh" is not a Postgres URL; expected postgres://user@host:5432/database',
    ]);
  });

  it('hides a password that broken YAML would quote', () => {
    const cwd = inFolder({ 'config/propsync.yaml': `source:\n  password: ${SECRET}\n   url: [\n` });
    const [problem] = problemsOf(() => load({ cwd, env: FULL_ENV }));
    expect(problem).toMatch(/^config\/propsync\.yaml: is not valid YAML/);
    expect(problem).not.toContain(SECRET);
  });
});
