import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/app/exit-codes.js';
import { accountRunLines, exitCodeFor, summaryLines, worstExitCode } from '../../src/app/run-summary.js';
import type { AccountRun } from '../../src/app/propsync.js';
import type { RunSummary } from '../../src/sync/types.js';

export function summary(overrides: Partial<RunSummary> = {}): RunSummary {
  return {
    account: 'default',
    runId: 7,
    kind: 'sync',
    streams: ['leases'],
    status: 'succeeded',
    workUnits: { total: 4, done: 4, failed: 0, skipped: 0 },
    pages: 5,
    calls: 6,
    retries: 1,
    throttled: 0,
    bytes: 2_097_152,
    durationMs: 65_000,
    records: 100,
    rowsInserted: 90,
    rowsUpdated: 5,
    rowsUnchanged: 5,
    rowsDeleted: 0,
    quarantined: 0,
    errors: [],
    ...overrides,
  };
}

describe('exitCodeFor', () => {
  it('is 0 for a clean run', () => expect(exitCodeFor(summary())).toBe(EXIT.ok));
  it('is 3 when records were quarantined and everything else finished', () =>
    expect(exitCodeFor(summary({ quarantined: 2 }))).toBe(EXIT.quarantined));
  it('is 1 when work units failed, even with quarantined records', () => {
    expect(
      exitCodeFor(
        summary({
          status: 'partial',
          workUnits: { total: 4, done: 3, failed: 1, skipped: 0 },
          quarantined: 2,
        }),
      ),
    ).toBe(EXIT.workFailed);
  });
  it('is 1 for failed, interrupted and budget-exhausted runs', () => {
    for (const status of ['failed', 'interrupted', 'budget_exhausted'] as const)
      expect(exitCodeFor(summary({ status }))).toBe(EXIT.workFailed);
  });
  it('is 1 when a work unit failed even if the status claims success', () => {
    expect(exitCodeFor(summary({ workUnits: { total: 4, done: 3, failed: 1, skipped: 0 } }))).toBe(
      EXIT.workFailed,
    );
  });
});

describe('worstExitCode', () => {
  it('orders usage > failed > quarantined > ok', () => {
    expect(worstExitCode([EXIT.ok, EXIT.quarantined])).toBe(EXIT.quarantined);
    expect(worstExitCode([EXIT.quarantined, EXIT.workFailed])).toBe(EXIT.workFailed);
    expect(worstExitCode([EXIT.workFailed, EXIT.usage])).toBe(EXIT.usage);
    expect(worstExitCode([])).toBe(EXIT.ok);
  });
});

describe('summaryLines', () => {
  it('says what happened and lists errors', () => {
    const lines = summaryLines(
      summary({
        status: 'partial',
        workUnits: { total: 4, done: 3, failed: 1, skipped: 0 },
        errors: ['leases:100001:live (properties 100001): HTTP 500'],
      }),
    );
    expect(lines[0]).toContain('run 7 (sync: leases) 1 work unit(s) failed');
    expect(lines.join('\n')).toContain('calls 6 (retries 1, throttled 0), 2.0 MiB, 1 min 5 s');
    expect(lines.at(-1)).toBe('  error: leases:100001:live (properties 100001): HTTP 500');
  });
  it('says what to do after every outcome that is not a success', () => {
    const advice = {
      partial: 'rerun to retry them',
      failed: 'read its errors below, fix the cause, then run again',
      interrupted: 'rerun to continue where it stopped',
      budget_exhausted: 'the rest runs when the budget renews',
      abandoned: 'run again to resume its units',
    } as const;
    for (const [status, words] of Object.entries(advice))
      expect(summaryLines(summary({ status: status as RunSummary['status'] }))[0]).toContain(words);
  });
  it('caps the error list', () => {
    const lines = summaryLines(
      summary({ status: 'partial', errors: Array.from({ length: 25 }, (_, i) => `e${i}`) }),
    );
    expect(lines.at(-1)).toContain('and 5 more errors');
  });
});

describe('accountRunLines', () => {
  it("names the account when asked, before its run's lines", () => {
    const run = {
      account: 'north',
      summary: summary({ account: 'north' }),
      exitCode: EXIT.ok,
    } satisfies AccountRun;
    expect(accountRunLines(run, true)[0]).toBe(
      'account north: run 7 (sync: leases) succeeded (4/4 work units done)',
    );
    expect(accountRunLines(run, true).slice(1)).toEqual(summaryLines(run.summary).slice(1));
    expect(accountRunLines(run, false)).toEqual(summaryLines(run.summary));
  });
  it('says why an account did not run, without control characters', () => {
    const run: AccountRun = {
      account: 'south',
      summary: null,
      error: 'HTTP 401\u001b[31m',
      exitCode: EXIT.workFailed,
    };
    expect(accountRunLines(run, true)).toEqual(['account south: not run: HTTP 401\\u001b[31m']);
  });
});
