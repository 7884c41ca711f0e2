/** A column of a text table: its header and whether numbers are right-aligned. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/**
 * Lays out rows as a plain-text table (header, rule, rows), each line starting with `prefix`.
 * Cells are printed as given; null and undefined print as `-`.
 */
export function formatTable(columns: (Column | string)[], rows: unknown[][], prefix = ''): string[] {
  const specs = columns.map((column) =>
    typeof column === 'string' ? { header: column, align: 'left' as const } : column,
  );
  const cells = rows.map((row) =>
    specs.map((_, index) => (row[index] === null || row[index] === undefined ? '-' : String(row[index]))),
  );
  const widths = specs.map((spec, index) =>
    Math.max(spec.header.length, ...cells.map((row) => row[index].length)),
  );
  const pad = (value: string, index: number) =>
    specs[index].align === 'right' ? value.padStart(widths[index]) : value.padEnd(widths[index]);
  const line = (values: string[]) => `${prefix}${values.map(pad).join('  ')}`.trimEnd();
  return [
    line(specs.map((spec) => spec.header)),
    line(widths.map((width) => '-'.repeat(width))),
    ...cells.map(line),
  ];
}
