/**
 * The text `propsync status` prints (without --json): its own module, loaded by the command's
 * action. Why: docs/architecture.md#lazy-loading
 */
import type { RunInfo, StatusReport, StreamStatus } from '../sync/status.js';
import type { VerificationRecord } from '../sync/verifications.js';
import type { PrivacyStatus } from '../sync/privacy/status.js';
import { worstFreshness, type StreamFreshness } from '../sync/freshness.js';
import { formatSpan } from '../dates/duration.js';
import { formatDuration } from '../app/run-summary.js';
import { formatTable } from '../app/table.js';

/** What a run's work units came to: done, already done by an earlier run (a backfill run again), failed. */
function unitsText({ total, done, failed, skipped }: RunInfo['workUnits']): string {
  if (total > 0 && skipped === total) return `its ${total} work units were already done by earlier runs`;
  const already = skipped ? `, ${skipped} already done by earlier runs` : '';
  return `${done}/${total} work units done${already}, ${failed} failed`;
}

function runLine(label: string, run: RunInfo | null): string {
  if (!run) return `  ${label}: none`;
  const duration =
    run.durationMs === null ? 'still running or ended by a crash' : formatDuration(run.durationMs);
  const quarantined = run.quarantined ? `, ${run.quarantined} quarantined` : '';
  return (
    `  ${label}: #${run.runId} ${run.kind} ${run.status} at ${run.startedAt} ` +
    `(${duration}), ${unitsText(run.workUnits)}, ${run.records} records, ${run.calls} ` +
    `calls${quarantined}`
  );
}

function freshnessLine(freshness: StreamFreshness | null): string[] {
  if (!freshness) return [];
  return [`  freshness: ${freshness.state}: ${freshness.reason}`];
}

function streamText(stream: StreamStatus): string[] {
  const lines = [`${stream.stream}`, ...freshnessLine(stream.freshness), runLine('last run', stream.lastRun)];
  if (stream.lastRun && stream.lastRun.status !== 'succeeded')
    lines.push(runLine('last success', stream.lastSuccess));
  if (stream.lastRun?.error)
    lines.push(
      ...stream.lastRun.error
        .split('\n')
        .slice(0, 5)
        .map((line) => `    ${line}`),
    );
  for (const run of stream.running) {
    if (run.status === 'abandoned')
      lines.push(
        `  abandoned: #${run.runId} ${run.kind} since ${run.startedAt} (marked running, ` +
          `but its process stopped writing its heartbeat; its units resume on the next run)`,
      );
    else lines.push(`  marked running: #${run.runId} ${run.kind} since ${run.startedAt}`);
  }
  lines.push(`  calls today: ${stream.callsToday}; open quarantine entries: ${stream.openQuarantine}`);
  if (stream.scopes.length === 0) {
    lines.push(
      stream.lastSuccess
        ? '  no cursors: the stream is read whole on every run'
        : '  no cursors yet: the next sync reads everything, as a first run',
    );
    return lines;
  }
  const cursorNames = [
    ...new Set(stream.scopes.flatMap((scope) => scope.cursors.map((cursor) => cursor.cursor))),
  ].sort();
  const rows = stream.scopes.map((scope) => {
    const unit = scope.lastWorkUnit;
    return [
      scope.propertyIds.length > 3
        ? `${scope.propertyIds.slice(0, 3).join(',')},… (${scope.propertyIds.length})`
        : scope.scope,
      ...cursorNames.map((name) => scope.cursors.find((cursor) => cursor.cursor === name)?.value ?? null),
      unit
        ? `#${unit.runId} ${unit.status}${unit.error ? `: ${unit.error.split('\n')[0].slice(0, 60)}` : ''}`
        : null,
    ];
  });
  const grouped = stream.scopes.some((scope) => scope.propertyIds.length > 1);
  lines.push(
    ...formatTable([grouped ? 'properties' : 'property', ...cursorNames, 'last work unit'], rows, '  '),
  );
  return lines;
}

/** How long ago an ISO time was, at `now`: `3h12m ago`. */
function ago(iso: string, now: number): string {
  return `${formatSpan(Math.max(now - Date.parse(iso), 0)).replace(/(\d+[dhm])\d+s$/, '$1')} ago`;
}

/** An account's freshness in a few words: `ok`, or the worst state and the streams in it. */
function freshnessSummary(report: StatusReport): string {
  const judged = report.streams.flatMap((stream) => (stream.freshness ? [stream.freshness] : []));
  if (judged.length === 0) return '-';
  const worst = worstFreshness(judged.map((freshness) => freshness.state));
  if (worst === 'ok') return 'ok';
  const named = judged.filter((freshness) => freshness.state === worst).map((freshness) => freshness.stream);
  return `${worst}: ${named.join(', ')}`;
}

