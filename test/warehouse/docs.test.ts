import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_COMMAND, tablesDocument } from '../../src/catalog/tables-document.js';

// The table reference in docs/tables.md is generated from the declarations.
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('generated table reference', () => {
  it('docs/tables.md is what the declarations generate', () => {
    expect(
      read('docs/tables.md') === tablesDocument(),
      `docs/tables.md is out of date: run \`${DOCS_COMMAND}\``,
    ).toBe(true);
  });

  it('draws how the tables relate, from their keys: every source table, each link once', async () => {
    const { SOURCE_TABLES } = await import('../../src/catalog/tables.js');
    const document = tablesDocument();
    const diagram = document.slice(
      document.indexOf('```mermaid'),
      document.indexOf('```', document.indexOf('```mermaid') + 3),
    );
    expect(diagram).toContain('properties ||--o{ leases : "property_id"');
    expect(diagram).toContain('invoices ||--o{ invoice_line_items : "invoice_id"');
    for (const table of SOURCE_TABLES) expect(diagram).toContain(`  ${table.name} {`);
    const links = diagram.split('\n').filter((line) => line.includes('||--o{'));
    expect(new Set(links).size).toBe(links.length);
    // A child's link to its parent is drawn from the declarations, never typed by hand.
    for (const table of SOURCE_TABLES.filter((t) => t.parentColumn))
      expect(
        links.some((line) => line.endsWith(`${table.name} : "${table.parentColumn}"`)),
        table.name,
      ).toBe(true);
  });

  it('lists every column with its type', () => {
    expect(tablesDocument()).toContain('| `amount_due` | numeric(14,2) | What is still unpaid. |');
    expect(tablesDocument()).toContain(
      "| `run_id` | bigint not null | The run's id, referenced by last_run_id of the rows it changed. |",
    );
  });
});
