import { describe, expect, it } from 'vitest';
import { createSyncMetrics } from '../../src/app/metrics.js';
import { startHttpServer } from '../../src/app/http-server.js';
import { combineObservers } from '../../src/sync/observers.js';

function feed(metrics: ReturnType<typeof createSyncMetrics>, account = 'north') {
  metrics.observer.onRunStart?.({
    account,
    runId: 1,
    kind: 'sync',
    streams: ['leases'],
    workUnits: 2,
    byStream: { leases: 2 },
  });
  metrics.observer.onWorkUnitStart?.({
    account,
    runId: 1,
    stream: 'leases',
    unitKey: 'a',
    propertyIds: ['1'],
  });
  metrics.observer.onPage?.({
    account,
    runId: 1,
    stream: 'leases',
    unitKey: 'a',
    pageNo: 1,
    calls: 2,
    retries: 1,
    throttled: 1,
    bytes: 10,
    records: 50,
    rowsInserted: 40,
    rowsUpdated: 3,
    rowsUnchanged: 7,
    rowsDeleted: 1,
    quarantined: 2,
  });
  metrics.observer.onWorkUnitEnd?.({
    account,
    runId: 1,
    stream: 'leases',
    unitKey: 'a',
    status: 'done',
    durationMs: 1500,
  });
  metrics.observer.onWorkUnitEnd?.({
    account,
    runId: 1,
    stream: 'leases',
    unitKey: 'b',
    status: 'failed',
    error: 'x',
    durationMs: 500,
  });
  metrics.onCall(
    {
      method: 'getLeases',
      page: 1,
      attempt: 1,
      status: 429,
      ms: 120,
      bytes: 0,
      budgetLeft: 99,
      throttled: true,
      willRetry: true,
      remaining: 0,
    },
    account,
  );
  metrics.onCall(
    {
      method: 'getLeases',
      page: 1,
      attempt: 2,
      status: 200,
      ms: 300,
      bytes: 4096,
      budgetLeft: 98,
      throttled: false,
      willRetry: false,
      remaining: 10,
    },
    account,
  );
  metrics.onCall(
    {
      method: 'getLeases',
      page: 2,
      attempt: 1,
      ms: 60_000,
      bytes: 0,
      budgetLeft: 97,
      throttled: false,
      willRetry: false,
      error: 'timeout',
    },
    account,
  );
  metrics.observer.onRunEnd?.({
    account,
    runId: 1,
    kind: 'sync',
    streams: ['leases'],
    status: 'succeeded',
    workUnits: { total: 2, done: 1, failed: 1, skipped: 0 },
    pages: 1,
    calls: 3,
    retries: 1,
    throttled: 1,
    bytes: 4096,
    durationMs: 4200,
    records: 50,
    rowsInserted: 40,
    rowsUpdated: 3,
    rowsUnchanged: 7,
    rowsDeleted: 1,
    quarantined: 2,
    errors: [],
  });
}

