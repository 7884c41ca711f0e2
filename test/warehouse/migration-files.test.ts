import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, migrationProvider } from '../../src/warehouse/migrate.js';

// The migrations as a compiled tree holds them: `.js` beside `.d.ts` and `.map` files.
const folder = mkdtempSync(join(tmpdir(), 'propsync-migrations-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('migration files', () => {
  it('reads compiled .js migrations and ignores declarations and source maps', async () => {
    writeFileSync(
      join(folder, '0001_first.js'),
      'export async function up() {}\nexport async function down() {}\n',
    );
    writeFileSync(join(folder, '0001_first.d.ts'), 'export declare function up(): Promise<void>;\n');
    writeFileSync(join(folder, '0001_first.js.map'), '{}');
    expect(Object.keys(await migrationProvider(folder).getMigrations())).toEqual(['0001_first']);
  });

  it('finds the project folder from the module, whatever the working directory', async () => {
    expect(MIGRATIONS_FOLDER.endsWith('/migrations')).toBe(true);
    expect(Object.keys(await migrationProvider().getMigrations()).slice(0, 2)).toEqual([
      '0001_source_tables',
      '0002_sync_bookkeeping',
    ]);
  });
});
