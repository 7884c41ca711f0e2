/**
 * The text `propsync status` prints (without --json): its own module, loaded by the command's
 * action. Why: docs/architecture.md#lazy-loading
 */
import type { RunInfo, StatusReport, StreamStatus } from '../sync/status.js';
import type { VerificationRecord } from '../sync/verifications.js';
import { formatDuration } from '../app/run-summary.js';
import { formatTable } from '../app/table.js';

function runLine(label: string, run: RunInfo | null): string {
  if (!run) return `  ${label}: none`;
  const duration =
    run.durationMs === null ? 'still running or ended by a crash' : formatDuration(run.durationMs);
  const quarantined = run.quarantined ? `, ${run.quarantined} quarantined` : '';
  return `  ${label}: #${run.runId} ${run.kind} ${run.status} at ${run.startedAt} (${duration}), ${run.workUnits.done}/${run.workUnits.total} work units, ${run.workUnits.failed} failed, ${run.records} records, ${run.calls} calls${quarantined}`;
}

function streamText(stream: StreamStatus): string[] {
  const lines = [`${stream.stream}`, runLine('last run', stream.lastRun)];
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
        `  abandoned: #${run.runId} ${run.kind} since ${run.startedAt} (marked running, but its process stopped writing its heartbeat; its units resume on the next run)`,
      );
    else lines.push(`  marked running: #${run.runId} ${run.kind} since ${run.startedAt}`);
  }
  lines.push(`  calls today: ${stream.callsToday}; open quarantine entries: ${stream.openQuarantine}`);
  if (stream.scopes.length === 0) {
    lines.push('  no cursors yet: the next sync reads everything, as a first run');
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

/** The human-readable form of the status of every account; each headed by its account when there are several. */
export function statusText(reports: readonly StatusReport[], warehouse: string): string[] {
  const lines = [`warehouse ${warehouse}`];
  for (const report of reports)
    lines.push(...(reports.length > 1 ? [`account ${report.account}`] : []), ...accountText(report));
  return lines;
}

/** The latest verification: when, what, and per drifted table its counts and first keys. */
function verificationText(verification: VerificationRecord | null): string[] {
  if (!verification) return ['last verification: none (propsync verify)'];
  const { verificationId, pass, selection, finishedAt, status, propertyIds, driftRows } = verification;
  const lines = [
    `last verification: #${verificationId} ${pass} (${selection}) at ${finishedAt ?? '?'}, ${status}, ${propertyIds.length} properties, ${driftRows === 0 ? 'clean' : `${driftRows} rows drifted`}`,
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
  lines.push(
    `open quarantine entries: ${report.quarantine.open}${report.quarantine.open > report.quarantine.entries.length ? ` (newest ${report.quarantine.entries.length} shown)` : ''}`,
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
