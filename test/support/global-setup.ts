import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { building } from './template-database.js';
import { buildCommand } from './test-command.js';
import { redactUrl } from '../../src/log/redact.js';
import { dropDatabase } from '../../src/warehouse/databases.js';
import { startEmbeddedPostgres } from '../../src/warehouse/embedded.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the Postgres server that the tests use; each test file makes its own database there. */
    adminDatabaseUrl: string;
    /** Which of the three ways found the server: env, testcontainers or embedded. */
    databaseOrigin: string;
    /** The name of this run's migrated template database (made by the first file that needs it). */
    migratedTemplate: string;
    /** The entry of this run's build of the command (`buildCommand`). */
    testCommand: string;
  }
}

/** Answers within a few hundred milliseconds whether a Docker-compatible engine listens. */
async function containerRuntimeAnswers(): Promise<boolean> {
  const socket = process.env.DOCKER_HOST?.startsWith('unix://')
    ? process.env.DOCKER_HOST.slice(7)
    : '/var/run/docker.sock';
  if (process.env.DOCKER_HOST && !process.env.DOCKER_HOST.startsWith('unix://')) return false;
  if (!existsSync(socket)) return false;
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping', timeout: 500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}

/** Fails the run at once, with one clear line, when the configured server does not answer. */
async function assertAnswers(url: string, variable: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(
      `${variable}=${redactUrl(url)} does not answer (${(error as Error).message}); start that Postgres, or unset ${variable} to let the tests start their own`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops the run's template database and any half-made one (a server already stopped has none to drop). */
async function dropTemplate(adminUrl: string, template: string): Promise<void> {
  for (const name of [template, building(template)]) await dropDatabase(adminUrl, name).catch(() => {});
}

/** Builds the command for the run's tests, and finds their Postgres server. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const built = mkdtempSync(join(tmpdir(), 'propsync-test-command-'));
  project.provide('testCommand', buildCommand(built));
  const stopServer = await findServer(project);
  return async () => {
    await stopServer();
    rmSync(built, { recursive: true, force: true });
  };
}

/**
 * Finds the Postgres server for the whole test run: TEST_DATABASE_URL (or DATABASE_URL) when set;
 * else a testcontainers PostgreSQL when a container engine answers; else an embedded Postgres.
 * Returns what stops it (and drops the run's template database).
 */
async function findServer(project: TestProject): Promise<() => Promise<void>> {
  const template = `propsync_test_template_${randomBytes(5).toString('hex')}`;
  project.provide('migratedTemplate', template);
  const fromEnv = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (fromEnv) {
    await assertAnswers(fromEnv, process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : 'DATABASE_URL');
    project.provide('adminDatabaseUrl', fromEnv);
    project.provide('databaseOrigin', 'env');
    return () => dropTemplate(fromEnv, template);
  }
  if (await containerRuntimeAnswers()) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    project.provide('adminDatabaseUrl', container.getConnectionUri());
    project.provide('databaseOrigin', 'testcontainers');
    return async () => {
      await container.stop();
    };
  }
  const folder = mkdtempSync(join(tmpdir(), 'propsync-test-pg-'));
  // mkdtemp makes the folder 0700; as root the server runs as the `postgres` user, which must enter it.
  chmodSync(folder, 0o711);
  const server = await startEmbeddedPostgres({ dataDir: join(folder, 'data'), persistent: false });
  project.provide('adminDatabaseUrl', server.url);
  project.provide('databaseOrigin', 'embedded');
  return async () => {
    await dropTemplate(server.url, template);
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  };
}
