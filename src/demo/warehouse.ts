import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { redactUrl } from '../log/redact.js';
import { dropDatabase, ensureDatabase, withDatabase } from '../warehouse/databases.js';
import { startEmbeddedPostgres } from '../warehouse/embedded.js';

/** The database the demo writes to on its embedded server. */
export const DEMO_DATABASE = 'propsync_demo';

/** Where the demo's data lives: an embedded Postgres under `.propsync/`, or `DATABASE_URL`. */
export interface DemoWarehouse {
  url: string;
  /** The URL without its password, for printing. */
  shown: string;
  /** Identifies the warehouse in the demo's state (no credentials). */
  fingerprint: string;
  embedded: boolean;
  /** How to connect with psql while the demo keeps the database up. */
  psql: string;
  /** Drops and recreates the demo database (embedded only). */
  recreate(): Promise<void>;
  /** Stops the embedded server (data kept); nothing for `DATABASE_URL`. */
  stop(): Promise<void>;
}

/** A database's identity without credentials: `host:port/database`. */
export function fingerprintOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/**
 * Removes `postmaster.pid` left by an embedded server that died with its demo, so that the
 * next start does not fail. Fails when that server is still running (another demo with --keep).
 */
export function clearStaleServerLock(dataDir: string): void {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  let alive = false;
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  if (alive)
    throw new Error(
      `another demo's Postgres (pid ${pid}) is using ${dataDir}; stop that demo (Ctrl-C in its terminal) first`,
    );
  rmSync(pidFile, { force: true });
}

/** Opens the demo's warehouse: `DATABASE_URL` when given, else the embedded server in `dataDir`. */
export async function openDemoWarehouse(options: {
  dataDir: string;
  databaseUrl?: string;
}): Promise<DemoWarehouse> {
  if (options.databaseUrl) {
    const url = options.databaseUrl;
    return {
      url,
      shown: redactUrl(url),
      fingerprint: fingerprintOf(url),
      embedded: false,
      psql: 'psql "$DATABASE_URL"',
      recreate: async () => {
        throw new Error('the demo never recreates a database given by DATABASE_URL');
      },
      stop: async () => {},
    };
  }
  const dataDir = resolve(options.dataDir);
  clearStaleServerLock(dataDir);
  const server = await startEmbeddedPostgres({ dataDir, persistent: true });
  await ensureDatabase(server.url, DEMO_DATABASE);
  const url = withDatabase(server.url, DEMO_DATABASE);
  const parsed = new URL(url);
  return {
    url,
    shown: redactUrl(url),
    fingerprint: `embedded:${options.dataDir}`,
    embedded: true,
    psql:
      `PGPASSWORD=${decodeURIComponent(parsed.password)} psql -h 127.0.0.1 -p ${server.port} ` +
      `-U ${parsed.username} ${DEMO_DATABASE}`,
    async recreate() {
      await dropDatabase(server.url, DEMO_DATABASE);
      await ensureDatabase(server.url, DEMO_DATABASE);
    },
    stop: () => server.stop(),
  };
}
