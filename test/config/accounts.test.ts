import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadOfflineConfig, type LoadOptions } from '../../src/config/load.js';
import { accountSecrets, configSchema } from '../../src/config/schema.js';
import { scratchFolder } from '../support/cli.js';

// Distinctive secrets: no message or warning may hold any of them, whole or in part.
const NORTH_PASSWORD = 'n0rth-Pa55-q81zz';
const SOUTH_KEY = 's0uth-K3y-w44mm';
const INLINE_SECRET = 'inl1ne-S3cret-v09';
const SECRETS = [NORTH_PASSWORD, SOUTH_KEY, INLINE_SECRET];

const DATABASE = 'database:\n  url: postgres://propsync@127.0.0.1:5432/propsync\n';

/** The form of issue 22, exactly. */
const TWO_ACCOUNTS = `database:
  url: postgres://propsync@127.0.0.1:5432/propsync
accounts:
  - id: north
    source:
      url: https://north.example.com
      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }
  - id: south
    source:
      url: https://apis.entrata.com
      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }
`;

const SECRET_ENV = { NORTH_API_PASSWORD: NORTH_PASSWORD, SOUTH_API_KEY: SOUTH_KEY };

const NORTH = `  - id: north
    source:
      url: https://north.example.com
      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }
`;
const SOUTH = `  - id: south
    source:
      url: https://apis.entrata.com
      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }
`;

const folders: { remove(): void }[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});

/** A working directory whose config/propsync.yaml is `yaml`. */
function withFile(yaml: string): string {
  const folder = scratchFolder({ 'config/propsync.yaml': yaml });
  folders.push(folder);
  return folder.dir;
}

function load(yaml: string, env: LoadOptions['env'] = SECRET_ENV) {
  return loadConfig({ cwd: withFile(yaml), env });
}

/** The error of a configuration that must not load; fails the test when it loads. No secret in any of its text. */
function rejected(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const text = `${(error as ConfigError).message}\n${(error as ConfigError).problems.join('\n')}`;
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    return error as ConfigError;
  }
  throw new Error('expected the configuration to be rejected, but it loaded');
}

function problemsOf(yaml: string, env: LoadOptions['env'] = SECRET_ENV): string[] {
  return rejected(() => load(yaml, env)).problems;
}

const FILE = 'config/propsync.yaml';

describe('accounts: the form of issue 22', () => {
  it('loads into two accounts, each with its auth and its secret from the variable it names', () => {
    const config = load(TWO_ACCOUNTS);
    expect(config.accounts).toHaveLength(2);
    const [north, south] = config.accounts;
    expect(north).toMatchObject({ id: 'north', name: null, timeZone: 'America/Denver', propertyIds: [] });
    expect(north.source.url).toBe('https://north.example.com');
    expect(north.source.auth).toEqual({ type: 'basic', username: 'api-user', password: NORTH_PASSWORD });
    expect(south).toMatchObject({ id: 'south', name: null, timeZone: 'America/Denver', propertyIds: [] });
    expect(south.source.url).toBe('https://apis.entrata.com');
    expect(south.source.auth).toEqual({ type: 'apikey', org: 'south-org', apiKey: SOUTH_KEY });
    // Every other source setting at its default; no credentials at the top of an account's source.
    expect(south.source).toMatchObject({
      format: 'json',
      pageSize: 500,
      retry: { maxAttempts: 6 },
      dailyCallBudget: 10_000,
    });
    expect(south.source).not.toHaveProperty('username');
    expect(south.source).not.toHaveProperty('password');
    expect(config.warnings).toEqual([]);
    // The top-level source holds the defaults only.
    expect(config.source.url).toBeUndefined();
    expect(config.source.pageSize).toBe(500);
    // What a log or an error must never show, for the CLI's scrubbing.
    expect(accountSecrets(config.accounts)).toEqual([NORTH_PASSWORD, SOUTH_KEY]);
  });

  it('takes a display name, and lets an account have its own time zone and property ids', () => {
    const config = load(`${DATABASE}accounts:
  - id: north_2
    name: North portfolio
    source:
      url: https://north.example.com
      timeZone: America/Chicago
      propertyIds: [100001, "100002"]
      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }
`);
    expect(config.accounts[0]).toMatchObject({
      id: 'north_2',
      name: 'North portfolio',
      timeZone: 'America/Chicago',
      propertyIds: ['100001', '100002'],
    });
    expect(config.accounts[0].source).not.toHaveProperty('timeZone');
    expect(config.accounts[0].source).not.toHaveProperty('propertyIds');
  });
});

