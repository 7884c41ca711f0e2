import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDay } from '../dates/calendar.js';
import { addDays, daysBetween } from '../dates/days.js';

/**
 * What the demo remembers between runs, in `.propsync/demo.json`: the simulator is rebuilt
 * from its seed and start day each time and replayed, step by step, to the day the warehouse
 * last saw, so that the next demo's sync is incremental against the same simulated world.
 */
export interface DemoState {
  version: 2;
  seed: number;
  scale: 'medium';
  /** The simulator's first "today" (in the configured time zone), fixed at the first demo. */
  startDay: string;
  /** The days the simulator was moved on by, in order, over all demos (replayed in the same steps). */
  steps: number[];
  /** Which warehouse holds the demo's data: `embedded:<dir>` or `host:port/database`. */
  warehouse: string;
}

const FILE = 'demo.json';

/** The first demo's world starts this many days before the real today: room for four weekly steps. */
export const DEMO_HISTORY_DAYS = 28;
/** Days the simulator moves between a demo's two syncs, at most (never past the real today). */
export const DEMO_ADVANCE_DAYS = 7;

/** The state of a first demo on `today` (the real day in the demo's time zone). */
export function freshDemoState(today: string, warehouse: string, seed: number): DemoState {
  return {
    version: 2,
    seed,
    scale: 'medium',
    startDay: addDays(today, -DEMO_HISTORY_DAYS),
    steps: [],
    warehouse,
  };
}

/** The simulated world's today: its start day moved by every step. */
export function worldDay(state: DemoState): string {
  return addDays(
    state.startDay,
    state.steps.reduce((sum, days) => sum + days, 0),
  );
}

/**
 * How many days the demo moves the world on: a week, or less so that the world's last day is
 * never after the real `today` (a sync caps the source's today at the real tomorrow, and the
 * demo's dates would no longer agree); 0 once the world has caught up with today.
 */
export function nextStep(state: DemoState, today: string): number {
  return Math.max(0, Math.min(DEMO_ADVANCE_DAYS, daysBetween(worldDay(state), today)));
}

/** Reads the demo's state, or null when there is none (or it is unreadable: the demo starts afresh). */
export function readDemoState(dir: string): DemoState | null {
  const path = join(dir, FILE);
  if (!existsSync(path)) return null;
  try {
    const read = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    // Version 1 counted weeks of seven days.
    const steps =
      read.version === 1 && Number.isInteger(read.weeks) && (read.weeks as number) >= 0
        ? Array<number>(read.weeks as number).fill(DEMO_ADVANCE_DAYS)
        : read.steps;
    const valid =
      (read.version === 1 || read.version === 2) &&
      typeof read.seed === 'number' &&
      typeof read.startDay === 'string' &&
      isDay(read.startDay) &&
      Array.isArray(steps) &&
      steps.every((days) => Number.isInteger(days) && days > 0) &&
      typeof read.warehouse === 'string';
    if (!valid) return null;
    return {
      version: 2,
      seed: read.seed as number,
      scale: 'medium',
      startDay: read.startDay as string,
      steps: steps as number[],
      warehouse: read.warehouse as string,
    };
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
