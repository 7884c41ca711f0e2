import { sql, type Kysely } from 'kysely';
import { keepingNote, type ReportingView } from './definition.js';
import { REPORTING_SCHEMA, REPORTING_SETTINGS, REPORTING_VIEWS } from './views.js';

/** The comment of a view: its purpose, the rules behind its rows, then how it is kept (materialized or maintained). */
function viewComment(view: ReportingView): string {
  const keeping = keepingNote(view);
  return `${view.purpose} ${view.notes}${keeping ? ` ${keeping}` : ''}`;
}

/**
 * Writes the descriptions of schema `reporting` (views, their columns, the settings table, the
 * today() function) from the declarations in views.ts, so that a BI tool shows them. Objects
 * and columns that do not exist (yet) are skipped: run it after the migrations, as often as wanted.
 */
export async function applyReportingComments<DB>(db: Kysely<DB>): Promise<void> {
  const { rows } = await sql<{ name: string; kind: string; columns: string[] }>`
    select c.relname as name, c.relkind as kind, array(select a.attname::text from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = ${REPORTING_SCHEMA} and c.relkind in ('v', 'm', 'r')`.execute(db);
  const relations = new Map(rows.map((row) => [row.name, row]));
  const statements = [];
  const lit = (text: string) => sql.lit(text);
  for (const view of REPORTING_VIEWS) {
    const relation = relations.get(view.name);
    if (!relation) continue;
    const target = sql.id(REPORTING_SCHEMA, view.name);
    statements.push(
      relation.kind === 'm'
        ? sql`comment on materialized view ${target} is ${lit(viewComment(view))}`
        : sql`comment on view ${target} is ${lit(viewComment(view))}`,
    );
    for (const column of view.columns) {
      if (relation.columns.includes(column.name))
        statements.push(
          sql`comment on column ${sql.id(REPORTING_SCHEMA, view.name, column.name)} is ${lit(column.meaning)}`,
        );
    }
  }
  if (relations.get(REPORTING_SETTINGS.table)?.kind === 'r') {
    statements.push(
      sql`comment on table ${sql.id(REPORTING_SCHEMA, REPORTING_SETTINGS.table)} is ${lit(REPORTING_SETTINGS.purpose)}`,
    );
    for (const column of REPORTING_SETTINGS.columns) {
      statements.push(
        sql`comment on column ${sql.id(REPORTING_SCHEMA, REPORTING_SETTINGS.table, column.name)} is ${lit(column.meaning)}`,
      );
    }
  }
  const { rows: functions } = await sql<{
    found: boolean;
  }>`select to_regprocedure('reporting.today()') is not null as found`.execute(db);
  if (functions[0].found)
    statements.push(sql`comment on function reporting.today() is ${lit(REPORTING_SETTINGS.todayFunction)}`);
  statements.push(
    sql`comment on schema ${sql.id(REPORTING_SCHEMA)} is ${lit('Views for BI dashboards over the synced tables; see docs/reporting.md.')}`,
  );
  await sql.join(statements, sql`;\n`).execute(db);
}
