import { describe, expect, it } from 'vitest';
import { createSyncMetrics } from '../../src/app/metrics.js';
import {
  alertRules,
  dashboardQueries,
  exportedNames,
  promql,
  queriedMetrics,
  readText,
  readYaml,
} from './support.js';

const DURATION = /^\d+(ms|s|m|h|d|w|y)$/;

describe('deploy/prometheus', () => {
  it('alert rules have the rule-file structure and parse as PromQL', () => {
    const file = readYaml<{ groups: unknown[] }>('deploy/prometheus/alerts.yml');
    expect(Object.keys(file)).toEqual(['groups']);
    for (const group of file.groups as { name: string; rules: object[] }[]) {
      expect(Object.keys(group).sort()).toEqual(['name', 'rules']);
      expect(group.name).toMatch(/\S/);
      for (const rule of group.rules) {
        expect(
          Object.keys(rule).every((key) => ['alert', 'expr', 'for', 'labels', 'annotations'].includes(key)),
          JSON.stringify(rule),
        ).toBe(true);
      }
    }
    const rules = alertRules();
    for (const rule of rules) {
      expect(rule.alert, 'alert name').toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
      expect(promql(rule.expr).errors, `${rule.alert}: ${rule.expr}`).toEqual([]);
      if (rule.for !== undefined) expect(rule.for).toMatch(DURATION);
      expect(['critical', 'warning']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, `${rule.alert} summary`).toBeTruthy();
    }
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });

  it('alert on what the operator must know: staleness, failed runs, quarantine, budget, throttling, drift', () => {
    const exprs = alertRules().map((rule) => rule.expr);
    const alerting = (pattern: RegExp) => exprs.some((expr) => pattern.test(expr));
    expect(alerting(/\(propsync_stream_freshness_state\) == 1$/)).toBe(true);
    expect(alerting(/\(propsync_stream_freshness_state\) == 2$/)).toBe(true);
    expect(alerting(/propsync_runs_total\{status="failed"\}/)).toBe(true);
    expect(alerting(/propsync_quarantine_open > 0/)).toBe(true);
    expect(alerting(/propsync_call_budget_left < 0\.1 \* propsync_call_budget_daily/)).toBe(true);
    expect(alerting(/propsync_source_throttled_total/)).toBe(true);
    expect(alerting(/propsync_verify_drift_rows\) > 0/)).toBe(true);
  });

  it('prometheus.yml loads the rules and scrapes the scheduler', () => {
    const config = readYaml<{
      rule_files: string[];
      scrape_configs: { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }[];
    }>('deploy/prometheus/prometheus.yml');
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    const job = config.scrape_configs.find((scrape) => scrape.job_name === 'propsync')!;
    expect(job.metrics_path).toBe('/metrics');
    expect(job.static_configs.flatMap((c) => c.targets)).toEqual(['propsync:9464']);
  });
});

describe('deploy/grafana', () => {
  it('the dashboard queries parse as PromQL and use the provisioned data source', () => {
    const dashboard = JSON.parse(readText('deploy/grafana/dashboards/propsync.json'));
    expect(dashboard.uid).toBe('propsync');
    const datasource = readYaml<{ datasources: { uid: string; url: string }[] }>(
      'deploy/grafana/provisioning/datasources/prometheus.yml',
    ).datasources[0];
    expect(datasource.url).toBe('http://prometheus:9090');
    for (const panel of dashboard.panels) {
      expect(panel.datasource.uid, panel.title).toBe(datasource.uid);
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    }
    for (const expr of dashboardQueries()) expect(promql(expr).errors, expr).toEqual([]);
    const provider = readYaml<{ providers: { options: { path: string } }[] }>(
      'deploy/grafana/provisioning/dashboards/propsync.yml',
    ).providers[0];
    expect(provider.options.path).toBe('/var/lib/grafana/dashboards');
  });

  it('the dashboard shows runs, rows and records, calls vs budget, throttles and retries, duration and freshness', () => {
    const used = new Set(dashboardQueries().flatMap((expr) => promql(expr).metrics));
    for (const name of [
      'propsync_runs_total',
      'propsync_rows_total',
      'propsync_records_total',
      'propsync_call_budget_left',
      'propsync_call_budget_daily',
      'propsync_source_calls_total',
      'propsync_source_throttled_total',
      'propsync_source_retries_total',
      'propsync_run_duration_seconds_sum',
      'propsync_last_success_timestamp_seconds',
    ]) {
      expect(used.has(name), name).toBe(true);
    }
  });
});

describe('metric names', () => {
  it('every metric the alert rules and the dashboard name is one the scheduler exports', async () => {
    // The very factory `propsync schedule` serves /metrics from (test/deploy/runtime-install scrapes the
    // real process too).
    const metrics = createSyncMetrics({
      accounts: [{ id: 'default', dailyCallBudget: 100 }],
      openQuarantine: async () => new Map([['default', 0]]),
      verifyDrift: async () => [
        { account: 'default', stream: 'leases', table: 'ar_transactions', kind: 'missing', rows: 2 },
      ],
      freshness: async () => [
        {
          account: 'default',
          stream: 'leases',
          state: 'warn',
          lastSuccessAt: '2026-11-26T09:00:00.000Z',
          reachedDay: '2026-11-25',
          warnAfterMs: 93_600_000,
          errorAfterMs: 180_000_000,
          reason: 'late',
        },
      ],
    });
    const text = await metrics.render();
    expect(text).toContain(
      'propsync_verify_drift_rows{account="default",stream="leases",table="ar_transactions",kind="missing"} 2',
    );
    expect(text).toContain('propsync_stream_freshness_state{account="default",stream="leases"} 1');
    expect(text).toContain(
      'propsync_stream_last_success_timestamp_seconds{account="default",stream="leases"} 1795683600',
    );
    const exported = exportedNames(text);
    const unknown = queriedMetrics().filter((name) => !exported.has(name));
    expect(unknown, 'metrics queried but never exported').toEqual([]);
  });
});
