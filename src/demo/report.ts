import type { ExitCode } from '../app/exit-codes.js';
import { formatDuration } from '../app/run-summary.js';
import { formatTable } from '../app/table.js';
import type { AdvanceSummary } from '../simulator/index.js';
import type { TableCount } from '../sync/status.js';
import type { RunSummary } from '../sync/types.js';
import type { Db } from '../catalog/tables.js';
import {
  arAging,
  lastMonthEnd,
  boxScore,
  occupancyByProperty,
  type BoxScoreRow,
  portfolio,
  vendorSpendByMonth,
  type AgingRow,
  type OccupancyRow,
  type PortfolioRow,
  type SpendRow,
} from './analyst-queries.js';

/** Every line the demo prints starts with this, so that no output of it looks like production. */
export const DEMO_PREFIX = '[demo] ';

/** A demo run with the label it is shown under. */
export interface LabelledRun {
  label: string;
  summary: RunSummary;
  exitCode: ExitCode;
}

const right = (header: string) => ({ header, align: 'right' as const });

/** One line per run: what it did, the calls it spent and how long it took. */
export function runsTable(runs: LabelledRun[]): string[] {
  return formatTable(
    [
      'run',
      'what',
      'status',
      right('work units'),
      right('records'),
      right('inserted'),
      right('updated'),
      right('unchanged'),
      right('deleted'),
      right('quarantined'),
      right('calls'),
      right('duration'),
    ],
    runs.map(({ label, summary }) => [
      `#${summary.runId}`,
      label,
      summary.status,
      `${summary.workUnits.done}/${summary.workUnits.total}`,
      summary.records,
      summary.rowsInserted,
      summary.rowsUpdated,
      summary.rowsUnchanged,
      summary.rowsDeleted,
      summary.quarantined,
      summary.calls,
      formatDuration(summary.durationMs),
    ]),
    DEMO_PREFIX,
  );
}

/** Rows per warehouse table. */
export function tablesTable(tables: TableCount[]): string[] {
  return formatTable(
    ['table', right('rows'), right('marked deleted')],
    tables.map((table) => [table.table, table.rows, table.deleted]),
    DEMO_PREFIX,
  );
}

/** What a simulated week changed, in one sentence. */
export function changesLine(advance: AdvanceSummary): string {
  const changes = Object.entries(advance.changes)
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${count} ${kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)}`);
  return (
    `the simulated business moved from ${advance.from} ` +
    `to ${advance.to}: ${changes.length ? changes.join(', ') : 'no changes'}`
  );
}

/** The accounts side by side. */
export function portfolioTable(rows: PortfolioRow[]): string[] {
  return formatTable(
    [
      'account',
      'name',
      right('properties'),
      right('units'),
      right('occupancy %'),
      right('current leases'),
      right('open AR'),
      right('past due AR'),
      right('open AP'),
    ],
    rows.map((row) => [
      row.accountId,
      row.accountName,
      row.properties,
      row.units,
      row.occupancyPercent,
      row.currentLeases,
      row.openAr,
      row.pastDueAr,
      row.openAp,
    ]),
    DEMO_PREFIX,
  );
}

/** Occupancy by property; with several accounts, each property under its account. */
export function occupancyTable(rows: OccupancyRow[]): string[] {
  const accounts = new Set(rows.map((row) => row.accountId)).size > 1;
  return formatTable(
    [
      ...(accounts ? ['account'] : []),
      'property',
      'name',
      right('units'),
      right('occupied'),
      right('occupancy %'),
    ],
    rows.map((row) => [
      ...(accounts ? [row.accountId] : []),
      row.propertyId,
      row.propertyName,
      row.units,
      row.occupied,
      row.occupancyPercent,
    ]),
    DEMO_PREFIX,
  );
}

/** The box score by property. */
export function boxScoreTable(rows: BoxScoreRow[]): string[] {
  const accounts = new Set(rows.map((row) => row.accountId)).size > 1;
  return formatTable(
    [
      ...(accounts ? ['account'] : []),
      'property',
      right('units'),
      right('occupied'),
      right('vacant'),
      right('notice'),
      right('pre-leased'),
      right('occupied %'),
      right('leased %'),
      right('market rent'),
      right('lease rent'),
    ],
    rows.map((row) => [
      ...(accounts ? [row.accountId] : []),
      row.propertyName ?? row.propertyId,
      row.units,
      row.occupied,
      row.vacant,
      row.onNotice,
      row.preleased,
      row.occupiedPercent,
      row.leasedPercent,
      row.marketRent,
      row.leaseRent,
    ]),
    DEMO_PREFIX,
  );
}

/** AR balance by aging bucket. */
export function agingTable(rows: AgingRow[]): string[] {
  return formatTable(
    ['past due', right('leases'), right('balance')],
    rows.map((row) => [row.bucket, row.leases, row.balance]),
    DEMO_PREFIX,
  );
}

/** Vendor spend by month. */
export function spendTable(rows: SpendRow[]): string[] {
  return formatTable(
    ['month', right('invoices'), right('vendors'), right('spend'), 'largest vendor', right('its spend')],
    rows.map((row) => [row.month, row.invoices, row.vendors, row.spend, row.topVendor, row.topVendorSpend]),
    DEMO_PREFIX,
  );
}

/** A query to try in psql once the demo is done. */
export const EXAMPLE_QUERY = 'select * from reporting.rent_roll limit 20;';

/**
 * The demo's four analyst questions, each with its answer as a table, as of a day; first, when
 * the warehouse holds several accounts, the accounts side by side.
 */
export async function analystAnswers(db: Db, asOf: string): Promise<{ title: string; lines: string[] }[]> {
  const accounts = await portfolio(db);
  const monthEnd = lastMonthEnd(asOf);
  return [
    ...(accounts.length > 1
      ? [
          {
            title: `Portfolio by account (properties, occupancy, current leases, open AR and AP, as of ${asOf})`,
            lines: portfolioTable(accounts),
          },
        ]
      : []),
    {
      title: `Occupancy by property (units with a Current or Notice lease, as of ${asOf})`,
      lines: occupancyTable(await occupancyByProperty(db)),
    },
    {
      title: "Box score by property (the unit inventory, as of the source's today; averages of homes' rents)",
      lines: boxScoreTable(await boxScore(db)),
    },
    {
      title:
        `AR balance by aging bucket at the end of ${monthEnd} (residents' open balance by days ` +
        'past due at the month end; applications left out)',
      lines: agingTable(await arAging(db, monthEnd)),
    },
    {
      title: 'Vendor spend by month (invoice amounts by post month, refunds to residents left out)',
      lines: spendTable(await vendorSpendByMonth(db, 6)),
    },
  ];
}

/**
 * How to point a BI tool (Metabase, Superset, Power BI, Tableau) at the demo warehouse: host,
 * port, database, the reader role and its password, schema `reporting`, and where the views are
 * described.
 */
export function biToolLines(warehouseUrl: string, reader: { role: string; password: string }): string[] {
  const url = new URL(warehouseUrl);
  return [
    'point a BI tool (Metabase, Superset, Power BI, Tableau) at the demo warehouse:',
    `  host ${url.hostname}, port ${url.port || '5432'}, database ${decodeURIComponent(url.pathname.slice(1))}`,
    `  user ${reader.role}, password ${reader.password} (a read-only role made by \`propsync ` +
      `grant-reader --login\`; local demo only)`,
    '  schema reporting: portfolio, rent_roll, occupancy_monthly, ar_aging, ' +
      'vendor_spend_monthly ... (described in docs/reporting.md and in the database)',
  ].map((line) => `${DEMO_PREFIX}${line}`);
}