describe('the one-account form is the account default', () => {
  const ENV = {
    DATABASE_URL: 'postgres://propsync@127.0.0.1:5432/warehouse',
    PROPSYNC_API_URL: 'https://acme.example.com',
    PROPSYNC_API_USERNAME: 'sync-user',
    PROPSYNC_API_PASSWORD: INLINE_SECRET,
    PROPSYNC_PROPERTY_IDS: '100001,100002',
    PROPSYNC_TIME_ZONE: 'America/Chicago',
    PROPSYNC_PAGE_SIZE: '250',
  };

  it('with the PROPSYNC_API_* variables, top-level fields as they were', () => {
    const config = loadConfig({ cwd: withFile('logLevel: warn\n'), env: ENV });
    expect(config.source).toMatchObject({
      url: 'https://acme.example.com',
      username: 'sync-user',
      password: INLINE_SECRET,
      pageSize: 250,
    });
    expect(config.timeZone).toBe('America/Chicago');
    expect(config.propertyIds).toEqual(['100001', '100002']);
    const { username: _, password: __, ...settings } = config.source;
    expect(config.accounts).toEqual([
      {
        id: 'default',
        name: null,
        source: { ...settings, auth: { type: 'basic', username: 'sync-user', password: INLINE_SECRET } },
        timeZone: 'America/Chicago',
        propertyIds: ['100001', '100002'],
      },
    ]);
    // Unchanged: a password in the one-account form's file or environment is no warning.
    expect(config.warnings).toEqual([]);
  });

  it('also from configSchema.parse, as tests build configurations', () => {
    const config = configSchema.parse({
      database: { url: 'postgres://a@127.0.0.1/b' },
      source: { url: 'https://a.example.com', username: 'u', password: 'p', pageSize: 50 },
    });
    expect(config.source.pageSize).toBe(50);
    expect(
      config.accounts.map((account) => [account.id, account.source.pageSize, account.source.auth]),
    ).toEqual([['default', 50, { type: 'basic', username: 'u', password: 'p' }]]);
    // The defaults of single keys stay readable.
    expect(configSchema.shape.source.shape.dailyCallBudget.parse(undefined)).toBe(10_000);
    expect(configSchema.shape.timeZone.parse(undefined)).toBe('America/Denver');
  });
});

describe('inheritance: the top-level source is every account’s defaults', () => {
  it('merges mappings key by key, replaces lists and values, and inherits the time zone', () => {
    const config = load(`${DATABASE}source:
  pageSize: 250
  retry: { maxAttempts: 3, baseDelayMs: 100 }
  versions: { getLeases: r1 }
  propertyIds: [100001]
timeZone: America/Chicago
accounts:
${NORTH}  - id: south
    source:
      url: https://apis.entrata.com
      pageSize: 100
      retry: { baseDelayMs: 900 }
      propertyIds: [200001, 200002]
      timeZone: America/Los_Angeles
      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }
`);
    const [north, south] = config.accounts;
    expect(north.source.pageSize).toBe(250);
    expect(north.source.retry).toEqual({
      maxAttempts: 3,
      baseDelayMs: 100,
      maxDelayMs: 30_000,
      maxTotalWaitMs: 180_000,
    });
    expect(north.source.versions).toEqual({
      getLeases: 'r1',
      getInvoices: 'r2',
      getProperties: 'r1',
      getPropertyUnits: 'r1',
    });
    expect(north.propertyIds).toEqual(['100001']);
    expect(north.timeZone).toBe('America/Chicago');
    expect(south.source.pageSize).toBe(100);
    expect(south.source.retry).toEqual({
      maxAttempts: 3,
      baseDelayMs: 900,
      maxDelayMs: 30_000,
      maxTotalWaitMs: 180_000,
    });
    expect(south.source.versions.getLeases).toBe('r1');
    expect(south.propertyIds).toEqual(['200001', '200002']);
    expect(south.timeZone).toBe('America/Los_Angeles');
    expect(config.source).toMatchObject({ pageSize: 250, retry: { maxAttempts: 3, baseDelayMs: 100 } });
  });

  it('takes a shared URL from the defaults, and the source variables as defaults an account may override', () => {
    const config = load(
      `${DATABASE}source:
  url: https://apis.entrata.com
accounts:
  - id: south
    source:
      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }
  - id: east
    source:
      concurrency: 2
      auth: { type: apikey, org: east-org, apiKeyEnv: SOUTH_API_KEY }
`,
      { ...SECRET_ENV, PROPSYNC_CONCURRENCY: '8', PROPSYNC_TIME_ZONE: 'America/New_York' },
    );
    expect(
      config.accounts.map((account) => [
        account.id,
        account.source.url,
        account.source.concurrency,
        account.timeZone,
      ]),
    ).toEqual([
      ['south', 'https://apis.entrata.com', 8, 'America/New_York'],
      ['east', 'https://apis.entrata.com', 2, 'America/New_York'],
    ]);
  });
});

