// Writes docs/tables.md, the table reference generated from the declarations: `npm run docs:tables`.
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tablesDocument } from '../src/catalog/tables-document.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(resolve(root, 'docs/tables.md'), tablesDocument());
process.stdout.write('wrote docs/tables.md\n');
