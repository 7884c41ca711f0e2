/**
 * The shape of the code, checked: generic folders name no stream, and imports go the ways
 * docs/architecture.md draws. The forbidden names come from the stream registry itself (names,
 * source methods, tables and their key columns), so a new stream is covered without editing
 * this test.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DISCOVERY, loadStream, STREAM_MANIFESTS } from '../../src/streams/load-stream.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Folders that run any stream and so must name none. */
const GENERIC = [
  'sync',
  'source',
  'cli',
  'console',
  'scheduler',
  'worker',
  'queue',
  'demo',
  'app',
  'catalog',
  'warehouse',
];
/**
 * Files of those folders that are about the data itself: the demo's analyst questions are SQL
 * over named tables by nature (the BI layer's business, not the engine's).
 */
const ABOUT_THE_DATA = ['demo/analyst-queries.ts', 'demo/report.ts'];
/**
 * Words every stream's scope is made of: propsync syncs per property, so the engine speaks of
 * properties whichever streams exist.
 */
const ENGINE_WORDS = new Set([
  'property',
  'properties',
  'property_id',
  'property_ids',
  // The engine's work units (`workUnitId`), whatever the units stream and its table are called; the
  // stream's other names (getPropertyUnits, unit_inventories, unit_spaces, unit_space_id) are checked.
  'units',
  'unit_id',
]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The text of a TypeScript file without its comments (strings kept: a message can leak a name too). */
export function withoutComments(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === quote) quote = null;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
    }
  }
  return out;
}

/** Every name a generic folder must not write, with what it is. */
async function forbiddenNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const add = (name: string, what: string) => {
    if (!ENGINE_WORDS.has(name) && !names.has(name)) names.set(name, what);
  };
  add(DISCOVERY.method.name, 'the discovery method');
  for (const manifest of STREAM_MANIFESTS) {
    const stream = await loadStream(manifest.name);
    add(stream.name, 'a stream');
    add(stream.method.name, `the method of ${stream.name}`);
    add(stream.entity, `the record of ${stream.name}`);
    for (const table of stream.tables) {
      add(table.name, `a table of ${stream.name}`);
      for (const column of [...table.key, ...(table.parentColumn ? [table.parentColumn] : [])])
        add(column, `a key of ${table.name}`);
    }
  }
  return names;
}

/** `leases` → also `Leases` and `LEASES`, as identifiers write it (`planLeases`, `LEASES`). */
function patternsOf(name: string): RegExp[] {
  const pascal = name.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
  return [
    new RegExp(`\\b${name}\\b`),
    new RegExp(`(?:\\b|[a-z])${pascal}\\b`),
    new RegExp(`\\b${name.toUpperCase()}\\b`),
  ];
}

/** Where each forbidden name appears in the given files: `file:line: name (what)`. */
export function leaks(files: readonly string[], names: Map<string, string>): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = withoutComments(readFileSync(file, 'utf8')).split('\n');
    lines.forEach((line, index) => {
      for (const [name, what] of names) {
        if (patternsOf(name).some((pattern) => pattern.test(line)))
          found.push(`${relative(SRC, file)}:${index + 1}: ${name} (${what})`);
      }
    });
  }
  return found;
}

/** The files under src/ a file imports (static, dynamic or type-only), relative imports only. */
function importedFiles(file: string): string[] {
  const text = withoutComments(readFileSync(file, 'utf8'));
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm),
  ].map((match) => match[1]);
  return specifiers.map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
}

/** The top folder under src/ of each module a file imports. */
function importedFolders(file: string): string[] {
  return importedFiles(file).map(folderOf);
}

function folderOf(file: string): string {
  return relative(SRC, file).split(sep)[0];
}

/** Every import circle among the files, as `a -> b -> a` (Tarjan's strongly connected components). */
export function importCircles(files: readonly string[]): string[] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importedFiles(file).filter((to) => known.has(to))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) === index.get(file)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        members.push(relative(SRC, member));
      } while (member !== file);
      if (members.length > 1 || (edges.get(file) ?? []).includes(file))
        circles.push(members.reverse().join(' -> '));
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return circles;
}

