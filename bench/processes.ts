/**
 * The processes a bench starts beside the command: `propsync simulate` (its data set, its day
 * moved on), and what the command's first line gives node when a bench starts node itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The simulator's first day: fixed, so that every bench run sees the same data set. */
export const TODAY = '2026-06-15';

/** The command, run as an operator runs it. */
export const cli = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'bin', 'propsync.mjs');

/** Starts `propsync simulate` and resolves with its URL once it prints `listening on URL`. */
export async function startSimulator(
  scale: string,
  password: string,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      cli,
      'simulate',
      '--port',
      '0',
      '--scale',
      scale,
      '--seed',
      '1',
      '--today',
      TODAY,
      '--username',
      'bench',
      '--password',
      password,
      '--rate-limit',
      'off',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (\S+)/.exec(stdout);
      if (match) resolveUrl(match[1]);
    });
    child.once('exit', (code) =>
      reject(new Error(`the simulator exited (${code}) before listening:\n${stderr}`)),
    );
    child.once('error', reject);
  });
  return { url, child };
}

export async function stopSimulator(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** Moves the simulator's clock one day, applying a day of activity. */
export async function advanceOneDay(url: string): Promise<void> {
  const reply = await fetch(new URL('/_sim/advance', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"days": 1}',
  });
  if (!reply.ok) throw new Error(`POST /_sim/advance answered ${reply.status}: ${await reply.text()}`);
}

/** The node flags of the first line of an entry (`#!/usr/bin/env -S node FLAGS`), this checkout's unless given. */
export function shebangFlags(entry = cli): string[] {
  return shebangWords(entry).filter((word) => word.startsWith('--'));
}

/** The variables an entry's first line sets (`NAME=value` before `node`), this checkout's unless given. */
export function shebangEnv(entry = cli): Record<string, string> {
  return Object.fromEntries(
    shebangWords(entry).flatMap((word) =>
      /^[A-Z_]+=/.test(word) ? [word.split('=', 2) as [string, string]] : [],
    ),
  );
}

function shebangWords(entry: string): string[] {
  return readFileSync(entry, 'utf8').split('\n', 1)[0].split(/\s+/);
}
