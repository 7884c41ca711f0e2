import type { Insertable, Selectable } from 'kysely';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { LEASES } from '../../src/streams/leases/tables.js';
import type { Warehouse } from '../../src/catalog/tables.js';
import { loadColumns, type LoadRowOf } from '../../src/warehouse/schema.js';

// The Kysely types and bulk-load columns derived from the declarations (the type assertions are
// checked by `tsc`, which `npm test` runs first).

describe('types derived from the declarations', () => {
  it('map Postgres types to what the pg parsers give, null where nullable', () => {
    expectTypeOf<Selectable<Warehouse['invoices']>['amount']>().toEqualTypeOf<string | null>();
    expectTypeOf<Selectable<Warehouse['leases']>['lease_id']>().toEqualTypeOf<number>();
    expectTypeOf<Selectable<Warehouse['leases']>['move_in_date']>().toEqualTypeOf<string | null>();
    expectTypeOf<Selectable<Warehouse['leases']>['first_synced_at']>().toEqualTypeOf<Date>();
    expectTypeOf<Selectable<Warehouse['sync_runs']>['streams']>().toEqualTypeOf<string[]>();
    expectTypeOf<Selectable<Warehouse['sync_work_units']>['bytes']>().toEqualTypeOf<number>();
  });

  it('let inserts leave out columns with a default, and only those (or nullable ones)', () => {
    expectTypeOf<Insertable<Warehouse['sync_runs']>>()
      .toHaveProperty('run_id')
      .toEqualTypeOf<number | undefined>();
    expectTypeOf<Insertable<Warehouse['sync_runs']>>().toHaveProperty('kind').toEqualTypeOf<string>();
  });

  it('type the rows of normalization: a misspelled column does not compile', () => {
    // @ts-expect-error `lease_statu` is not a column of leases
    const misspelled: Partial<LoadRowOf<typeof LEASES>> = { lease_statu: 'Current' };
    expect(misspelled).toBeDefined();
    expectTypeOf<LoadRowOf<typeof LEASES>>().toHaveProperty('lease_status').toEqualTypeOf<string | null>();
    expectTypeOf<LoadRowOf<typeof LEASES>>().not.toHaveProperty('last_synced_at');
  });

  it('load every column of a source table but the ones the sync fills, money cast without precision', () => {
    const columns = Object.fromEntries(loadColumns(LEASES));
    expect(columns).toMatchObject({
      lease_id: 'bigint',
      move_in_date: 'date',
      source_hash: 'text',
      raw: 'jsonb',
    });
    expect(Object.keys(columns)).not.toContain('last_synced_at');
    expect(Object.keys(columns)).not.toContain('deleted_at');
  });
});
