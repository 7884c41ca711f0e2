/**
 * TLS to the warehouse, against a Postgres of the test's own with `ssl = on`, a certificate signed
 * by a CA the test makes, and TLS required (`hostssl`): migrate and check over verified TLS, what
 * a wrong or missing setting says to set, and the queue's connection following DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBoss } from '../../src/queue/boss.js';
import { createLogger } from '../../src/log/logger.js';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { runPropsync } from '../support/cli.js';
import { startTlsPostgres, type TlsPostgres } from '../support/tls-postgres.js';

let server: TlsPostgres;
let sim: Simulator<AdvanceSummary>;
beforeAll(async () => {
  server = await startTlsPostgres();
  sim = await startSimulator({
    port: 0,
    scale: 'small',
    seed: 3,
    username: 'u',
    password: 'tls-test-pw',
    rateLimit: 'off',
  });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await server?.stop();
});

const envFor = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  PROPSYNC_API_URL: sim.url,
  PROPSYNC_API_ALLOW_INSECURE_HTTP: 'true',
  PROPSYNC_API_USERNAME: 'u',
  PROPSYNC_API_PASSWORD: 'tls-test-pw',
  PROPSYNC_MAX_CLOCK_SKEW_HOURS: '0',
});

describe('TLS to the warehouse', () => {
  it('migrates and checks over TLS with the certificate verified against sslrootcert', async () => {
    const url = server.url(`sslmode=verify-full&sslrootcert=${server.caFile}`);
    const migrated = await runPropsync(['migrate'], { env: envFor(url) });
    expect(migrated.code, migrated.stderr).toBe(0);
    const check = await runPropsync(['check'], { env: envFor(url) });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(
      new RegExp(
        `^ok {3}database: .*TLS in use \\(TLSv1\\.[23]\\), certificate verified: chain and host name against sslrootcert ${server.caFile} \\(sslmode=verify-full\\)$`,
        'm',
      ),
    );
    const config = await runPropsync(['config', 'check'], { env: envFor(url) });
    expect(config.stdout).toMatch(
      /^# database: TLS asked for, certificate verified: chain and host name against sslrootcert/m,
    );
  }, 180_000);

  it('sslmode=require verifies too (node-postgres), and an untrusted certificate says to set sslrootcert', async () => {
    const check = await runPropsync(['check'], { env: envFor(server.url('sslmode=require')) });
    expect(check.code).toBe(2);
    expect(check.stdout).toMatch(
      /^FAIL database: cannot reach the warehouse at .*: unable to verify the first certificate; the server's certificate is not signed by a CA Node trusts; add sslrootcert=/m,
    );
  }, 120_000);

  it('the wrong CA, no TLS asked for, and sslmode=no-verify each say what they are', async () => {
    const wrongCa = await runPropsync(['check'], {
      env: envFor(server.url(`sslmode=verify-full&sslrootcert=${server.otherCaFile}`)),
    });
    expect(wrongCa.stdout).toMatch(
      new RegExp(
        `^FAIL database: .*not signed by the CA in sslrootcert ${server.otherCaFile}; point sslrootcert at the CA that signed it`,
        'm',
      ),
    );
    const plain = await runPropsync(['check'], { env: envFor(server.url()) });
    expect(plain.stdout).toMatch(
      /^FAIL database: .*no encryption; the server accepts only TLS connections; add sslmode=verify-full/m,
    );
    const unverified = await runPropsync(['check'], { env: envFor(server.url('sslmode=no-verify')) });
    expect(unverified.stdout).toMatch(
      /^ok {3}database: .*TLS in use .*certificate NOT verified: set sslmode=verify-full/m,
    );
  }, 180_000);

  it("the queue's connection (pg-boss) follows DATABASE_URL's TLS settings", async () => {
    const logger = createLogger({ level: 'silent', destination: process.stderr });
    const boss = await openBoss(server.url(`sslmode=verify-full&sslrootcert=${server.caFile}`), logger, {
      maxConnections: 1,
    });
    await boss.stop({ graceful: false, wait: true });
    // The same queue without the CA is refused: it does not fall back to a connection without TLS.
    await expect(openBoss(server.url('sslmode=verify-full'), logger, { maxConnections: 1 })).rejects.toThrow(
      /unable to verify the first certificate/,
    );
  }, 120_000);
});