describe('problems, per account, in the words of the file', () => {
  it('a missing URL', () => {
    expect(
      problemsOf(
        `${DATABASE}accounts:\n${NORTH}  - id: south\n    source:\n      auth: { type: apikey, org: south-org, apiKeyEnv: SOUTH_API_KEY }\n`,
      ),
    ).toEqual([`${FILE}: accounts[1].source.url: is missing; set accounts[1].source.url in ${FILE}`]);
  });

  it('a duplicate id, naming both positions', () => {
    const error = rejected(() => load(`${DATABASE}accounts:\n${NORTH}${SOUTH}${NORTH}`));
    expect(error.problems).toEqual([
      `${FILE}: accounts[2].id: "north" is already the id of accounts[0]; expected a different id for each account`,
    ]);
    expect(error.accountOf).toEqual(['accounts[2] (north)']);
  });

  it('an id that is not lowercase letters, digits, - and _, or longer than 40', () => {
    const expected =
      'is not a valid account id; expected 1 to 40 lowercase letters, digits, - or _ (the id is stored with every row of the account, so keep it stable)';
    const long = 'a'.repeat(41);
    const problems = problemsOf(
      `${DATABASE}accounts:\n${NORTH.replace('id: north', 'id: North Side')}${SOUTH.replace('id: south', `id: ${long}`)}  - source: {}\n`,
    );
    expect(problems).toEqual([
      `${FILE}: accounts[0].id: "North Side" ${expected}`,
      `${FILE}: accounts[1].id: "${long}" ${expected}`,
      `${FILE}: accounts[2].id: is missing; set accounts[2].id in ${FILE}`,
      `${FILE}: accounts[2].source.url: is missing; set accounts[2].source.url in ${FILE}`,
      `${FILE}: accounts[2].source.auth: is missing; set accounts[2].source.auth in ${FILE}`,
    ]);
    // 40 characters are fine.
    expect(
      load(`${DATABASE}accounts:\n${NORTH.replace('id: north', `id: ${'a'.repeat(38)}-1`)}`).accounts[0].id,
    ).toHaveLength(40);
  });

  it('a passwordEnv or apiKeyEnv naming a variable that is not set (or is empty): the variable named, never a value', () => {
    const error = rejected(() => load(TWO_ACCOUNTS, { SOUTH_API_KEY: '' }));
    expect(error.problems).toEqual([
      `${FILE}: accounts[0].source.auth.passwordEnv: "NORTH_API_PASSWORD" names a variable that is not set (or is empty); expected NORTH_API_PASSWORD to hold the password`,
      `${FILE}: accounts[1].source.auth.apiKeyEnv: "SOUTH_API_KEY" names a variable that is not set (or is empty); expected SOUTH_API_KEY to hold the API key`,
    ]);
    expect(error.accountOf).toEqual(['accounts[0] (north)', 'accounts[1] (south)']);
  });

  it('both passwordEnv and an inline password', () => {
    const yaml = `${DATABASE}accounts:\n${NORTH.replace('passwordEnv: NORTH_API_PASSWORD', `passwordEnv: NORTH_API_PASSWORD, password: ${INLINE_SECRET}`)}`;
    expect(problemsOf(yaml)).toEqual([
      `${FILE}: accounts[0].source.auth.password: is given as well as passwordEnv; expected only passwordEnv: remove password from the file`,
    ]);
  });

  it('neither passwordEnv nor a password, no auth type, an unknown one, a missing user', () => {
    const problems = problemsOf(`${DATABASE}accounts:
  - id: a
    source: { url: "https://a.example.com", auth: { type: basic, username: u } }
  - id: b
    source: { url: "https://b.example.com", auth: { username: u, passwordEnv: NORTH_API_PASSWORD } }
  - id: c
    source: { url: "https://c.example.com", auth: { type: oauth } }
  - id: d
    source: { url: "https://d.example.com", auth: { type: apikey, apiKeyEnv: SOUTH_API_KEY, passwordEnv: NORTH_API_PASSWORD } }
  - id: e
    source: { url: "https://e.example.com", auth: basic }
`);
    expect(problems).toEqual([
      `${FILE}: accounts[0].source.auth.passwordEnv: is missing; set accounts[0].source.auth.passwordEnv in ${FILE}`,
      `${FILE}: accounts[1].source.auth.type: is missing; set accounts[1].source.auth.type in ${FILE}`,
      `${FILE}: accounts[2].source.auth.type: "oauth" is not a known auth type; expected basic or apikey`,
      `${FILE}: accounts[3].source.auth.org: is missing; set accounts[3].source.auth.org in ${FILE}`,
      `${FILE}: accounts[3].source.auth.passwordEnv: is not a known key; check the spelling against config/propsync.example.yaml`,
      `${FILE}: accounts[4].source.auth: "basic" is a string; expected a mapping of keys`,
    ]);
  });

  it('an org the gateway does not allow, or of dots that climb out of its path (issue 35 item 8)', () => {
    const withOrg = (org: string) =>
      `${DATABASE}accounts:\n${NORTH}${SOUTH.replace('org: south-org', `org: "${org}"`)}`;
    expect(problemsOf(withOrg('..'))).toEqual([
      `${FILE}: accounts[1].source.auth.org: ".." is only dots; expected letters, digits, -, _ or . (not alone)`,
    ]);
    expect(problemsOf(withOrg('.'))).toHaveLength(1);
    expect(problemsOf(withOrg('south/../v1'))).toEqual([
      `${FILE}: accounts[1].source.auth.org: "south/../v1" holds a character the gateway does not allow; expected letters, digits, -, _ or .`,
    ]);
    expect(load(withOrg('south.org_2-a')).accounts[1].source.auth).toMatchObject({ org: 'south.org_2-a' });
  });

  it('format xml with the API-key gateway, the account’s own or inherited', () => {
    const own = `${DATABASE}accounts:\n${NORTH.replace('url:', 'format: xml\n      url:')}${SOUTH.replace('url:', 'format: xml\n      url:')}`;
    expect(problemsOf(own)).toEqual([
      `${FILE}: accounts[1].source.format: "xml" is not possible for accounts[1], whose auth type is apikey; expected json: the API-key gateway takes JSON only`,
    ]);
    const inherited = rejected(() => load(TWO_ACCOUNTS, { ...SECRET_ENV, PROPSYNC_FORMAT: 'xml' }));
    expect(inherited.problems).toEqual([
      'PROPSYNC_FORMAT: "xml" is not possible for accounts[1], whose auth type is apikey; expected json: the API-key gateway takes JSON only',
    ]);
    expect(inherited.accountOf).toEqual(['accounts[1] (south)']);
  });

  it('what belongs to the one-account form, with accounts:', () => {
    const yaml = `${DATABASE}source:\n  username: someone\n  password: ${INLINE_SECRET}\n  auth: { type: basic }\npropertyIds: [100001]\naccounts:\n${NORTH}`;
    expect(problemsOf(yaml)).toEqual([
      `${FILE}: propertyIds: belongs to the one-account form; with accounts:, set each account's source.propertyIds (or source.propertyIds for all of them)`,
      `${FILE}: source.username: belongs to the one-account form; with accounts:, each account's source.auth holds its credentials`,
      `${FILE}: source.password: belongs to the one-account form; with accounts:, each account's source.auth holds its credentials`,
      `${FILE}: source.auth: is not inherited; expected it in each account: accounts[].source.auth`,
    ]);
    const env = {
      ...SECRET_ENV,
      PROPSYNC_API_USERNAME: 'someone',
      PROPSYNC_API_PASSWORD: INLINE_SECRET,
      PROPSYNC_PROPERTY_IDS: '100001',
    };
    expect(problemsOf(`${DATABASE}accounts:\n${NORTH}`, env)).toEqual([
      "PROPSYNC_PROPERTY_IDS: belongs to the one-account form; with accounts:, set each account's source.propertyIds (or source.propertyIds for all of them)",
      "PROPSYNC_API_USERNAME: belongs to the one-account form; with accounts:, each account's source.auth holds its credentials",
      "PROPSYNC_API_PASSWORD: belongs to the one-account form; with accounts:, each account's source.auth holds its credentials",
    ]);
    // An empty top-level list (as in the example file) is no problem.
    expect(load(`${DATABASE}propertyIds: []\naccounts:\n${NORTH}`).accounts).toHaveLength(1);
  });

  it('credentials at the top of an account’s source, and unknown or faulty keys', () => {
    const problems = problemsOf(`${DATABASE}accounts:
  - id: north
    nmae: North
    source:
      url: https://north.example.com
      username: api-user
      password: ${INLINE_SECRET}
      pagesize: 100
      retry: { maxAttempts: 0 }
      timeZone: Mountain
      propertyIds: [12a]
      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }
`);
    expect(problems).toEqual([
      `${FILE}: accounts[0].nmae: is not a known key; check the spelling against config/propsync.example.yaml`,
      `${FILE}: accounts[0].source.username: belongs in auth; expected auth: { type: basic, username: ..., passwordEnv: ... }`,
      `${FILE}: accounts[0].source.password: belongs in auth; expected auth: { type: basic, username: ..., passwordEnv: ... }`,
      `${FILE}: accounts[0].source.retry.maxAttempts: 0 is too small; expected more than 0`,
      `${FILE}: accounts[0].source.timeZone: "Mountain" is not an IANA time zone; expected America/Denver`,
      `${FILE}: accounts[0].source.propertyIds[0]: "12a" is not a numeric property id; expected digits such as 100001`,
      `${FILE}: accounts[0].source.pagesize: is not a known key; check the spelling against config/propsync.example.yaml`,
    ]);
  });

  it('a faulty default once, under source, not again for each account', () => {
    expect(problemsOf(`${DATABASE}source:\n  pageSize: 2\naccounts:\n${NORTH}${SOUTH}`)).toEqual([
      `${FILE}: source.pageSize: 2 is too small; expected at least 5`,
    ]);
  });

  it('an account that is not a mapping', () => {
    expect(problemsOf(`${DATABASE}accounts:\n  - north\n`)).toEqual([
      `${FILE}: accounts[0]: "north" is a string; expected a mapping of keys`,
    ]);
  });

  it('an empty list of accounts, or none', () => {
    expect(problemsOf(`${DATABASE}accounts: []\n`)).toEqual([
      `${FILE}: accounts: is empty; expected at least one account`,
    ]);
    expect(problemsOf(`${DATABASE}accounts:\n`)).toEqual([
      `${FILE}: accounts: null is empty; expected a list`,
    ]);
  });

  it('the rest of the configuration and every account at once, each problem with the account it belongs to', () => {
    const error = rejected(() =>
      load(`database: {}\naccounts:\n${NORTH}  - id: south\n    source: {}\n`, {}),
    );
    expect(error.problems).toEqual([
      `database.url: is missing; set DATABASE_URL or database.url in ${FILE}`,
      `${FILE}: accounts[0].source.auth.passwordEnv: "NORTH_API_PASSWORD" names a variable that is not set (or is empty); expected NORTH_API_PASSWORD to hold the password`,
      `${FILE}: accounts[1].source.url: is missing; set accounts[1].source.url in ${FILE}`,
      `${FILE}: accounts[1].source.auth: is missing; set accounts[1].source.auth in ${FILE}`,
    ]);
    expect(error.accountOf).toEqual([
      null,
      'accounts[0] (north)',
      'accounts[1] (south)',
      'accounts[1] (south)',
    ]);
  });
});

