// Writes the table reference generated from the declarations into docs/tables.md and into
// README.md's "Tables" section: `npm run docs:tables`.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeWithTables, tablesDocument } from '../src/catalog/docs.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readmePath = resolve(root, 'README.md');
writeFileSync(resolve(root, 'docs/tables.md'), tablesDocument());
writeFileSync(readmePath, readmeWithTables(readFileSync(readmePath, 'utf8')));
process.stdout.write('wrote docs/tables.md and the Tables section of README.md\n');