/** The folders of src/ that run one way: each may import only those after it (see docs/architecture.md). */
const LAYERS = [
  ['cli'],
  ['scheduler', 'worker', 'demo'],
  ['console'],
  ['app'],
  ['queue'],
  ['sync', 'reporting'],
  ['catalog'],
  ['config'],
  ['streams'],
  ['source', 'warehouse'],
  ['log', 'dates', 'runtime'],
];
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

/** Which folders may not import which: each rule of docs/architecture.md; the last is the layering itself. */
const IMPORT_RULES: { from: (folder: string) => boolean; to: string[]; rule: string }[] = [
  { from: (folder) => folder !== 'cli', to: ['cli'], rule: 'nothing imports cli/' },
  {
    from: (folder) => folder === 'streams',
    to: ['sync', 'app', 'catalog', 'config'],
    rule: 'streams/ import neither the engine, the assembled warehouse nor the configuration',
  },
  {
    from: (folder) => folder === 'source',
    to: ['sync', 'streams', 'app', 'config', 'catalog', 'warehouse'],
    rule: 'the source client imports neither the engine, streams nor config/',
  },
  {
    from: (folder) => folder === 'warehouse',
    to: ['sync', 'streams', 'app', 'catalog', 'config'],
    rule: 'storage imports neither streams nor the engine',
  },
  {
    from: (folder) => folder === 'sync',
    to: ['cli', 'scheduler', 'app', 'demo', 'reporting'],
    rule: 'the engine imports neither cli/, scheduler/, app/ nor reporting/',
  },
  {
    from: (folder) => layerOf(folder) >= 0,
    to: LAYERS.flat(),
    rule: 'imports run one way: cli -> scheduler, worker, demo -> console -> app -> sync, reporting -> catalog -> config -> streams -> source, warehouse -> log, dates, runtime',
  },
];

/** Imports that break a rule: `file -> folder (rule)`. */
export function brokenImports(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const from = folderOf(file);
    for (const to of importedFolders(file)) {
      if (from === 'simulator' && to !== 'simulator')
        broken.push(`${relative(SRC, file)} -> ${to} (the simulator imports nothing from the product)`);
      for (const rule of IMPORT_RULES.slice(0, -1))
        if (rule.from(from) && rule.to.includes(to) && from !== to)
          broken.push(`${relative(SRC, file)} -> ${to} (${rule.rule})`);
      const layers = IMPORT_RULES[IMPORT_RULES.length - 1];
      if (from !== to && layerOf(from) >= 0 && layerOf(to) >= 0 && layerOf(to) <= layerOf(from))
        broken.push(`${relative(SRC, file)} -> ${to} (${layers.rule})`);
    }
  }
  return broken;
}