describe('an inline password or API key: accepted, with a warning', () => {
  it('warns, naming the key and never the value', () => {
    const config = load(
      `${DATABASE}accounts:\n${NORTH.replace('passwordEnv: NORTH_API_PASSWORD', `password: "${INLINE_SECRET}"`)}${SOUTH.replace('apiKeyEnv: SOUTH_API_KEY', `apiKey: "${INLINE_SECRET}"`)}`,
      {},
    );
    expect(config.accounts.map((account) => account.source.auth)).toEqual([
      { type: 'basic', username: 'api-user', password: INLINE_SECRET },
      { type: 'apikey', org: 'south-org', apiKey: INLINE_SECRET },
    ]);
    expect(config.warnings).toEqual([
      `${FILE}: accounts[0].source.auth.password: the password is written in the configuration; it is accepted, but keep it out of the file: set passwordEnv to the name of an environment variable that holds it`,
      `${FILE}: accounts[1].source.auth.apiKey: the API key is written in the configuration; it is accepted, but keep it out of the file: set apiKeyEnv to the name of an environment variable that holds it`,
    ]);
  });
});

describe('no secret in any problem', () => {
  it('hides a secret pasted where a value is quoted, from the environment or the file', () => {
    const problems = problemsOf(`${DATABASE}accounts:
  - id: north
    source:
      url: "${NORTH_PASSWORD}"
      auth: { type: basic, username: api-user, passwordEnv: NORTH_API_PASSWORD }
  - id: south
    name: "${SOUTH_KEY}"
    source:
      url: "${SOUTH_KEY}"
      auth: { type: apikey, org: "${SOUTH_KEY}", apiKeyEnv: SOUTH_API_KEY, apiKey: 31415926535 }
  - id: "${INLINE_SECRET}"
    source:
      url: https://east.example.com
      auth: { type: basic, username: u, password: "${INLINE_SECRET}" }
`);
    expect(problems).toEqual([
      `${FILE}: accounts[0].source.url: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com`,
      `${FILE}: accounts[1].source.url: "***" is not an http(s) URL; expected the service base such as https://example.entrata.com`,
      `${FILE}: accounts[1].source.auth.apiKey: (value hidden) is a number; expected a string`,
      `${FILE}: accounts[2].id: "***" is not a valid account id; expected 1 to 40 lowercase letters, digits, - or _ (the id is stored with every row of the account, so keep it stable)`,
    ]);
    expect(problems.join('\n')).not.toContain('31415926535');
  });

  it('hides an account’s secret in a problem elsewhere', () => {
    const problems = problemsOf(
      TWO_ACCOUNTS.replace(
        'database:\n  url: postgres://propsync@127.0.0.1:5432/propsync',
        `database:\n  url: "${SOUTH_KEY}"\nlogLevel: "${NORTH_PASSWORD}"`,
      ),
    );
    expect(problems[0]).toBe(
      `${FILE}: database.url: "***" is not a Postgres URL; expected postgres://user@host:5432/database`,
    );
    expect(problems[1]).toMatch(/^config\/propsync\.yaml: logLevel: "\*\*\*" is invalid; expected one of /);
  });
});

