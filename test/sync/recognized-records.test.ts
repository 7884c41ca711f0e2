import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyncHarness, type SyncHarness } from '../support/sync-harness.js';
import { expectedTotals, warehouseTotals } from '../support/warehouse-truth.js';

// Decoding is most of a sync's work when little changed, so a record whose text is the very text
// a live row was loaded from is passed over undecoded (its text's digest is kept in the row), in
// XML and in JSON. These tests tell a record passed over from one decoded and skipped by its
// tree's digest by spoiling the stored tree digests: a record decoded again would no longer
// match, and be written.

const PARENTS = ['leases', 'invoices', 'properties'] as const;

async function count(h: SyncHarness, query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  const { rows } = await query.execute(h.warehouse.db);
  return rows[0].n;
}

for (const format of ['xml', 'json'] as const)
  describe(`${format.toUpperCase()} records whose text a live row was loaded from`, () => {
    let h: SyncHarness;
    let spoiledLease = 0;
    beforeAll(async () => {
      h = await startSyncHarness({ scale: 'small', seed: 31, today: '2026-05-20', format });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('are loaded with the digest of their text on the first sync', async () => {
      const summary = await h.sync();
      expect(summary).toMatchObject({ status: 'succeeded', quarantined: 0 });
      for (const table of PARENTS) {
        expect(
          await count(h, sql`select count(*)::int as n from ${sql.table(table)}`),
          table,
        ).toBeGreaterThan(0);
        expect(
          await count(
            h,
            sql`select count(*)::int as n from ${sql.table(table)} where source_text_hash is null`,
          ),
          table,
        ).toBe(0);
      }
    });

    it('are passed over undecoded on the next sync, rows untouched; a row marked deleted is not recognized and comes back', async () => {
      for (const table of PARENTS)
        await sql`update ${sql.table(table)} set source_hash = 'spoiled'`.execute(h.warehouse.db);
      const lease = await h.warehouse.db
        .selectFrom('leases')
        .select(['lease_id', 'last_run_id'])
        .orderBy('lease_id')
        .limit(1)
        .offset(7)
        .executeTakeFirstOrThrow();
      spoiledLease = lease.lease_id;
      await sql`update leases set deleted_at = now() where lease_id = ${lease.lease_id}`.execute(
        h.warehouse.db,
      );
      const leases = await count(h, sql`select count(*)::int as n from leases`);

      const summary = await h.sync();
      expect(summary).toMatchObject({ status: 'succeeded', rowsInserted: 0, quarantined: 0 });
      // The revived lease is the one row written.
      expect(summary.rowsUpdated).toBe(1);
      // Every other lease was passed over: its spoiled digest is still there, and the run wrote none of them.
      expect(
        await count(
          h,
          sql`select count(*)::int as n from leases where source_hash = 'spoiled' and last_run_id <> ${summary.runId}`,
        ),
      ).toBe(leases - 1);
      for (const table of ['invoices', 'properties'] as const) {
        expect(
          await count(
            h,
            sql`select count(*)::int as n from ${sql.table(table)} where source_hash <> 'spoiled' or last_run_id = ${summary.runId}`,
          ),
          table,
        ).toBe(0);
      }
      // The lease marked deleted was decoded, and its row revived with its true digests.
      const revived = await h.warehouse.db
        .selectFrom('leases')
        .selectAll()
        .where('lease_id', '=', spoiledLease)
        .executeTakeFirstOrThrow();
      expect(revived).toMatchObject({ deleted_at: null, last_run_id: summary.runId });
      expect(revived.source_hash).not.toBe('spoiled');
      expect(revived.source_text_hash).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    });

    it('are decoded again once they change at the source, and the warehouse is exact', async () => {
      h.sim.advance(7);
      const summary = await h.sync();
      expect(summary.status).toBe('succeeded');
      expect(summary.rowsInserted + summary.rowsUpdated).toBeGreaterThan(0);
      const expected = expectedTotals(h.sim.dataset);
      expect(await warehouseTotals(h.warehouse.db, expected)).toEqual(expected);
      // What the run wrote carries true digests; what it did not write still holds the spoiled one.
      expect(
        await count(
          h,
          sql`select count(*)::int as n from leases where last_run_id = ${summary.runId} and (source_hash = 'spoiled' or source_text_hash is null)`,
        ),
      ).toBe(0);
      expect(
        await count(h, sql`select count(*)::int as n from leases where last_run_id = ${summary.runId}`),
      ).toBeGreaterThan(0);
    });

    it.runIf(format === 'xml')(
      'are not recognized from rows a JSON sync wrote, whose text digest is of the JSON text',
      async () => {
        const before = await h.warehouse.db
          .selectFrom('leases')
          .select(['lease_id', 'source_text_hash'])
          .where('source_hash', '=', 'spoiled')
          .execute();
        const json = await h.sync({}, { format: 'json' });
        expect(json.status).toBe('succeeded');
        // No XML text digest recognizes a JSON record: every row still holding a spoiled digest is
        // decoded and, its data unchanged, takes the digests of its JSON text (the row not counted as written).
        expect(await count(h, sql`select count(*)::int as n from leases where source_hash = 'spoiled'`)).toBe(
          0,
        );
        expect(json.rowsUpdated).toBe(0);
        const rewritten = await h.warehouse.db
          .selectFrom('leases')
          .select(['lease_id', 'source_text_hash'])
          .where(
            'lease_id',
            'in',
            before.map((row) => row.lease_id),
          )
          .execute();
        expect(rewritten.length).toBe(before.length);
        const xmlDigests = new Map(before.map((row) => [row.lease_id, row.source_text_hash]));
        for (const row of rewritten) {
          expect(row.source_text_hash).toMatch(/^[A-Za-z0-9+/]{27}=$/);
          expect(row.source_text_hash).not.toBe(xmlDigests.get(row.lease_id));
        }
        // XML again: those are decoded (nothing recognizes them), found unchanged by their tree, and not written.
        const xml = await h.sync();
        expect(xml).toMatchObject({ status: 'succeeded', rowsInserted: 0, rowsUpdated: 0, rowsDeleted: 0 });
        expect(
          await count(h, sql`select count(*)::int as n from leases where last_run_id = ${xml.runId}`),
        ).toBe(0);
      },
    );
  });
