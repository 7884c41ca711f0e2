import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutComments } from '../architecture/boundaries.test.js';
import { MIGRATIONS_FOLDER } from '../../src/warehouse/migrate.js';

/** Packages a migration may import: the migrator's own and the queue's, whose versions are pinned. */
const PACKAGES = new Set(['kysely', 'pg-boss']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The imports of the migrations (and their support folder) that are not frozen with them: any
 * file outside `folder` (src/ above all) and any package but PACKAGES and node's own modules.
 */
export function unfrozenImports(folder: string): string[] {
  return filesUnder(folder).flatMap((file) => {
    const text = withoutComments(readFileSync(file, 'utf8'));
    const specifiers = [
      ...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm),
    ].map((match) => match[1]);
    return specifiers
      .filter((specifier) => {
        if (specifier.startsWith('.')) {
          const target = relative(folder, resolve(dirname(file), specifier));
          return target.startsWith('..') || target.startsWith(sep);
        }
        return !specifier.startsWith('node:') && !PACKAGES.has(specifier.split('/')[0]);
      })
      .map((specifier) => `${relative(folder, file)} imports ${specifier}`);
  });
}

describe('frozen migrations', () => {
  it('import nothing from src/ nor any package but kysely and pg-boss', () => {
    expect(unfrozenImports(MIGRATIONS_FOLDER)).toEqual([]);
  });

  it('the check finds an import from src/ and from another package', () => {
    const folder = mkdtempSync(join(tmpdir(), 'propsync-frozen-'));
    try {
      writeFileSync(
        join(folder, '0001_a.ts'),
        "import { sql } from 'kysely';\nimport { x } from './support/x.js';\n",
      );
      writeFileSync(join(folder, '0002_b.ts'), "import { y } from '../src/reporting/views.js';\n");
      writeFileSync(join(folder, '0003_c.ts'), "const z = await import('zod');\n");
      expect(unfrozenImports(folder)).toEqual([
        '0002_b.ts imports ../src/reporting/views.js',
        '0003_c.ts imports zod',
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
