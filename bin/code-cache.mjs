// Runs the bundled command from V8's code cache: node 20 compiles a module's code anew at every
// start (about a fifth of a sync's start-up), and its own compile cache came in node 22.
// Why this is not v8-compile-cache, and where the cache lives: docs/operating.md#the-code-cache
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire, Module } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * The folder of the cache, made if missing: `PROPSYNC_CODE_CACHE`, else one of this user's in the
 * system's temporary folder; none (`off`, or a folder that others could write or own) means none is
 * used, since code read from it runs as this user.
 */
function cacheFolder() {
  const asked = process.env.PROPSYNC_CODE_CACHE;
  if (asked === 'off') return undefined;
  const uid = process.getuid?.();
  const folder = asked || join(tmpdir(), `propsync-code-cache-${uid ?? 'user'}`);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const found = lstatSync(folder);
    if (!found.isDirectory() || (uid !== undefined && found.uid !== uid) || (found.mode & 0o022) !== 0) {
      return undefined;
    }
    return folder;
  } catch {
    return undefined;
  }
}

/**
 * Runs the CommonJS file `bundle` as node would, compiled from the cache kept for `command` (a
 * command's first run writes the code it compiled as it exits; later runs start from it). The
 * cache is named for the bundle's size and time, node's version and flags (but its profilers',
 * so that a profiled run starts as others do): V8 checks only a source's length before it trusts
 * a cache, so a changed bundle must not find the old one.
 */
export function runWithCodeCache(bundle, command) {
  // Read and measured through one descriptor: the cache's name is the very text's.
  const descriptor = openSync(bundle, 'r');
  let bytes, size, mtimeMs;
  try {
    ({ size, mtimeMs } = fstatSync(descriptor));
    bytes = readFileSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  // The build writes ASCII, which latin1 reads as is and in one-byte text.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const folder = cacheFolder();
  const flags = process.execArgv.filter((flag) => !/^--(cpu|heap)-prof/.test(flag));
  const key = createHash('sha256')
    .update(JSON.stringify([bundle, size, mtimeMs, process.version, process.arch, flags]))
    .digest('hex')
    .slice(0, 20);
  const name = `${command.replace(/[^a-z0-9-]/gi, '_')}-`;
  const file = folder && join(folder, `${name}${key}.bin`);
  let cachedData;
  try {
    if (file) cachedData = intact(readFileSync(file));
  } catch {
    // No cache yet: this run writes it.
  }
  // No importModuleDynamically: node 20 loses it for code from a cache; the command imports through its entry's import().
  const script = new Script(Module.wrap(source), { filename: bundle, cachedData });
  if (file && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => writeCache(folder, file, name, script));
  }
  const module = new Module(bundle);
  module.filename = bundle;
  module.paths = Module._nodeModulePaths(dirname(bundle));
  script
    .runInThisContext()
    .call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

/** Bytes of a digest that ends each cache file. */
const DIGEST = 20;
const digestOf = (bytes) => createHash('sha1').update(bytes).digest();

/**
 * The cache in a file's bytes, or undefined when they are not what was written: V8 checks a
 * cache's header and length, not its content (its checksum is for debug builds), and damaged
 * code could crash every start.
 */
function intact(bytes) {
  if (bytes.length <= DIGEST) return undefined;
  const data = bytes.subarray(0, bytes.length - DIGEST);
  return digestOf(data).equals(bytes.subarray(data.length)) ? data : undefined;
}

/** A file being written (`NAME.bin.PID`) is left alone this long: then it is one a killed process left. */
const PARTIAL_MS = 60 * 60 * 1000;

/**
 * Writes the code compiled so far, whole or not at all (a file renamed into place), and drops
 * this command's caches of older builds and what killed writers left.
 */
function writeCache(folder, file, name, script) {
  try {
    const partial = `${file}.${process.pid}`;
    const data = script.createCachedData();
    writeFileSync(partial, Buffer.concat([data, digestOf(data)]), { mode: 0o600 });
    renameSync(partial, file);
    for (const other of readdirSync(folder)) {
      const path = join(folder, other);
      const older = other.startsWith(name) && other.endsWith('.bin') && path !== file;
      const left = /\.bin\.\d+$/.test(other) && Date.now() - statSync(path).mtimeMs > PARTIAL_MS;
      if (older || left) rmSync(path, { force: true });
    }
  } catch {
    // A cache is an optimization: a folder that cannot take it costs only the time it would save.
  }
}
