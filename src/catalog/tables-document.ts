import { STREAM_MANIFESTS } from '../streams/registry.js';
import { SOURCE_TABLES } from './tables.js';
import { renderErDiagram } from '../warehouse/diagram.js';
import { SYNC_TABLES } from '../warehouse/bookkeeping.js';
import { renderTableReference } from '../warehouse/table-reference.js';

/** The command that writes the generated table reference. */
export const DOCS_COMMAND = 'npm run docs:tables';

const NOTE = `<!-- generated from the table declarations by \`${DOCS_COMMAND}\`: edit those, not this -->`;

/** The whole of `docs/tables.md`, generated from the declarations. */
export function tablesDocument(): string {
  const streams = STREAM_MANIFESTS.map((manifest) => ({
    stream: manifest.name,
    tables: manifest.tables,
    derived: 'derivedTables' in manifest ? manifest.derivedTables : [],
  }));
  const diagram = [
    '## How the tables relate',
    '',
    "Each line is a join: the child's column holds the parent's key. Join on `account_id` as well: every key starts",
    'with it, and the same id may exist in two accounts.',
    '',
    ...renderErDiagram(SOURCE_TABLES),
  ].join('\n');
  return `# Tables\n\n${NOTE}\n\n${diagram}\n\n${renderTableReference(streams, SYNC_TABLES)}\n`;
}
