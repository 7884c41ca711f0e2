import { execFile } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { scratchFolder } from '../support/cli.js';

// The embedded Postgres that the tests (with no database configured) and the demo run on, in
// a process of its own: it must leave the process's exit code alone, so that a failing test run
// fails, and must not outlive its process.
vi.setConfig({ testTimeout: 180_000 });

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EMBEDDED = join(ROOT, 'src/warehouse/embedded.ts');
const folder = scratchFolder();
// As root the server runs as the `postgres` user, which must be able to enter the folder.
chmodSync(folder.dir, 0o711);

afterAll(() => folder.remove());

function runScript(
  name: string,
  body: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = join(folder.dir, `${name}.mts`);
  writeFileSync(script, `import { startEmbeddedPostgres } from ${JSON.stringify(EMBEDDED)};\n${body}\n`);
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, join(folder.dir, name, 'data')],
      { cwd: ROOT, timeout: 150_000 },
      (error, stdout, stderr) => {
        resolvePromise({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

describe('startEmbeddedPostgres in a process of its own', () => {
  it('keeps a failing exit code when the process ends by itself after stop()', async () => {
    const result = await runScript(
      'natural',
      `const server = await startEmbeddedPostgres({ dataDir: process.argv[2], persistent: false });
       const { ensureDatabase } = await import(${JSON.stringify(join(ROOT, 'src/warehouse/databases.ts'))});
       await ensureDatabase(server.url, 'probe');
       console.log('answered');
       await server.stop();
       process.exitCode = 3;`,
    );
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.stdout.trim()).toBe('answered');
    expect(result.code).toBe(3);
  });

  it('keeps the code of process.exit() and takes its server down with it', async () => {
    const result = await runScript(
      'exit',
      `const server = await startEmbeddedPostgres({ dataDir: process.argv[2], persistent: false });
       console.log(server.port);
       process.exit(4);`,
    );
    expect(result.code).toBe(4);
    const port = Number(result.stdout.trim());
    expect(port).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await portAnswers(port)).toBe(false), {
      timeout: 30_000,
      interval: 250,
    });
  });
});
