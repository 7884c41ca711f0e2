import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  dayIn,
  freshDemoState,
  nextStep,
  readDemoState,
  worldDay,
  writeDemoState,
  type DemoState,
} from '../../src/demo/state.js';
import { clearStaleServerLock, fingerprintOf } from '../../src/demo/warehouse.js';

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'propsync-demo-state-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const state: DemoState = {
  version: 2,
  seed: 1,
  scale: 'medium',
  startDay: '2026-11-20',
  steps: [7, 7],
  warehouse: 'embedded:.propsync/pgdata',
};

describe('demo state', () => {
  it('round-trips, and an absent, unreadable or invalid file means a fresh demo', () => {
    const dir = scratch();
    expect(readDemoState(dir)).toBeNull();
    writeDemoState(join(dir, 'nested'), state);
    expect(readDemoState(join(dir, 'nested'))).toEqual(state);
    expect(existsSync(join(dir, 'nested', 'demo.json.tmp'))).toBe(false);
    writeFileSync(join(dir, 'demo.json'), '{not json');
    expect(readDemoState(dir)).toBeNull();
    writeFileSync(join(dir, 'demo.json'), JSON.stringify({ ...state, steps: [7, -1] }));
    expect(readDemoState(dir)).toBeNull();
    // A state of the weekly demo (version 1) replays its weeks as steps of seven days.
    const { steps, ...rest } = state;
    writeFileSync(join(dir, 'demo.json'), JSON.stringify({ ...rest, version: 1, weeks: steps.length }));
    expect(readDemoState(dir)).toEqual(state);
  });

  it("keeps the simulated world's last day on or before the real today, demo after demo", () => {
    const today = '2026-11-27';
    const first = freshDemoState(today, 'embedded:x', 1);
    expect(first.startDay).toBe('2026-10-30');
    // Four demos on the same day move a week each and end exactly on today; a fifth has nothing to move.
    for (const expected of ['2026-11-06', '2026-11-13', '2026-11-20', '2026-11-27']) {
      first.steps.push(nextStep(first, today));
      expect(worldDay(first)).toBe(expected);
    }
    expect(nextStep(first, today)).toBe(0);
    // Three real days later, three simulated days more, and no more.
    expect(nextStep(first, '2026-11-30')).toBe(3);
    // A world left ahead of today (a version-1 demo's) is not moved on at all.
    expect(nextStep({ ...state, startDay: today }, today)).toBe(0);
  });

  it('takes the day in America/Denver, not UTC', () => {
    expect(dayIn('America/Denver', new Date('2026-11-21T05:30:00Z'))).toBe('2026-11-20');
    expect(dayIn('America/Denver', new Date('2026-11-21T07:30:00Z'))).toBe('2026-11-21');
  });

  it('identifies a warehouse without its credentials', () => {
    expect(fingerprintOf('postgres://me:Secret-1@db.example:6543/wh')).toBe('db.example:6543/wh');
    expect(fingerprintOf('postgres://me@db.example/wh')).toBe('db.example:5432/wh');
  });

  it('removes the lock file of a dead embedded server, and refuses a live one', () => {
    const dir = scratch();
    const data = join(dir, 'pgdata');
    mkdirSync(data);
    clearStaleServerLock(data);
    writeFileSync(join(data, 'postmaster.pid'), '2147480000\n/x\n');
    clearStaleServerLock(data);
    expect(existsSync(join(data, 'postmaster.pid'))).toBe(false);
    writeFileSync(join(data, 'postmaster.pid'), `${process.pid}\n/x\n`);
    expect(() => clearStaleServerLock(data)).toThrow(`another demo's Postgres (pid ${process.pid}) is using`);
  });
});
