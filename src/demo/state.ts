import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDay } from '../dates/calendar.js';

/**
 * What the demo remembers between runs, in `.propsync/demo.json`: the simulator is rebuilt
 * from its seed and start day each time and replayed week by week to the day the warehouse
 * last saw, so that the next demo's sync is incremental against the same simulated world.
 */
export interface DemoState {
  version: 1;
  seed: number;
  scale: 'medium';
  /** The simulator's first "today" (in the configured time zone), fixed at the first demo. */
  startDay: string;
  /** Weeks the simulator has been advanced since `startDay`, over all demos. */
  weeks: number;
  /** Which warehouse holds the demo's data: `embedded:<dir>` or `host:port/database`. */
  warehouse: string;
}

const FILE = 'demo.json';

/** Reads the demo's state, or null when there is none (or it is unreadable: the demo starts afresh). */
export function readDemoState(dir: string): DemoState | null {
  const path = join(dir, FILE);
  if (!existsSync(path)) return null;
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as DemoState;
    const valid =
      state.version === 1 &&
      typeof state.seed === 'number' &&
      isDay(state.startDay) &&
      Number.isInteger(state.weeks) &&
      state.weeks >= 0 &&
      typeof state.warehouse === 'string';
    return valid ? state : null;
  } catch {
    return null;
  }
}

/** Writes the demo's state atomically (a crash leaves the old file or the new one, never half). */
export function writeDemoState(dir: string, state: DemoState): void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** Today's date in a time zone, `YYYY-MM-DD`. */
export function dayIn(timeZone: string, at: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}
