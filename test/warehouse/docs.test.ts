import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_COMMAND, tablesDocument } from '../../src/catalog/docs.js';

// The table reference in docs/tables.md is generated from the declarations.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('generated table reference', () => {
  it('docs/tables.md is what the declarations generate', () => {
    expect(
      read('docs/tables.md') === tablesDocument(),
      `docs/tables.md is out of date: run \`${DOCS_COMMAND}\``,
    ).toBe(true);
  });

  it('lists every column with its type', () => {
    expect(tablesDocument()).toContain('| `amount_due` | numeric(14,2) | What is still unpaid. |');
    expect(tablesDocument()).toContain(
      "| `run_id` | bigint not null | The run's id, referenced by last_run_id of the rows it changed. |",
    );
  });
});
