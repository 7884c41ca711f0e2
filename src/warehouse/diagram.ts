import { ACCOUNT_COLUMN, type Table } from './schema.js';

/** A link between two declared tables: `child.column` holds the key of a `parent` row. */
export interface Relation {
  parent: string;
  child: string;
  column: string;
}

/**
 * How the tables relate, read off their declarations: a table whose column is another table's
 * one-column key (`property_id`, `lease_id`) points at that table's rows; a stream's child names
 * its parent by `parentColumn`. Every link also goes through `account_id`.
 */
export function relationsOf(tables: readonly Table[]): Relation[] {
  const relations: Relation[] = [];
  for (const child of tables) {
    for (const parent of tables) {
      if (parent === child || parent.key.length !== 1) continue;
      const [column] = parent.key;
      if (column in child.columns) relations.push({ parent: parent.name, child: child.name, column });
    }
  }
  return relations;
}

/** A column type as a Mermaid attribute type: one word (`numeric(14,2) not null` → `numeric`). */
const typeWord = (type: string) => type.split(/[\s(]/)[0];

/**
 * A Mermaid `erDiagram` of the tables: each with its key and linking columns, each link one
 * line. GitHub and most Markdown viewers draw it.
 */
export function renderErDiagram(tables: readonly Table[]): string[] {
  const relations = relationsOf(tables);
  const lines = ['```mermaid', 'erDiagram'];
  for (const { parent, child, column } of relations) lines.push(`  ${parent} ||--o{ ${child} : "${column}"`);
  for (const table of tables) {
    const key = [ACCOUNT_COLUMN, ...table.key];
    const links = relations
      .filter((relation) => relation.child === table.name)
      .map((relation) => relation.column);
    const shown = [...new Set([...key, ...links])].filter((name) => name in table.columns);
    lines.push(`  ${table.name} {`);
    for (const name of shown) {
      const marks = [key.includes(name) ? 'PK' : '', links.includes(name) ? 'FK' : '']
        .filter(Boolean)
        .join(', ');
      lines.push(`    ${typeWord(table.columns[name].type)} ${name} ${marks}`.trimEnd());
    }
    lines.push('  }');
  }
  lines.push('```');
  return lines;
}
