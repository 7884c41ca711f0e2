/**
 * Writes docs/reporting.md from the views' declarations:
 *
 *   node bin/run-ts.mjs src/reporting/write-docs.ts
 *
 * test/reporting/docs.test.ts fails while the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReportingDocs, REPORTING_DOCS_PATH } from './reporting-docs.js';

const path = resolve(dirname(fileURLToPath(import.meta.url)), '../..', REPORTING_DOCS_PATH);
writeFileSync(path, renderReportingDocs());
process.stdout.write(`wrote ${REPORTING_DOCS_PATH}\n`);
