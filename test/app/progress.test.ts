import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { createProgress, formatSeconds, rateAndEta } from '../../src/app/progress.js';
import type { RunSummary } from '../../src/sync/types.js';

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk) => chunks.push(chunk.toString()));
  return { stream, text: () => chunks.join('') };
}

function drive(observer: ReturnType<typeof createProgress>['observer']) {
  observer.onRunStart?.({
    account: 'default',
    runId: 3,
    kind: 'sync',
    streams: ['leases', 'invoices'],
    workUnits: 3,
    byStream: { leases: 2, invoices: 1 },
  });
  observer.onWorkUnitStart?.({
    account: 'default',
    runId: 3,
    stream: 'leases',
    unitKey: 'l1',
    propertyIds: ['1'],
  });
  observer.onPage?.({
    account: 'default',
    runId: 3,
    stream: 'leases',
    unitKey: 'l1',
    pageNo: 1,
    calls: 2,
    retries: 1,
    throttled: 0,
    bytes: 1,
    records: 40,
    rowsInserted: 40,
    rowsUpdated: 0,
    rowsUnchanged: 0,
    rowsDeleted: 0,
    quarantined: 0,
  });
  observer.onWorkUnitEnd?.({
    account: 'default',
    runId: 3,
    stream: 'leases',
    unitKey: 'l1',
    status: 'done',
    durationMs: 10,
  });
}

describe('progress', () => {
  it('computes rate and time left', () => {
    expect(rateAndEta({ total: 10, done: 0, failed: 0, records: 0, calls: 0, startedAt: 0 }, 5000)).toEqual({
      recordsPerSecond: 0,
      etaSeconds: null,
    });
    expect(
      rateAndEta({ total: 10, done: 2, failed: 0, records: 100, calls: 2, startedAt: 0 }, 10_000),
    ).toEqual({ recordsPerSecond: 10, etaSeconds: 40 });
    expect([null, 42, 185, 3720].map(formatSeconds)).toEqual(['?', '42s', '3m05s', '1h02m']);
  });

  it('logs a line per stream periodically when not on a terminal', async () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream, level: 'info' });
    const progress = createProgress({ mode: 'log', logger, intervalMs: 50 });
    drive(progress.observer);
    // At least two periodic lines, however busy the machine.
    await vi.waitFor(
      () => expect(out.text().match(/"stream":"leases"/g)?.length ?? 0).toBeGreaterThanOrEqual(2),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    progress.observer.onRunEnd?.({ account: 'default' } as RunSummary);
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ runId: 3, workUnits: 3, msg: 'run 3 planned 3 work units' });
    const leases = lines.filter((line) => line.stream === 'leases');
    expect(leases.length).toBeGreaterThanOrEqual(2);
    expect(leases[0]).toMatchObject({ runId: 3, workUnits: 1, workUnitsTotal: 2, records: 40, calls: 2 });
    expect(lines.some((line) => line.stream === 'invoices' && line.workUnits === 0)).toBe(true);
    const count = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(out.text().trim().split('\n')).toHaveLength(count);
  });

  it("follows two accounts' runs at once, each account's streams apart, until the last run ends", async () => {
    const out = capture();
    const logger = createLogger({ destination: out.stream, level: 'info' });
    const progress = createProgress({ mode: 'log', logger, intervalMs: 40 });
    const { observer } = progress;
    const page = {
      pageNo: 1,
      retries: 0,
      throttled: 0,
      bytes: 1,
      rowsInserted: 0,
      rowsUpdated: 0,
      rowsUnchanged: 0,
      rowsDeleted: 0,
      quarantined: 0,
    };
    observer.onRunStart?.({
      account: 'north',
      runId: 1,
      kind: 'sync',
      streams: ['leases'],
      workUnits: 2,
      byStream: { leases: 2 },
    });
    observer.onRunStart?.({
      account: 'south',
      runId: 2,
      kind: 'sync',
      streams: ['leases'],
      workUnits: 3,
      byStream: { leases: 3 },
    });
    observer.onPage?.({
      account: 'north',
      runId: 1,
      stream: 'leases',
      unitKey: 'n1',
      calls: 1,
      records: 10,
      ...page,
    });
    observer.onPage?.({
      account: 'south',
      runId: 2,
      stream: 'leases',
      unitKey: 's1',
      calls: 2,
      records: 7,
      ...page,
    });
    observer.onWorkUnitEnd?.({
      account: 'north',
      runId: 1,
      stream: 'leases',
      unitKey: 'n1',
      status: 'done',
      durationMs: 5,
    });
    // North ends first: south's lines go on.
    observer.onRunEnd?.({ account: 'north' } as RunSummary);
    const ended = out.text().split('\n').length;
    await vi.waitFor(() => expect(out.text().split('\n').length).toBeGreaterThan(ended), {
      timeout: 10_000,
      interval: 20,
    });
    const lines = out
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(out.text().split('\n').length).toBeGreaterThan(ended);
    const southLines = lines.filter(
      (line) => line.account === 'south' && line.stream === 'leases' && 'workUnitsTotal' in line,
    );
    expect(southLines.at(-1)).toMatchObject({
      runId: 2,
      workUnits: 0,
      workUnitsTotal: 3,
      records: 7,
      calls: 2,
      msg: 'progress south/leases: 0/3 work units, 7 records, 2 calls',
    });
    const northLines = lines.filter((line) => line.account === 'north' && 'workUnitsTotal' in line);
    expect(northLines.at(-1)).toMatchObject({
      runId: 1,
      workUnits: 1,
      workUnitsTotal: 2,
      records: 10,
      calls: 1,
    });
    observer.onRunEnd?.({ account: 'south' } as RunSummary);
    const count = out.text().length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(out.text().length).toBe(count);
  });

  it('draws a bar per stream and prints log lines above the bars', () => {
    const out = capture();
    const progress = createProgress({ mode: 'bars', output: out.stream, label: '[demo] ' });
    drive(progress.observer);
    progress.sink.write('a log line\n');
    progress.observer.onRunEnd?.({ account: 'default' } as RunSummary);
    const text = out.text();
    expect(text).toContain('[demo] leases');
    expect(text).toContain('[demo] invoices');
    expect(text).toMatch(/1\/2 work units \| 40 records \| 2 calls/);
    expect(text).toContain('a log line');
  });
});
