/**
 * What every registered stream must do, run over the registry: a new stream gets these tests by
 * being registered (and must bring recorded replies: `node bin/run-ts.mjs test/streams/record-fixtures.ts`).
 * - its table declarations match the migrated schema;
 * - every record of its recorded replies, in each version its method speaks, normalizes to rows
 *   of its declared tables and columns, typed as declared;
 * - every field of its recorded replies whose name looks personal is placed by its declaration
 *   of personal data (personal, personal in some records, or not personal);
 * - its plan, on a fixed clock over an empty warehouse, gives stable work of its own within the
 *   properties asked for, and a backfill cut by its chunk.
 */
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkRange } from '../../src/dates/days.js';
import type { ChunkSize } from '../../src/dates/calendar.js';
import { encodeParams } from '../../src/source/params.js';
import { loadStream, STREAM_MANIFESTS, type StreamDefinition } from '../../src/streams/load-stream.js';
import { undeclaredPersonalFields } from './personal-fields.js';
import { messageOf } from '../../src/log/errors.js';
import type { Lane, PlanContext, WorkUnitPlan } from '../../src/streams/types.js';
import {
  DIGEST_COLUMNS,
  loadColumns,
  primaryKey,
  type Column,
  type SourceTable,
} from '../../src/warehouse/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  comparableColumns,
  migratedColumns,
  migratedPrimaryKeys,
  type MigratedColumn,
} from '../support/migrated-schema.js';
import { planContext } from './plan-support.js';

/** The fixed clock and scope of the plan checks. */
const TODAY = '2024-06-15';
const PROPERTY_IDS = ['100001', '100002'];
/** The backfill range of the plan checks: cut into several chunks of any chunk size. */
const BACKFILL = { from: '2022-03-01', to: '2024-05-31' };

let warehouse: TestDatabase;
let columns: Map<string, MigratedColumn[]>;
let primaryKeys: Map<string, string[]>;
beforeAll(async () => {
  warehouse = await createTestDatabase();
  columns = await migratedColumns(warehouse.db);
  primaryKeys = await migratedPrimaryKeys(warehouse.db);
});
afterAll(async () => {
  await warehouse?.drop();
});

/** The recorded replies of a stream's method in one version (see record-fixtures.ts). */
function fixturePath(stream: string, method: string, version: string): URL {
  return new URL(`./${stream}/fixtures/${method}-${version}.json`, import.meta.url);
}

/** What is wrong with one value of a declared column, if anything. */
function valueProblem(column: Column, value: unknown): string | undefined {
  if (value === undefined) return 'missing';
  if (value === null) return column.nullable ? undefined : 'null in a not-null column';
  const ok = (() => {
    switch (column.type.replace(/\(.*\)$/, '')) {
      case 'bigint':
      case 'integer':
      case 'smallint':
        return Number.isSafeInteger(value);
      case 'numeric':
        // Money and quantities stay exact: decimal text, never a float.
        return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value);
      case 'date':
        return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
      case 'timestamptz':
        return value instanceof Date || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));
      case 'text':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'bigint[]':
        return Array.isArray(value) && value.every((item) => Number.isSafeInteger(item));
      case 'text[]':
        return Array.isArray(value) && value.every((item) => typeof item === 'string');
      default:
        return true;
    }
  })();
  return ok ? undefined : `${JSON.stringify(value)} is not a ${column.type}`;
}

/** What is wrong with the rows of one record, as `table.column: problem` lines. */
function rowProblems(
  stream: StreamDefinition,
  key: number,
  rows: Record<string, Record<string, unknown>[] | undefined>,
  /** The rows are a part's: children only, the record's own row is the record's. */
  part = false,
): string[] {
  const problems: string[] = [];
  const [parent] = stream.tables;
  for (const name of Object.keys(rows))
    if (!stream.tables.some((table) => table.name === name))
      problems.push(`${name}: not a table of the stream`);
  if ((rows[parent.name]?.length ?? 0) !== (part ? 0 : 1))
    problems.push(`${parent.name}: ${rows[parent.name]?.length ?? 0} rows, not ${part ? 'none' : 'one'}`);
  for (const table of stream.tables) {
    const written = new Map(loadColumns(table).map(([name]) => [name, table.columns[name]]));
    for (const row of rows[table.name] ?? []) {
      for (const name of Object.keys(row))
        if (!written.has(name)) problems.push(`${table.name}.${name}: not a column it loads`);
      for (const [name, column] of written) {
        if (DIGEST_COLUMNS.includes(name)) continue;
        const problem = valueProblem(column, row[name]);
        if (problem) problems.push(`${table.name}.${name}: ${problem}`);
      }
      const keyColumn = table === parent ? parent.key[0] : table.parentColumn!;
      if (row[keyColumn] !== key)
        problems.push(
          `${table.name}.${keyColumn}: ${JSON.stringify(row[keyColumn])}, not the record's key ${key}`,
        );
    }
  }
  return problems;
}

