import { SOURCE_TABLES, DERIVED_TABLES } from '../catalog/tables.js';
import type { PersonalClass, Table } from '../warehouse/schema.js';
import type { ReportingColumn, ReportingView } from './definition.js';

/** The tables a reader may be given (`grant-reader --base-tables`), as declared. */
const BASE_TABLES: readonly Table[] = [...SOURCE_TABLES, ...DERIVED_TABLES];

/**
 * The personal class of a view's column: that of the declared column it carries (`from`), or
 * undefined. A `from` naming no declared column, or one without personal data, is a mistake of
 * the definition and throws.
 */
export function personalClassOf(column: ReportingColumn): PersonalClass | undefined {
  if (!column.from) return undefined;
  const [tableName, columnName] = column.from.split('.');
  const declared = BASE_TABLES.find((table) => table.name === tableName)?.columns[columnName];
  if (!declared) throw new Error(`reporting column ${column.name}: ${column.from} is not a declared column`);
  if (!declared.personal)
    throw new Error(`reporting column ${column.name}: ${column.from} is declared without personal data`);
  return declared.personal;
}

/** The columns of a view a reader without `--personal` may not read. */
export function personalColumnsOf(view: ReportingView): string[] {
  return view.columns.filter((column) => personalClassOf(column)).map((column) => column.name);
}

/** The columns of a view a reader without `--personal` may read. */
export function publicColumnsOf(view: ReportingView): string[] {
  return view.columns.filter((column) => !personalClassOf(column)).map((column) => column.name);
}

/** Per base table with personal columns: the columns a reader without `--personal` may read. */
export function publicBaseColumns(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const table of BASE_TABLES) {
    const columns = Object.entries(table.columns);
    if (columns.some(([, column]) => column.personal))
      found.set(
        table.name,
        columns.filter(([, column]) => !column.personal).map(([name]) => name),
      );
  }
  return found;
}
