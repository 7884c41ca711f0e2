import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/sync/status.js';
import { runPropsync } from '../support/cli.js';
import { PASSWORD, startCliWorld, type CliWorld } from './support.js';

let world: CliWorld;
beforeAll(async () => {
  world = await startCliWorld();
});
afterAll(async () => {
  await world?.close();
});

async function count(table: string, where = sql`true`): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from ${sql.table(table)} where ${where}`.execute(world.database.db);
  return rows[0].n;
}

describe('propsync sync, status and the quarantine, as child processes', () => {
  it('a run with a malformed record exits 3, loads the rest and shows it in status --json', async () => {
    const { sim, env } = world;
    const bad = sim.dataset.leases.find((lease) => lease._status === 4)!;
    sim.setFaults(`badrecord:ids=${bad.id}:kind=date`);
    const run = await runPropsync(['sync'], { env });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout).toMatch(/finished with 1 record\(s\) quarantined/);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    expect(await count('leases')).toBe(sim.dataset.leases.length - 1);
    expect(await count('invoices')).toBeGreaterThan(0);
    const quarantined = await world.database.db.selectFrom('quarantine').selectAll().execute();
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]).toMatchObject({ stream: 'leases', record_key: bad.id, resolved_at: null });

    const [json, text] = await Promise.all([
      runPropsync(['status', '--json'], { env }),
      runPropsync(['status'], { env }),
    ]);
    expect(json.code).toBe(0);
    // One report per account, each today's report plus its account: here the one account `default`.
    const document = JSON.parse(json.stdout) as { generatedAt: string; accounts: StatusReport[] };
    expect(Object.keys(document)).toEqual(['generatedAt', 'accounts']);
    expect(Date.parse(document.generatedAt)).not.toBeNaN();
    expect(document.accounts.map((account) => account.account)).toEqual(['default']);
    const [report] = document.accounts;
    const { rows } = await sql<{ calls: number }>`select sum(calls)::int as calls from sync_runs`.execute(
      world.database.db,
    );
    expect(report.budget).toEqual({
      dailyCallBudget: 10_000,
      callsToday: rows[0].calls,
      left: 10_000 - rows[0].calls,
    });
    expect(report.budget.callsToday).toBeGreaterThan(0);
    const leases = report.streams.find((stream) => stream.stream === 'leases')!;
    expect(leases.lastRun).toMatchObject({ status: 'succeeded', quarantined: 1 });
    expect(leases.openQuarantine).toBe(1);
    expect(leases.scopes.map((scope) => scope.scope).sort()).toEqual(
      sim.dataset.properties.map((property) => String(property.PropertyID)).sort(),
    );
    for (const scope of leases.scopes) {
      expect(scope.cursors.length).toBeGreaterThan(0);
      expect(scope.lastWorkUnit?.status).toBe('done');
    }
    const invoices = report.streams.find((stream) => stream.stream === 'invoices')!;
    expect(invoices.lastRun).toMatchObject({ status: 'succeeded', quarantined: 0 });
    expect(invoices.scopes.length).toBeGreaterThan(0);
    expect(report.tables.find((table) => table.table === 'leases')).toEqual({
      table: 'leases',
      rows: sim.dataset.leases.length - 1,
      deleted: 0,
    });
    expect(report.quarantine.open).toBe(1);
    expect(report.quarantine.entries[0]).toMatchObject({
      stream: 'leases',
      recordKey: bad.id,
      propertyId: Number(bad.propertyId),
    });
    expect(report.quarantine.entries[0].reason).not.toBe('');
    expect(json.stdout).not.toContain(PASSWORD);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('open quarantine entries: 1');
    expect(text.stdout).toContain(bad.id);
  });

  it('once the source fixes the record, sync --property --full loads it and resolves the entry', async () => {
    const { sim, env } = world;
    sim.setFaults(undefined);
    const bad = await world.database.db
      .selectFrom('quarantine')
      .select(['record_key', 'property_id'])
      .executeTakeFirstOrThrow();
    const run = await runPropsync(
      ['sync', '--stream', 'leases', '--property', String(bad.property_id), '--full'],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/run \d+ \(sync: leases\) succeeded/);
    expect(await count('leases', sql`deleted_at is null`)).toBe(sim.dataset.leases.length);
    expect(await count('leases', sql`lease_id = ${Number(bad.record_key)}`)).toBe(1);
    expect(await count('quarantine', sql`resolved_at is null`)).toBe(0);
  });

  it('a sync right after changes no row', async () => {
    const run = await runPropsync(['sync'], { env: world.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('rows inserted 0, updated 0');
  });
});