/** Every work unit of the lanes, dynamic steps run as on an empty warehouse (their lane's earlier units done). */
async function unitsOf(lanes: Lane[], context: PlanContext): Promise<WorkUnitPlan[]> {
  const units: WorkUnitPlan[] = [];
  for (const lane of lanes) {
    const doneUnits = new Map<string, number[]>();
    for (const step of lane.steps) {
      const planned =
        typeof step === 'function'
          ? await step({ db: context.db, accountId: context.accountId, runId: 1, doneUnits })
          : [step];
      for (const unit of planned) {
        units.push(unit);
        doneUnits.set(unit.kind, [...(doneUnits.get(unit.kind) ?? []), units.length]);
      }
    }
  }
  return units;
}

/** What is wrong with planned work: another stream's, other properties, parameters the method refuses. */
function workProblems(stream: StreamDefinition, lanes: Lane[], units: WorkUnitPlan[]): string[] {
  const problems: string[] = [];
  const outside = (ids: string[]) => ids.filter((id) => !PROPERTY_IDS.includes(id));
  for (const lane of lanes)
    if (outside(lane.propertyIds).length)
      problems.push(`lane ${lane.key}: properties ${outside(lane.propertyIds)} not asked for`);
  for (const unit of units) {
    if (unit.stream !== stream.name) problems.push(`${unit.unitKey}: of stream ${unit.stream}`);
    if (unit.request.method !== stream.method)
      problems.push(`${unit.unitKey}: calls ${unit.request.method.name}`);
    if (outside(unit.propertyIds).length)
      problems.push(`${unit.unitKey}: properties ${outside(unit.propertyIds)} not asked for`);
    if (unit.window?.from && unit.window.to && unit.window.from > unit.window.to)
      problems.push(`${unit.unitKey}: window ends before it starts`);
    for (const version of stream.method.versions) {
      try {
        encodeParams(stream.method, version, unit.request.params, 'America/Denver');
      } catch (error) {
        problems.push(`${unit.unitKey} (${version}): ${(error as Error).message}`);
      }
    }
  }
  const keys = units.map((unit) => unit.unitKey);
  for (const key of new Set(keys))
    if (keys.indexOf(key) !== keys.lastIndexOf(key)) problems.push(`${key}: planned twice`);
  return problems;
}

