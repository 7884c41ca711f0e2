import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { dayIn } from '../../src/demo/state.js';
import { scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
let folder: { dir: string; remove(): void };
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  folder = scratchFolder();
});
afterAll(async () => {
  await database?.drop();
  folder?.remove();
});

/** Runs one demo into the test database and returns the lines it printed. */
async function demo(): Promise<string[]> {
  const lines: string[] = [];
  const code = await runDemo({
    keep: false,
    stateDir: folder.dir,
    databaseUrl: database.url,
    terminal: false,
    logLevel: 'error',
    print: (line) => lines.push(line),
    signal: new AbortController().signal,
    northScale: 'small',
  });
  expect(code, lines.join('\n')).toBe(0);
  return lines;
}

/** The days a demo printed: where the world moved to, and what its answers are as of. */
function datesOf(lines: string[]): { movedTo: string[]; asOf: string[] } {
  const text = lines.join('\n');
  return {
    movedTo: [...text.matchAll(/moved from \d{4}-\d\d-\d\d to (\d{4}-\d\d-\d\d)/g)].map((m) => m[1]),
    asOf: [...text.matchAll(/as of (\d{4}-\d\d-\d\d)\)/g)].map((m) => m[1]),
  };
}

describe('the demo', () => {
  it('keeps its simulated world in the past, and the days it prints agree, demo after demo', async () => {
    const today = dayIn('America/Denver');
    const first = datesOf(await demo());
    expect(first.movedTo).toHaveLength(2);
    expect(new Set(first.movedTo).size).toBe(1);
    const [firstDay] = first.movedTo;
    expect(firstDay <= today, `${firstDay} is after the real today ${today}`).toBe(true);
    expect(first.asOf.length).toBeGreaterThan(0);
    for (const day of first.asOf) expect(day).toBe(firstDay);

    // A second demo continues a week later in the simulated world, still never past today.
    const secondLines = await demo();
    const second = datesOf(secondLines);
    const [secondDay] = second.movedTo;
    expect(secondDay > firstDay).toBe(true);
    expect(secondDay <= today).toBe(true);
    for (const day of second.asOf) expect(day).toBe(secondDay);
    expect(secondLines.join('\n')).not.toMatch(/clamped|past the local tomorrow/);
    rmSync(folder.dir, { recursive: true, force: true });
  }, 600_000);
});
