/**
 * Secrets of the warehouse URL stay hidden wherever a URL is shown (config check, status,
 * logs, errors), and text from the source cannot act on the terminal.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { escapeControls, redactUrl, scrubSecrets, urlPasswords } from '../../src/log/redact.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { runPropsync } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

vi.setConfig({ testTimeout: 180_000 });

const QUERY_SECRET = 'Qp4ss-never-shown';
const SSL_SECRET = 'Ssl-k3y-never-shown';

describe('redactUrl', () => {
  it('hides the query password (password, sslpassword, any case) as it hides the user-info one', () => {
    expect(redactUrl(`postgres://u@h:5432/db?sslmode=require&password=${QUERY_SECRET}`)).toBe(
      'postgres://u@h:5432/db?sslmode=require&password=***',
    );
    expect(redactUrl(`postgres://u@h/db?PassWord=${QUERY_SECRET}&sslPassword=${SSL_SECRET}#x`)).toBe(
      'postgres://u@h/db?PassWord=***&sslPassword=***#x',
    );
    expect(redactUrl(`postgres://u:${QUERY_SECRET}@h/db?password=${SSL_SECRET}`)).toBe(
      'postgres://u:***@h/db?password=***',
    );
    expect(redactUrl('postgres://u@h/db?application_name=passwords&user=x')).toBe(
      'postgres://u@h/db?application_name=passwords&user=x',
    );
  });

  it('lists the passwords of a URL, percent-decoded too, so that scrubSecrets finds them in any message', () => {
    const url = `postgres://u:p%40ss-word@h/db?password=${QUERY_SECRET}&sslpassword=a%2Fb%2Bc`;
    expect(urlPasswords(url)).toEqual(
      expect.arrayContaining(['p%40ss-word', 'p@ss-word', QUERY_SECRET, 'a%2Fb%2Bc', 'a/b+c']),
    );
    expect(urlPasswords(undefined)).toEqual([]);
    expect(scrubSecrets(`connect failed: password "${QUERY_SECRET}" rejected`, urlPasswords(url))).toBe(
      'connect failed: password "***" rejected',
    );
  });
});

describe('scrubSecrets (issue 35, issue 36 item 4)', () => {
  it("hides a secret by its exact value, at any length, never a word of the source's message", () => {
    // A password that is a word: the source's own word stays; every quoting of the password goes.
    const refused = 'authentication failed: missing or wrong Basic credentials';
    expect(scrubSecrets(refused, ['wrong', 'north-user:wrong'])).toBe(refused);
    expect(scrubSecrets('password "wrong" refused; password=wrong; key:wrong', ['wrong'])).toBe(
      'password "***" refused; password=***; key:***',
    );
    expect(scrubSecrets('wrong', ['wrong'])).toBe('***');
    // Shorter than 3 characters: hidden where it stands whole, not inside other text.
    expect(scrubSecrets('key 7 refused on page 17', ['7'])).toBe('key *** refused on page 17');
    expect(scrubSecrets("a='x9' x9 ax9", ['x9'])).toBe("a='***' *** ax9");
    expect(scrubSecrets("about 'ab'", ['ab'])).toBe("about '***'");
    // The forms a request carries it in, wherever they stand: the Basic token, percent-encoding.
    const token = Buffer.from('u:p9').toString('base64');
    expect(scrubSecrets(`Authorization: Basic ${token}`, ['p9', 'u:p9'])).toBe('Authorization: Basic ***');
    expect(scrubSecrets('?key=p%2F9&x', ['p/9'])).toBe('?key=***&x');
    // A long secret, wherever it stands.
    expect(scrubSecrets(`x${QUERY_SECRET}y`, [QUERY_SECRET])).toBe('x***y');
  });
});

describe('escapeControls', () => {
  it('writes control characters as escapes and leaves other text as it is', () => {
    expect(escapeControls('Apt\u0000 4\u001b[2J\r\n\t\u007f\u0085\u202eevil')).toBe(
      'Apt\\u0000 4\\u001b[2J\\r\\n\\t\\u007f\\u0085\\u202eevil',
    );
    expect(escapeControls('José O’Brien 🏠 "quoted"')).toBe('José O’Brien 🏠 "quoted"');
  });
});

describe('a warehouse URL with ?password= in the CLI', () => {
  let warehouse: TestDatabase;
  let sim: Simulator;
  beforeAll(async () => {
    warehouse = await createTestDatabase();
    sim = await startSimulator({
      port: 0,
      scale: 'small',
      seed: 3,
      username: 'u',
      password: 'right-password',
      rateLimit: 'off',
    });
  });
  afterAll(async () => {
    await sim?.close();
    await warehouse?.drop();
  });

  // The server's own password when it has one (an embedded server), else any: trust auth ignores it.
  const secretUrl = () => {
    const url = new URL(warehouse.url);
    const secret = decodeURIComponent(url.password) || QUERY_SECRET;
    url.password = '';
    url.searchParams.set('password', secret);
    return url.toString();
  };
  const expectHidden = (output: string) => {
    expect(output).not.toContain(QUERY_SECRET);
    const own = decodeURIComponent(new URL(warehouse.url).password);
    if (own) expect(output).not.toContain(own);
    expect(output).not.toContain(SSL_SECRET);
  };

  it('config check prints it masked, from the environment or the file', async () => {
    const env = {
      PROPSYNC_API_URL: sim.url,
      PROPSYNC_API_USERNAME: 'u',
      PROPSYNC_API_PASSWORD: 'right-password',
    };
    const fromEnv = await runPropsync(['config', 'check'], {
      env: {
        ...env,
        DATABASE_URL: `postgres://a@127.0.0.1/b?sslpassword=${SSL_SECRET}&PASSWORD=${QUERY_SECRET}`,
      },
    });
    expect(fromEnv.code).toBe(0);
    expectHidden(fromEnv.stdout + fromEnv.stderr);
    expect(fromEnv.stdout).toContain('url: postgres://a@127.0.0.1/b?sslpassword=***&PASSWORD=***');
  });

  it('status prints the warehouse masked', async () => {
    const result = await runPropsync(['status'], { env: { DATABASE_URL: secretUrl() } });
    expect(result.code).toBe(0);
    expectHidden(result.stdout + result.stderr);
    expect(result.stdout).toContain('?password=***');
  });

  it('an unreachable warehouse is reported without it', async () => {
    const result = await runPropsync(['status'], {
      env: { DATABASE_URL: `postgres://nobody@127.0.0.1:1/none?password=${QUERY_SECRET}` },
    });
    expect(result.code).toBe(2);
    expectHidden(result.stdout + result.stderr);
    expect(result.stderr).toContain(
      'cannot reach the warehouse at postgres://nobody@127.0.0.1:1/none?password=***',
    );
  });

  it('a failing sync logs and prints its errors without it', async () => {
    const result = await runPropsync(['sync', '--stream', 'leases'], {
      env: {
        DATABASE_URL: secretUrl(),
        PROPSYNC_API_URL: sim.url,
        PROPSYNC_API_USERNAME: 'u',
        PROPSYNC_API_PASSWORD: 'wrong-password',
        PROPSYNC_PROPERTY_IDS: '100001',
        PROPSYNC_LOG_LEVEL: 'debug',
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/authentication failed/);
    expectHidden(result.stdout + result.stderr);
  });
});
