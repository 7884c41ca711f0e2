import type { AccountVerification } from '../sync/verify-account.js';
import { formatTable } from './table.js';
import { EXIT } from './exit-codes.js';
import type { AccountVerifyOutcome } from './run-verify.js';

/** Keys of each kind the text report shows per table (`--json` gives them all). */
const SHOWN_KEYS = 5;

/** One table in `propsync verify --json`. */
export interface VerifyJsonTable {
  table: string;
  checked: number;
  missing: string[];
  extra: string[];
  differing: { key: string; columns: string[] }[];
}

/** One stream in `propsync verify --json`. */
export interface VerifyJsonStream {
  stream: string;
  tables: VerifyJsonTable[];
}

/** `propsync verify --json`: whether every account is clean, and per account, stream and table what differs. */
export interface VerifyJson {
  ok: boolean;
  accounts: {
    id: string;
    streams: VerifyJsonStream[];
    afterRepair?: { streams: VerifyJsonStream[] };
    error?: string;
  }[];
}

function jsonStreams(verification: AccountVerification | null): VerifyJsonStream[] {
  return (verification?.streams ?? []).map((stream) => ({
    stream: stream.stream,
    tables: stream.tables.map((table) => ({
      table: table.table,
      checked: table.checked,
      missing: table.missing,
      extra: table.extra,
      differing: table.differing,
    })),
  }));
}

/**
 * The JSON document of a verification: `ok` is true when every account ended clean (after its
 * repair, with `--repair`). An account repaired also carries `afterRepair`, the verification
 * after the repair; one that could not run carries `error`.
 */
export function verifyJson(outcomes: readonly AccountVerifyOutcome[]): VerifyJson {
  return {
    ok: outcomes.every((outcome) => outcome.exitCode === EXIT.ok),
    accounts: outcomes.map((outcome) => ({
      id: outcome.account,
      streams: jsonStreams(outcome.check),
      ...(outcome.repair ? { afterRepair: { streams: jsonStreams(outcome.repair.recheck) } } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    })),
  };
}

function keyLines(kind: string, keys: readonly string[]): string[] {
  if (keys.length === 0) return [];
  const more = keys.length > SHOWN_KEYS ? ` (and ${keys.length - SHOWN_KEYS} more)` : '';
  return [`    ${kind}: ${keys.slice(0, SHOWN_KEYS).join('; ')}${more}`];
}

/**
 * The text of one verification: a table per stream (checked, missing, extra, differing), then the first keys
 * of each kind.
 */
export function verificationText(title: string, verification: AccountVerification): string[] {
  const properties = verification.propertyIds.length;
  const lines = [
    `${title}: ${properties} propert${properties === 1 ? 'y' : 'ies'} ` +
      `verified, ${verification.driftRows} rows drifted (${verification.status})`,
  ];
  if (verification.error) lines.push(`  stopped early: ${verification.error}`);
  for (const stream of verification.streams) {
    lines.push(`  ${stream.stream}`);
    const rows = stream.tables.map((table) => [
      table.table,
      table.checked,
      table.missing.length,
      table.extra.length,
      table.differing.length,
    ]);
    const right = (header: string) => ({ header, align: 'right' as const });
    lines.push(
      ...formatTable(
        ['table', right('checked'), right('missing'), right('extra'), right('differing')],
        rows,
        '    ',
      ),
    );
    for (const table of stream.tables) {
      const keys = [
        ...keyLines('missing', table.missing),
        ...keyLines('extra', table.extra),
        ...keyLines(
          'differing',
          table.differing.map((row) => `${row.key} (${row.columns.join(', ')})`),
        ),
      ];
      if (keys.length) lines.push(`  ${stream.stream}.${table.table}`, ...keys);
    }
  }
  return lines;
}

/** The text of every account's verification (and repair). */
export function verifyText(outcomes: readonly AccountVerifyOutcome[], named: boolean): string[] {
  const lines: string[] = [];
  for (const outcome of outcomes) {
    const who = named ? `account ${outcome.account}: ` : '';
    if (!outcome.check) {
      lines.push(`${who}not verified: ${outcome.error ?? 'unknown reason'}`);
      continue;
    }
    lines.push(...verificationText(`${who}verify #${outcome.check.verificationId}`, outcome.check));
    if (outcome.repair) {
      const refreshed = outcome.repair.runs
        .map((run) =>
          run.summary ? `run ${run.summary.runId} ${run.summary.status}` : `not run: ${run.error}`,
        )
        .join('; ');
      lines.push(`${who}repair: full refresh of the drifted properties (${refreshed})`);
      lines.push(
        ...verificationText(
          `${who}verify after repair #${outcome.repair.recheck.verificationId}`,
          outcome.repair.recheck,
        ),
      );
    }
    if (outcome.exitCode === EXIT.drift)
      lines.push(
        `${who}the warehouse differs from the ` +
          `source${outcome.repair ? ' even after the repair' : '; run propsync verify --repair to heal it'}`,
      );
  }
  return lines;
}
