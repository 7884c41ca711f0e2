import { STREAM_TABLES } from './tables.js';
import { SYNC_TABLES } from '../warehouse/bookkeeping.js';
import { renderTableReference, replaceSection } from '../warehouse/docs.js';

/** The command that writes the generated table reference. */
export const DOCS_COMMAND = 'npm run docs:tables';

const NOTE = `<!-- generated from the table declarations by \`${DOCS_COMMAND}\`: edit those, not this -->`;

function reference(level: number): string {
  const streams = Object.entries(STREAM_TABLES).map(([stream, tables]) => ({ stream, tables }));
  return renderTableReference(streams, SYNC_TABLES, level);
}

/** The whole of `docs/tables.md`. */
export function tablesDocument(): string {
  return `# Tables\n\n${NOTE}\n\n${reference(2)}\n`;
}

/** The README with its "Tables" section (between the markers) generated. */
export function readmeWithTables(readme: string): string {
  return replaceSection(readme, `${NOTE}\n\n${reference(3)}`);
}