describe('loadOfflineConfig with accounts', () => {
  it('lists the accounts without their secrets or URLs, but still checks what is given', () => {
    const config = loadOfflineConfig({
      cwd: withFile(
        `${DATABASE}accounts:\n${NORTH}  - id: south\n    source:\n      auth: { type: apikey, apiKeyEnv: SOUTH_API_KEY }\n`,
      ),
      env: {},
    });
    expect(config.accounts.map((account) => [account.id, account.source.url, account.source.auth])).toEqual([
      ['north', 'https://north.example.com', { type: 'basic', username: 'api-user' }],
      ['south', undefined, { type: 'apikey' }],
    ]);
    const problems = rejected(() =>
      loadOfflineConfig({
        cwd: withFile(`${DATABASE}accounts:\n  - id: North\n    source: { auth: { type: oauth } }\n`),
        env: {},
      }),
    ).problems;
    expect(problems).toEqual([
      `${FILE}: accounts[0].id: "North" is not a valid account id; expected 1 to 40 lowercase letters, digits, - or _ (the id is stored with every row of the account, so keep it stable)`,
      `${FILE}: accounts[0].source.auth.type: "oauth" is not a known auth type; expected basic or apikey`,
    ]);
  });

  it('the one-account form without a source is the account default', () => {
    const config = loadOfflineConfig({
      cwd: withFile(''),
      env: { DATABASE_URL: 'postgres://a@127.0.0.1/b' },
    });
    expect(
      config.accounts.map((account) => [
        account.id,
        account.source.url,
        account.source.auth,
        account.source.pageSize,
      ]),
    ).toEqual([['default', undefined, { type: 'basic' }, 500]]);
  });
});

