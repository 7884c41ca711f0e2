import {
  ACCOUNT_COLUMN,
  primaryKey,
  SYNC_COLUMNS,
  type Column,
  type SourceTable,
  type Table,
} from './schema.js';

/** The tables of one stream, its parent table first. */
export interface StreamTables {
  stream: string;
  tables: readonly SourceTable[];
  /** Tables the warehouse keeps from the stream's own (a status history). */
  derived?: readonly Table[];
}

const code = (name: string) => `\`${name}\``;
const list = (columns: readonly string[]) =>
  columns.length === 1 ? code(columns[0]) : `(${columns.map(code).join(', ')})`;
const cell = (text: string) => text.replace(/\|/g, '\\|');

function typeOf(column: Column): string {
  return column.nullable ? column.type : `${column.type} not null`;
}

function columnTable(columns: [string, Column][]): string[] {
  return [
    '| column | type | meaning |',
    '|---|---|---|',
    ...columns.map(([name, column]) => `| ${code(name)} | ${typeOf(column)} | ${cell(column.meaning)} |`),
  ];
}

function keyLine(table: Table): string {
  const parts = [`Primary key ${list(primaryKey(table))}.`];
  if (table.indexes?.length)
    parts.push(`${table.indexes.length === 1 ? 'Index' : 'Indexes'}: ${table.indexes.map(list).join(', ')}.`);
  return parts.join(' ');
}

/**
 * The column reference of the warehouse, as Markdown, from the declarations: conventions, the
 * columns every source table has, each stream's tables, then the bookkeeping tables, in
 * sections of the second heading level.
 */
export function renderTableReference(
  streams: readonly StreamTables[],
  bookkeeping: readonly Table[],
): string {
  const h = (extra: number, title: string) => `${'#'.repeat(2 + extra)} ${title}`;
  const lines: string[] = [
    `${code('propsync migrate')} creates these tables. Their names and columns are a contract ` +
      `with the dashboards built on them:`,
    'columns and tables get added, never renamed. Each table and column also carries its meaning as a Postgres comment',
    `(${code(`\\d+ ${streams[0]?.tables[0]?.name ?? bookkeeping[0]?.name}`)} in psql shows it).`,
    '',
    "Conventions: ids are `bigint` (the source's ids), money is `numeric(14,2)` (exact, " +
      'never a float), dates without time',
    "are `date`, source datetimes are `timestamptz` (converted from the source's time zone). " +
      'Unless noted, a column holds',
    'the source field of the same name (`lease_status` ← `leaseStatus`).',
    '',
    h(0, 'Columns of every source table'),
    '',
    `Every table, bookkeeping included, has ${code(ACCOUNT_COLUMN)}, which leads its primary ` +
      `key and every index but those of a run's or a work unit's id alone.`,
    '',
    ...columnTable(
      Object.entries({
        [ACCOUNT_COLUMN]: streams[0]?.tables[0]?.columns[ACCOUNT_COLUMN],
        ...SYNC_COLUMNS,
      }).filter((entry): entry is [string, Column] => entry[1] !== undefined),
    ),
  ];
  for (const { stream, tables, derived } of streams) {
    const [parent] = tables;
    for (const table of tables) {
      const role =
        table === parent
          ? `The parent table of stream ${code(stream)}`
          : `A child of ${code(parent.name)} by ${code(table.parentColumn ?? '?')}`;
      const own = Object.entries(table.columns).filter(
        ([name]) => name !== ACCOUNT_COLUMN && !(name in SYNC_COLUMNS),
      );
      lines.push(
        '',
        h(0, code(table.name)),
        '',
        `${table.meaning} ${role}. ${keyLine(table)}`,
        '',
        ...columnTable(own),
      );
    }
    for (const table of derived ?? []) {
      const own = Object.entries(table.columns).filter(([name]) => name !== ACCOUNT_COLUMN);
      lines.push(
        '',
        h(0, code(table.name)),
        '',
        `${table.meaning} Kept by the warehouse from the tables of stream ${code(stream)}, ` +
          `never written by a sync. ${keyLine(table)}`,
        '',
        ...columnTable(own),
      );
    }
  }
  lines.push('', h(0, 'Bookkeeping tables'));
  for (const table of bookkeeping) {
    lines.push(
      '',
      h(1, code(table.name)),
      '',
      `${table.meaning} ${keyLine(table)}`,
      '',
      ...columnTable(Object.entries(table.columns)),
    );
  }
  lines.push(
    '',
    `The migrator keeps its own bookkeeping in ${code('kysely_migration')} and ${code('kysely_migration_lock')}.`,
  );
  return lines.join('\n');
}