describe('architecture', () => {
  const all = filesUnder(SRC);

  it('generic folders name no stream, source method, table or key of a stream', async () => {
    const names = await forbiddenNames();
    expect(names.size).toBeGreaterThan(STREAM_MANIFESTS.length * 3);
    const generic = all.filter(
      (file) =>
        GENERIC.includes(folderOf(file)) &&
        !ABOUT_THE_DATA.includes(relative(SRC, file).split(sep).join('/')),
    );
    expect(leaks(generic, names)).toEqual([]);
  });

  it('the check finds a name that leaks', async () => {
    const names = await forbiddenNames();
    const streamFiles = all.filter((file) => folderOf(file) === 'streams' && !file.endsWith('registry.ts'));
    expect(leaks(streamFiles, names).length).toBeGreaterThan(0);
  });

  it('imports go the documented ways', () => {
    expect(brokenImports(all)).toEqual([]);
  });

  it('no import circle anywhere, type-only imports included', () => {
    expect(importCircles(all)).toEqual([]);
  });

  it('the circle check finds a circle, a type-only one too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circle-'));
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c.js';\nexport const b: C = 1;\n");
    writeFileSync(join(dir, 'c.ts'), "import type { a } from './a.js';\nexport type C = typeof a;\n");
    writeFileSync(join(dir, 'd.ts'), "import { a } from './a.js';\nexport const d = a;\n");
    const circles = importCircles(['a', 'b', 'c', 'd'].map((name) => join(dir, `${name}.ts`)));
    rmSync(dir, { recursive: true });
    expect(circles).toHaveLength(1);
    expect(circles[0]).toMatch(/a\.ts -> .*b\.ts -> .*c\.ts$/);
  });

  it('nothing at the src/ root but entry points', () => {
    expect(readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isFile())).toEqual([]);
  });

  it('the simulator is entered through index.ts only (and usage.ts, which help reads without loading it)', () => {
    const entries = ['simulator/index.ts', 'simulator/usage.ts'];
    const bypassing = all
      .filter((file) => folderOf(file) !== 'simulator')
      .flatMap((file) =>
        importedFiles(file)
          .map((to) => relative(SRC, to).split(sep).join('/'))
          .filter((to) => to.startsWith('simulator/') && !entries.includes(to))
          .map((to) => `${relative(SRC, file)} -> ${to}`),
      );
    expect(bypassing).toEqual([]);
  });

  it('comments are ignored, strings are not', () => {
    expect(withoutComments('a // leases\nb /* leases */ \'x // y\' "leases"')).toBe(
      'a \nb  \'x // y\' "leases"',
    );
  });
});

/** Only src/sync/runs/ writes `sync_runs` and `sync_run_lanes`: in Kysely (`insertInto`, `updateTable`, `deleteFrom`) or SQL. */
const OWNER = 'sync/runs/';
const TABLES = '(?:public\\.)?(?:sync_runs|sync_run_lanes)\\b';

/** The ways a file can write a run's or a lane's row. */
const WRITES = [
  new RegExp(`\\b(?:insertInto|updateTable|deleteFrom)\\(\\s*['"\`]${TABLES}`, 'g'),
  new RegExp(`\\b(?:update|insert\\s+into|delete\\s+from)\\s+${TABLES}`, 'gi'),
];

/** `file: the write` for each write of a run or lane row in `text`. */
export function runWrites(file: string, text: string): string[] {
  const code = withoutComments(text);
  return WRITES.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => `${file}: ${match[0]}`));
}

describe('the run lifecycle (issue 34)', () => {
  it('only src/sync/runs/ writes sync_runs and sync_run_lanes', () => {
    const outside = filesUnder(SRC)
      .map((file) => relative(SRC, file).split(sep).join('/'))
      .filter((file) => !file.startsWith(OWNER));
    const writes = outside.flatMap((file) => runWrites(file, readFileSync(join(SRC, file), 'utf8')));
    expect(writes).toEqual([]);
    // The owner does write them (the check looks where the writes are).
    const inside = filesUnder(join(SRC, OWNER)).flatMap((file) =>
      runWrites(file, readFileSync(file, 'utf8')),
    );
    expect(inside.length).toBeGreaterThan(3);
  });

  it('the check finds a write in Kysely or in SQL, and not in a comment or a read', () => {
    expect(runWrites('a.ts', "await db.updateTable('sync_runs').set({ status: 'x' })")).toHaveLength(1);
    expect(runWrites('a.ts', 'await db.updateTable("sync_run_lanes as l")')).toHaveLength(1);
    expect(runWrites('a.ts', 'sql`update public.sync_runs set status = ${s}`')).toHaveLength(1);
    expect(runWrites('a.ts', 'sql`INSERT INTO sync_run_lanes (run_id) values (1)`')).toHaveLength(1);
    expect(runWrites('a.ts', "// db.updateTable('sync_runs')\ndb.selectFrom('sync_runs')")).toEqual([]);
    expect(runWrites('a.ts', 'sql`select * from sync_runs join sync_run_lanes using (run_id)`')).toEqual([]);
  });
});
