import type { RunSummary } from '../sync/types.js';
import { escapeControls } from '../log/redact.js';
import { exitCodeOf } from '../sync/runs/states.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** The exit code of a closed run: the run lifecycle decides it (sync/runs/states.ts, `exitCodeOf`). */
export function exitCodeFor(summary: Pick<RunSummary, 'status' | 'workUnits' | 'quarantined'>): ExitCode {
  return exitCodeOf(summary);
}

/** Combines the exit codes of several runs (one per stream): the most serious one wins. */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  const order: ExitCode[] = [
    EXIT.usage,
    EXIT.workFailed,
    EXIT.drift,
    EXIT.incomplete,
    EXIT.quarantined,
    EXIT.ok,
  ];
  return order.find((code) => codes.includes(code)) ?? EXIT.ok;
}

/** Why a run ended as it did, in words an operator can act on. */
export function outcomeLine(summary: RunSummary): string {
  const units = `${summary.workUnits.done}/${summary.workUnits.total} work units done`;
  switch (summary.status) {
    case 'succeeded':
      return summary.quarantined > 0
        ? `finished with ${summary.quarantined} record(s) quarantined (${units}); see \`propsync status\``
        : `succeeded (${units})`;
    case 'partial':
      return `${summary.workUnits.failed} work unit(s) failed (${units}); rerun to retry them`;
    case 'failed':
      return `failed (${units}); read its errors below, fix the cause, then run again`;
    case 'interrupted':
      return `interrupted (${units}); rerun to continue where it stopped`;
    case 'budget_exhausted':
      return `stopped: today's call budget is spent (${units}); the rest runs when the budget renews`;
    case 'incomplete':
      return `incomplete: finished what it could read, but left windows unread (${units}); see \`unread:\` below`;
    case 'abandoned':
      return `abandoned (${units}): its process ended without closing it; run again to resume its units`;
    case 'running':
      return `running (${units})`;
  }
}

/** Formats milliseconds as `1.2 s`, `3 min 4 s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** The lines of one account's part of a run: its summary, or why it did not run; named by its account when `named`. */
export function accountRunLines(
  run: { account: string; summary: RunSummary | null; error?: string },
  named: boolean,
): string[] {
  const prefix = named ? `account ${run.account}: ` : '';
  if (!run.summary) return [`${prefix}not run: ${escapeControls(run.error ?? 'unknown reason')}`];
  const [first, ...rest] = summaryLines(run.summary);
  return [`${prefix}${first}`, ...rest];
}

/** The lines a command prints when a run ends: outcome, counters, and one line per error. */
export function summaryLines(summary: RunSummary): string[] {
  const lines = [
    `run ${summary.runId} (${summary.kind}: ${summary.streams.join(', ')}) ${outcomeLine(summary)}`,
    `  records ${summary.records}, rows inserted ${summary.rowsInserted}, ` +
      `updated ${summary.rowsUpdated}, unchanged ${summary.rowsUnchanged}, ` +
      `deleted ${summary.rowsDeleted}, quarantined ${summary.quarantined}`,
    `  pages ${summary.pages}, calls ${summary.calls} (retries ${summary.retries}, ` +
      `throttled ${summary.throttled}), ${(summary.bytes / 1_048_576).toFixed(1)} ` +
      `MiB, ${formatDuration(summary.durationMs)}`,
  ];
  for (const window of summary.unread ?? []) lines.push(`  unread: ${escapeControls(window)}`);
  const shown = summary.errors.slice(0, 20);
  for (const error of shown) lines.push(`  error: ${escapeControls(error)}`);
  if (summary.errors.length > shown.length)
    lines.push(`  ... and ${summary.errors.length - shown.length} more errors (see sync_work_units.error)`);
  return lines;
}
