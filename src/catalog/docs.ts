import { STREAM_MANIFESTS } from '../streams/registry.js';
import { SYNC_TABLES } from '../warehouse/bookkeeping.js';
import { renderTableReference } from '../warehouse/docs.js';

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
  return `# Tables\n\n${NOTE}\n\n${renderTableReference(streams, SYNC_TABLES)}\n`;
}