describe("an account's own privacy: (issue 40)", () => {
  const PRIVACY_KEY = 'p'.repeat(40);
  const withPrivacy = (top: string, north: string, south = '') =>
    `${DATABASE}${top}accounts:\n${NORTH}${north}${SOUTH}${south}`;

  it('lays its keys over the top-level policy, its classes merged; the others keep the top level', () => {
    const config = load(
      withPrivacy(
        'privacy:\n  hashKeyEnv: PROPSYNC_PRIVACY_KEY\n  personal: keep\n  classes: { phone: drop }\n',
        '    privacy: { personal: hash, classes: { email: keep } }\n',
      ),
      { ...SECRET_ENV, PROPSYNC_PRIVACY_KEY: PRIVACY_KEY },
    );
    const [north, south] = config.accounts;
    expect(north.privacy?.modes).toMatchObject({
      name: 'hash',
      email: 'keep',
      phone: 'drop',
      address: 'hash',
    });
    expect(north.privacy?.hashKey).toBe(PRIVACY_KEY);
    expect(south.privacy).toBeUndefined();
    expect(config.privacy.modes).toMatchObject({ name: 'keep', email: 'keep', phone: 'drop' });
  });

  it('takes a key of its own, so that one client’s hashes cannot be joined with another’s', () => {
    const config = load(withPrivacy('', '    privacy: { personal: hash, hashKeyEnv: NORTH_PRIVACY_KEY }\n'), {
      ...SECRET_ENV,
      NORTH_PRIVACY_KEY: PRIVACY_KEY,
    });
    expect(config.accounts[0].privacy?.hashKey).toBe(PRIVACY_KEY);
    expect(config.accounts[0].privacy?.hashKeyEnv).toBe('NORTH_PRIVACY_KEY');
    expect(config.privacy.modes.name).toBe('keep');
  });

  it('names the account’s own keys when its policy is wrong or its key missing, never the key', () => {
    const error = rejected(() =>
      load(
        withPrivacy(
          '',
          '    privacy: { personal: hash, hashKeyEnv: NORTH_PRIVACY_KEY }\n',
          '    privacy: { personal: scramble }\n',
        ),
        { ...SECRET_ENV, NORTH_PRIVACY_KEY: 'short-key-value' },
      ),
    );
    expect(error.problems).toEqual([
      `${FILE}: accounts[0].privacy.hashKeyEnv: names a variable whose key is shorter than 32 bytes; expected NORTH_PRIVACY_KEY to hold a longer one (\`openssl rand -base64 48\` makes one)`,
      `${FILE}: accounts[1].privacy.personal: "scramble" is invalid; expected one of keep, hash, drop`,
    ]);
    expect(error.message).not.toContain('short-key-value');
  });
});