/** The latest finished run of any of an account's streams, and any still running. */
function lastRunSummary(report: StatusReport, now: number): { run: string; outcome: string } {
  const runs = report.streams.flatMap((stream) => (stream.lastRun ? [stream.lastRun] : []));
  const last = runs.sort((a, b) => b.runId - a.runId)[0];
  const running = report.streams.flatMap((stream) => stream.running).length;
  const busy = running ? ` (${running} running)` : '';
  if (!last) return { run: `none${busy}`, outcome: '-' };
  return {
    run: `#${last.runId} ${last.kind} ${ago(last.finishedAt ?? last.startedAt, now)}${busy}`,
    outcome: last.status,
  };
}

/** One line per account: last run, its outcome, freshness, calls today, open quarantine. */
export function summaryTable(reports: readonly StatusReport[], now: number = Date.now()): string[] {
  return formatTable(
    ['account', 'last run', 'outcome', 'freshness', { header: 'calls today', align: 'right' }, 'quarantine'],
    reports.map((report) => {
      const { run, outcome } = lastRunSummary(report, now);
      return [
        report.account,
        run,
        outcome,
        freshnessSummary(report),
        `${report.budget.callsToday}/${report.budget.dailyCallBudget}`,
        report.quarantine.open,
      ];
    }),
  );
}

/**
 * The human-readable form of the status of every account: one summary line per account first,
 * then each account's details, headed by its account.
 */
export function statusText(reports: readonly StatusReport[], warehouse: string): string[] {
  const lines = [`warehouse ${warehouse}`, '', ...summaryTable(reports), ''];
  for (const report of reports) lines.push(`account ${report.account}`, ...accountText(report));
  return lines;
}

/** The latest verification: when, what, and per drifted table its counts and first keys. */
function verificationText(verification: VerificationRecord | null): string[] {
  if (!verification) return ['last verification: none (propsync verify)'];
  const { verificationId, pass, selection, finishedAt, status, propertyIds, driftRows } = verification;
  const lines = [
    `last verification: #${verificationId} ${pass} (${selection}) ` +
      `at ${finishedAt ?? '?'}, ${status}, ${propertyIds.length} ` +
      `properties, ${driftRows === 0 ? 'clean' : `${driftRows} rows drifted`}`,
  ];
  const drifted = verification.tables.filter((table) => table.missing + table.extra + table.differing > 0);
  if (drifted.length) {
    lines.push(
      ...formatTable(
        [
          'stream',
          'table',
          { header: 'checked', align: 'right' },
          { header: 'missing', align: 'right' },
          { header: 'extra', align: 'right' },
          { header: 'differing', align: 'right' },
          'first keys',
        ],
        drifted.map((table) => [
          table.stream,
          table.table,
          table.checked,
          table.missing,
          table.extra,
          table.differing,
          [...table.missingKeys, ...table.extraKeys, ...table.differingKeys.map((row) => row.key)]
            .slice(0, 3)
            .join('; '),
        ]),
        '  ',
      ),
    );
  }
  return lines;
}

function accountText(report: StatusReport): string[] {
  const lines = [
    `today ${report.today} (${report.timeZone})`,
    ...(report.privacy ? [privacyLine(report.privacy)] : []),
    `calls today: ${report.budget.callsToday} of ${report.budget.dailyCallBudget} (${report.budget.left} left)`,
    '',
  ];
  for (const stream of report.streams) lines.push(...streamText(stream), '');
  lines.push(
    'rows',
    ...formatTable(
      ['table', { header: 'rows', align: 'right' }, { header: 'deleted', align: 'right' }],
      report.tables.map((table) => [table.table, table.rows, table.deleted]),
      '  ',
    ),
    '',
  );
  lines.push(...verificationText(report.lastVerification), '');
  const { open, entries } = report.quarantine;
  lines.push(
    `open quarantine entries: ${open}${open > entries.length ? ` (newest ${entries.length} shown)` : ''}`,
  );
  if (report.quarantine.entries.length) {
    lines.push(
      ...formatTable(
        ['id', 'stream', 'entity', 'record', 'property', 'run', 'reason'],
        report.quarantine.entries.map((entry) => [
          entry.quarantineId,
          entry.stream,
          entry.entity,
          entry.recordKey,
          entry.propertyId,
          entry.runId,
          entry.reason,
        ]),
        '  ',
      ),
    );
  }
  return lines;
}

/** The policy in one line of `status`. */
function privacyLine(status: PrivacyStatus): string {
  const configured = status.configured.description;
  switch (status.state) {
    case 'no rows':
      return `privacy: no rows yet; the next sync writes under "${configured}"`;
    case 'in force':
      return `privacy: ${status.inForce!.description}`;
    case 'differs':
      return (
        `privacy: rows written under "${status.inForce!.description}", the configuration says "${configured}": ` +
        'syncs refuse to write until `propsync privacy apply` rewrites them'
      );
    case 'applying':
      return (
        `privacy: being brought from "${status.inForce?.description ?? 'keep'}" to "${status.applying!.target}" ` +
        `(tables done: ${status.applying!.tablesDone.join(', ') || 'none'}); run \`propsync privacy apply\` to finish`
      );
  }
}
