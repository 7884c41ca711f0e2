import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPSYNC_BIN, scratchFolder } from '../support/cli.js';
import { startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
});
afterAll(async () => {
  await world?.close();
});

/** Runs `propsync ...args` on a pseudo-terminal (util-linux `script`) and returns what the terminal showed. */
function onTerminal(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; text: string }> {
  const folder = scratchFolder();
  const command = [process.execPath, PROPSYNC_BIN, ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: folder.dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      folder.remove();
      resolve({ code, text });
    }),
  );
}

/** The lines a terminal is left showing: carriage-return redraws and colours taken out, blank lines dropped. */
function shownLines(text: string): string[] {
  return text
    .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\n')
    .map(
      (line) =>
        line
          .split('\r')
          .filter((part) => part.trim() !== '')
          .at(-1) ?? '',
    )
    .filter((line) => line.trim() !== '');
}

describe('a sync on a terminal', () => {
  it('shows progress bars, one line per warning or error, and the summary: no per-call records', async () => {
    const { code, text } = await onTerminal(['sync'], world.env);
    const lines = shownLines(text);
    expect(code, text).toBe(0);
    // The summary, whole, at the end.
    expect(lines.join('\n')).toMatch(/run 1 \(sync: [^)]*\) succeeded/);
    expect(lines.join('\n')).toMatch(/records \d+, rows inserted \d+/);
    // No pretty-printed records: no field lines, no per-call INFO lines.
    expect(lines.filter((line) => /^\s+\w+: /.test(line) && !/^\s+(records|pages|error)/.test(line))).toEqual(
      [],
    );
    expect(text).not.toMatch(/source call|INFO/);
    // A few lines of bars and summary, where the JSON-per-call display printed hundreds.
    expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(25);
  }, 120_000);

  it('shows each warning on one line', async () => {
    const { text } = await onTerminal(['sync', '--stream', 'leases'], {
      ...world.env,
      PROPSYNC_API_PASSWORD: 'not-the-password',
    });
    const lines = shownLines(text);
    const logged = lines.filter((line) => /\b(WARN|ERROR)\b/.test(line));
    expect(logged.length, text).toBeGreaterThan(0);
    for (const line of logged) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] (WARN|ERROR): default: \S/);
    expect(lines.filter((line) => /^\s+"?\w+"?: /.test(line) && !/^ {2}error: /.test(line))).toEqual([]);
  }, 120_000);
});