describe('sync metrics', () => {
  it('counts runs, work units, rows, calls, retries, 429s and the budget', async () => {
    const metrics = createSyncMetrics({
      defaultMetrics: false,
      accounts: [
        { id: 'north', dailyCallBudget: 100 },
        { id: 'south', dailyCallBudget: 500 },
      ],
    });
    feed(metrics);
    metrics.lockSkipped('north', 'invoices');
    metrics.setRunning('north', 'leases', true);
    const text = await metrics.render();
    expect(text).toContain(
      'propsync_runs_total{account="north",stream="leases",kind="sync",status="succeeded"} 1',
    );
    expect(text).toContain('propsync_work_units_total{account="north",stream="leases",status="done"} 1');
    expect(text).toContain('propsync_work_units_total{account="north",stream="leases",status="failed"} 1');
    expect(text).toContain('propsync_records_total{account="north",stream="leases"} 50');
    expect(text).toContain('propsync_rows_total{account="north",stream="leases",action="inserted"} 40');
    expect(text).toContain('propsync_rows_total{account="north",stream="leases",action="deleted"} 1');
    expect(text).toContain('propsync_quarantined_total{account="north",stream="leases"} 2');
    expect(text).toContain('propsync_source_calls_total{account="north",method="getLeases",status="429"} 1');
    expect(text).toContain('propsync_source_calls_total{account="north",method="getLeases",status="200"} 1');
    expect(text).toContain(
      'propsync_source_calls_total{account="north",method="getLeases",status="error"} 1',
    );
    expect(text).toContain('propsync_source_retries_total{account="north",method="getLeases"} 1');
    expect(text).toContain('propsync_source_throttled_total{account="north",method="getLeases"} 1');
    expect(text).toContain('propsync_call_budget_left{account="north"} 97');
    // Each account has its own budget; one untouched by calls shows its whole budget.
    expect(text).toContain('propsync_call_budget_daily{account="north"} 100');
    expect(text).toContain('propsync_call_budget_left{account="south"} 500');
    expect(text).toContain('propsync_call_budget_daily{account="south"} 500');
    expect(text).toContain('propsync_runs_skipped_total{account="north",stream="invoices"} 1');
    expect(text).toContain('propsync_run_in_progress{account="north",stream="leases"} 1');
    expect(text).toContain(
      'propsync_run_duration_seconds_count{account="north",stream="leases",kind="sync"} 1',
    );
    expect(text).toContain('propsync_work_unit_duration_seconds_sum{account="north",stream="leases"} 2');
    expect(text).toMatch(/propsync_last_success_timestamp_seconds\{account="north",stream="leases"\} \d{10}/);
  });

  it('keeps each account in its own series, the open quarantine included', async () => {
    const metrics = createSyncMetrics({
      defaultMetrics: false,
      accounts: [
        { id: 'north', dailyCallBudget: 100 },
        { id: 'south', dailyCallBudget: 100 },
      ],
      openQuarantine: async () =>
        new Map([
          ['north', 0],
          ['south', 4],
        ]),
    });
    feed(metrics, 'north');
    feed(metrics, 'south');
    metrics.observer.onPage?.({
      account: 'south',
      runId: 2,
      stream: 'leases',
      unitKey: 'c',
      pageNo: 1,
      calls: 1,
      retries: 0,
      throttled: 0,
      bytes: 1,
      records: 5,
      rowsInserted: 5,
      rowsUpdated: 0,
      rowsUnchanged: 0,
      rowsDeleted: 0,
      quarantined: 0,
    });
    metrics.setLastSuccess('south', 'invoices', new Date('2024-06-01T00:00:00Z'));
    const text = await metrics.render();
    expect(text).toContain('propsync_records_total{account="north",stream="leases"} 50');
    expect(text).toContain('propsync_records_total{account="south",stream="leases"} 55');
    expect(text).toContain('propsync_quarantine_open{account="north"} 0');
    expect(text).toContain('propsync_quarantine_open{account="south"} 4');
    expect(text).toContain(
      'propsync_last_success_timestamp_seconds{account="south",stream="invoices"} 1717200000',
    );
    expect(text).not.toMatch(/propsync_last_success_timestamp_seconds\{account="north",stream="invoices"\}/);
  });

  it('counts the runs of dead processes that a run closed as abandoned, per stream', async () => {
    const metrics = createSyncMetrics({ defaultMetrics: false });
    // As the scheduler passes it to the engine: through the combined observer.
    const observer = combineObservers(metrics.observer, undefined);
    observer.onRunsAbandoned?.({
      account: 'north',
      runId: 9,
      abandoned: [
        { runId: 3, streams: ['leases', 'invoices'] },
        { runId: 5, streams: ['leases'] },
      ],
    });
    const text = await metrics.render();
    expect(text).toContain('propsync_runs_abandoned_total{account="north",stream="leases"} 2');
    expect(text).toContain('propsync_runs_abandoned_total{account="north",stream="invoices"} 1');
  });

  it('does not set a last success for a run that did not succeed', async () => {
    const metrics = createSyncMetrics({ defaultMetrics: false });
    metrics.observer.onRunEnd?.({
      account: 'north',
      runId: 2,
      kind: 'sync',
      streams: ['invoices'],
      status: 'partial',
      workUnits: { total: 1, done: 0, failed: 1, skipped: 0 },
      pages: 0,
      calls: 1,
      retries: 0,
      throttled: 0,
      bytes: 0,
      durationMs: 10,
      records: 0,
      rowsInserted: 0,
      rowsUpdated: 0,
      rowsUnchanged: 0,
      rowsDeleted: 0,
      quarantined: 0,
      errors: ['x'],
    });
    expect(await metrics.render()).not.toMatch(
      /propsync_last_success_timestamp_seconds\{account="north",stream="invoices"\}/,
    );
  });

  it("counts alert messages per account, so that one account's undelivered alerts show apart", async () => {
    const metrics = createSyncMetrics({ defaultMetrics: false });
    metrics.alertDelivered({
      account: 'north',
      target: 'ops',
      kind: 'budget',
      event: 'firing',
      delivered: true,
    });
    metrics.alertDelivered({
      account: 'south',
      target: 'ops',
      kind: 'budget',
      event: 'firing',
      delivered: false,
    });
    const text = await metrics.render();
    expect(text).toContain(
      'propsync_alerts_sent_total{account="north",target="ops",kind="budget",event="firing"} 1',
    );
    expect(text).toContain('propsync_alerts_undelivered_total{account="south",target="ops",kind="budget"} 1');
  });

  it('serves /metrics and /healthz over HTTP', async () => {
    const metrics = createSyncMetrics();
    feed(metrics);
    let healthy = true;
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      metrics,
      health: async () => ({ ok: healthy, detail: 'x' }),
    });
    try {
      const scraped = await fetch(`${server.url}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toContain('text/plain');
      const text = await scraped.text();
      expect(text).toContain('propsync_records_total{account="north",stream="leases"} 50');
      expect(text).toContain('propsync_process_cpu_seconds_total');
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true, detail: 'x' });
      healthy = false;
      expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
      expect((await fetch(`${server.url}/other`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('combineObservers', () => {
  it('passes events to each observer and ignores one that throws', () => {
    const seen: string[] = [];
    const observer = combineObservers(
      {
        onWorkUnitStart: () => {
          throw new Error('broken display');
        },
      },
      undefined,
      { onWorkUnitStart: (event) => seen.push(event.unitKey) },
    );
    observer.onWorkUnitStart?.({
      account: 'default',
      runId: 1,
      stream: 'leases',
      unitKey: 'u1',
      propertyIds: [],
    });
    expect(seen).toEqual(['u1']);
  });
});
