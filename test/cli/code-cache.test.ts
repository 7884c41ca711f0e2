/**
 * The entry, `bin/propsync.mjs`, runs the bundled command from V8's code cache: a command's first
 * run writes the code it compiled, later runs start from it, and a cache that does not fit the
 * bundle (another build, damaged bytes) or a folder that others could write is never trusted.
 * The bundle here is a small stand-in in the shipped layout, so each case sees its own.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratchFolder } from '../support/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A command that prints its arguments, then a module it imports at run time, as the real one does. */
const BUNDLE = `
const words = process.argv.slice(2).join(' ');
globalThis[Symbol.for('propsync.importModule')]('node:path').then(({ basename }) => {
  process.stdout.write(words + ' from ' + basename(__filename) + '\\n');
});
`;

let place: ReturnType<typeof scratchFolder>;
let bin: string;
let bundle: string;
let cache: string;

beforeEach(() => {
  place = scratchFolder();
  mkdirSync(join(place.dir, 'bin'));
  for (const file of ['propsync.mjs', 'code-cache.mjs'])
    copyFileSync(join(ROOT, 'bin', file), join(place.dir, 'bin', file));
  bin = join(place.dir, 'bin/propsync.mjs');
  bundle = join(place.dir, 'dist/src/cli/main.cjs');
  mkdirSync(join(place.dir, 'dist/src/cli'), { recursive: true });
  writeFileSync(bundle, BUNDLE);
  cache = join(place.dir, 'cache');
});
afterEach(() => place.remove());

async function propsync(
  args: string[],
  env: Record<string, string> = { PROPSYNC_CODE_CACHE: cache },
  nodeFlags: string[] = [],
): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeFlags, bin, ...args], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return stdout;
}

const cached = () => readdirSync(cache).sort();

describe('the code cache', () => {
  it("is written by a command's first run, in a folder and files of this user's only, and read by the next", async () => {
    expect(await propsync(['sync', '--verbose'])).toBe('sync --verbose from main.cjs\n');
    const [file] = cached();
    expect(file).toMatch(/^sync-[0-9a-f]{20}\.bin$/);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(cache, file)).mode & 0o777).toBe(0o600);
    const written = readFileSync(join(cache, file));
    expect(written.length).toBeGreaterThan(0);
    const { mtimeMs } = statSync(join(cache, file));

    // From the cache, import() through the entry still works, and the cache is left as it was.
    expect(await propsync(['sync', '--verbose'])).toBe('sync --verbose from main.cjs\n');
    expect(cached()).toEqual([file]);
    expect(statSync(join(cache, file)).mtimeMs).toBe(mtimeMs);

    // A profiled run starts from the same cache (its profile stands for the others).
    const profiles = join(place.dir, 'profiles');
    await propsync(['sync', '--verbose'], { PROPSYNC_CODE_CACHE: cache }, [
      '--cpu-prof',
      `--cpu-prof-dir=${profiles}`,
    ]);
    expect(readdirSync(profiles)).toHaveLength(1);
    expect(cached()).toEqual([file]);
    expect(statSync(join(cache, file)).mtimeMs).toBe(mtimeMs);

    // Each command keeps its own.
    await propsync(['status']);
    expect(cached().map((name) => name.split('-')[0])).toEqual(['status', 'sync']);
  });

  it('is replaced when the bundle changes and when its bytes are damaged, wherever; what a killed writer left goes', async () => {
    // What a writer killed mid-write left an hour ago goes; what one writes now stays.
    mkdirSync(cache, { mode: 0o700 });
    const killed = join(cache, 'status-0123456789abcdef0123.bin.4242');
    const writing = join(cache, 'status-0123456789abcdef0123.bin.4343');
    writeFileSync(killed, 'half');
    writeFileSync(writing, 'half');
    utimesSync(killed, new Date(Date.now() - 2 * 3_600_000), new Date(Date.now() - 2 * 3_600_000));
    await propsync(['sync']);
    expect(cached().filter((name) => name.startsWith('status'))).toEqual([basename(writing)]);
    rmSync(writing);
    const [first] = cached();
    // Another build of the same length: V8 alone would take the old cache for it.
    writeFileSync(bundle, BUNDLE.replace('from', 'FROM'));
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000));
    expect(await propsync(['sync'])).toBe('sync FROM main.cjs\n');
    const [second] = cached();
    expect(second).not.toBe(first);

    writeFileSync(join(cache, second), Buffer.alloc(4096, 7));
    expect(await propsync(['sync'])).toBe('sync FROM main.cjs\n');
    expect(cached()).toEqual([second]);
    expect(readFileSync(join(cache, second)).equals(Buffer.alloc(4096, 7))).toBe(false);

    // A byte changed inside the code, which V8's own checks (header, length) would let through.
    const bytes = readFileSync(join(cache, second));
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    writeFileSync(join(cache, second), bytes);
    expect(await propsync(['sync'])).toBe('sync FROM main.cjs\n');
    expect(readFileSync(join(cache, second)).equals(bytes)).toBe(false);
  });

  it("lives in the system's temporary folder by default, and is not used from a folder that others can write, nor when turned off", async () => {
    const temporary = join(place.dir, 'tmp');
    mkdirSync(temporary);
    await propsync(['sync'], { TMPDIR: temporary });
    const own = `propsync-code-cache-${process.getuid!()}`;
    expect(readdirSync(temporary)).toEqual([own]);
    expect(readdirSync(join(temporary, own))).toEqual([expect.stringMatching(/^sync-/)]);

    mkdirSync(cache);
    chmodSync(cache, 0o777);
    expect(await propsync(['sync'])).toBe('sync from main.cjs\n');
    expect(cached()).toEqual([]);

    const untouched = join(place.dir, 'untouched');
    mkdirSync(untouched);
    expect(await propsync(['sync'], { PROPSYNC_CODE_CACHE: 'off', TMPDIR: untouched })).toBe(
      'sync from main.cjs\n',
    );
    expect(readdirSync(untouched)).toEqual([]);
  });
});