for (const manifest of STREAM_MANIFESTS) {
  describe(`stream ${manifest.name}`, () => {
    let stream: StreamDefinition;
    const context = () =>
      planContext(manifest.name, { today: TODAY, propertyIds: PROPERTY_IDS, cursors: {}, expected: {} });
    beforeAll(async () => {
      stream = await loadStream(manifest.name);
    });

    it('loads as its manifest declares it', () => {
      expect([stream.name, stream.entity, stream.method, stream.tables]).toEqual([
        manifest.name,
        manifest.entity,
        manifest.method,
        manifest.tables,
      ]);
      expect(manifest.method.versions).toContain(manifest.method.defaultVersion);
    });

    describe('declarations against the migrated schema', () => {
      it('declares every table with the columns, types, nullability, defaults and key the migrations give it', () => {
        for (const table of manifest.tables) {
          const compared = comparableColumns(table, columns.get(table.name));
          expect(compared.declared, `columns of ${table.name}`).toEqual(compared.migrated);
          expect(compared.account.declaredFirst, `account_id first in ${table.name}`).toBe(true);
          expect(compared.account.migrated, `account_id of ${table.name}`).toEqual(compared.account.declared);
          expect(primaryKey(table), `primary key of ${table.name}`).toEqual(primaryKeys.get(table.name));
        }
      });

      it("declares its parent table first, and each child naming its parent by the parent's key", () => {
        const [parent, ...children]: readonly SourceTable[] = manifest.tables;
        expect(parent.sourceHash, `${parent.name} keeps the digest of its records`).toBe(true);
        expect(parent.parentColumn).toBeUndefined();
        for (const child of children) {
          expect(child.parentColumn, `parent column of ${child.name}`).toBe(parent.key[0]);
          expect(child.columns[child.parentColumn!]?.nullable, `${child.name}.${child.parentColumn}`).toBe(
            false,
          );
          expect(child.sourceHash).toBe(false);
        }
      });
    });

    describe.each(manifest.method.versions)(
      `normalize, recorded ${manifest.method.name} %s replies`,
      (version) => {
        it('normalizes every record to rows of its declared tables and columns, typed as declared, keyed by the record', () => {
          const path = fixturePath(manifest.name, manifest.method.name, version);
          expect(
            existsSync(path),
            `recorded replies at ${path.pathname} (node bin/run-ts.mjs test/streams/record-fixtures.ts)`,
          ).toBe(true);
          const records = JSON.parse(readFileSync(path, 'utf8')) as unknown[];
          expect(records.length).toBeGreaterThan(0);
          for (const record of records) {
            const { key, rows, parts = [] } = stream.normalize(record, { version });
            expect(Number.isSafeInteger(key) && key > 0, `key ${key}`).toBe(true);
            expect(stream.recordKey(record)).toBe(String(key));
            expect(rowProblems(stream, key, rows), `record ${key}`).toEqual([]);
            // A record's parts (a property's units) are its rows too: each read, each typed as declared.
            for (const part of parts) {
              expect('error' in part ? messageOf(part.error) : '', `record ${key}, ${part.label}`).toBe('');
              if ('rows' in part)
                expect(rowProblems(stream, key, part.rows, true), `record ${key}, ${part.label}`).toEqual([]);
            }
          }
        });

        it('declares every field of its replies whose name looks personal (personal, in some records, or not)', () => {
          const records = JSON.parse(
            readFileSync(fixturePath(manifest.name, manifest.method.name, version), 'utf8'),
          ) as unknown[];
          expect(
            undeclaredPersonalFields(manifest.personal, records),
            "fields to declare in the manifest's `personal` (fields, when or notPersonal)",
          ).toEqual([]);
        });
      },
    );

    describe('plan on a fixed clock, empty warehouse', () => {
      it('gives work units of its own, within the properties asked for, with parameters its method takes', async () => {
        const lanes = await stream.plan(context());
        const units = await unitsOf(lanes, context());
        expect(units.length).toBeGreaterThan(0);
        expect(workProblems(stream, lanes, units)).toEqual([]);
      });

      it('gives the same unit keys when planned again', async () => {
        const keys = async () =>
          (await unitsOf(await stream.plan(context()), context())).map((unit) => unit.unitKey);
        expect(await keys()).toEqual(await keys());
      });

      it("backfills a range in its chunk's windows (or reads it whole once when it has no dates), with stable keys", async () => {
        const chunk = context().settings.chunk as ChunkSize;
        const backfill = () => stream.planBackfill(context(), { ...BACKFILL, chunk });
        const lanes = backfill();
        expect(lanes.length).toBeGreaterThan(0);
        const chunks = chunkRange(BACKFILL.from, BACKFILL.to, chunk);
        for (const lane of lanes) {
          const units = await unitsOf([lane], context());
          const windows = units.map((unit) => unit.window);
          if (windows.every((window) => window === undefined))
            expect(units, `lane ${lane.key}`).toHaveLength(1);
          else expect(windows, `lane ${lane.key}`).toEqual(chunks);
        }
        const units = await unitsOf(lanes, context());
        expect(workProblems(stream, lanes, units)).toEqual([]);
        expect((await unitsOf(backfill(), context())).map((unit) => unit.unitKey)).toEqual(
          units.map((unit) => unit.unitKey),
        );
      });
    });
  });
}
