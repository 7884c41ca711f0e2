/**
 * Issue 38 item 5: alerts told once per change, against the real Postgres and a webhook
 * receiver of the test's own on 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evaluateAlerts, type DeliveryEvent } from '../../src/app/alerts/evaluate.js';
import { WAREHOUSE_TABLES, type Db, type Warehouse } from '../../src/catalog/tables.js';
import { configSchemaFor } from '../../src/config/schema.js';
import { createLogger } from '../../src/log/logger.js';
import { connect } from '../../src/warehouse/db.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const HOUR = 3_600_000;
const SECRET_PATH = '/hooks/T0SECRET/B0SECRET/x9Secret42';

/** A webhook receiver: answers each request as `script` says (then 200), keeps what it was sent. */
interface Receiver {
  url: string;
  received: Record<string, unknown>[];
  requests: number;
  script: ('500' | 'hang' | 'ok')[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Omit<Receiver, 'url' | 'close'> = { received: [], requests: 0, script: [] };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      receiver.requests += 1;
      const step = receiver.script.shift() ?? 'ok';
      if (request.url !== SECRET_PATH) return response.writeHead(404).end();
      if (step === '500') return response.writeHead(500).end('boom');
      if (step === 'hang') return void hanging.push(response);
      receiver.received.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${SECRET_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  }) as Receiver;
}

/** A logger whose JSON lines the test reads. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger({ destination, level: 'debug' }), lines };
}

function configWith(url: string, target: Record<string, unknown> = {}) {
  return configSchemaFor({ OPS_HOOK: url }).parse({
    database: { url: 'postgres://propsync@127.0.0.1:5432/propsync' },
    accounts: [
      {
        id: 'north',
        source: { url: 'https://north.example.com', auth: { type: 'basic', username: 'u', password: 'p' } },
      },
    ],
    streams: { properties: { enabled: false }, units: { enabled: false } },
    alerts: [
      { name: 'ops', urlEnv: 'OPS_HOOK', format: 'json', timeout: '1s', giveUpAfter: '20s', ...target },
    ],
  });
}

let database: TestDatabase;
let receiver: Receiver;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});
afterEach(async () => {
  await receiver?.close();
  await database.db.deleteFrom('alert_state').execute();
  await database.db.deleteFrom('sync_runs').execute();
});

const NOW = Date.now();
const at = (hours: number) => new Date(NOW + hours * HOUR);

async function addRun(db: Db, stream: string, status: string, hours: number, error: string | null = null) {
  await db
    .insertInto('sync_runs')
    .values({
      account_id: 'north',
      kind: 'sync',
      streams: [stream],
      status,
      error,
      started_at: at(hours - 0.01),
      finished_at: at(hours),
    })
    .execute();
}

describe('alerts', () => {
  it('ten failing runs in a row, evaluated by two processes at once, give one alert, reminders, then one resolved', async () => {
    receiver = await startReceiver();
    const config = configWith(receiver.url, { kinds: ['run_failed'] });
    const { logger } = capturedLogger();
    const other = connect<Warehouse>(database.url, { maxConnections: 4 });
    try {
      const scope = { config, accounts: config.accounts };
      for (let run = 0; run < 10; run++) {
        await addRun(database.db, 'leases', 'failed', run * 0.5, `leases:100:live: server error: HTTP 500`);
        const now = at(run * 0.5 + 0.1);
        await Promise.all([
          evaluateAlerts(database.db, scope, { logger, now }),
          evaluateAlerts(other as Db, scope, { logger, now }),
        ]);
      }
      expect(receiver.received.map((body) => [body.event, body.kind, body.alertKey])).toEqual([
        ['firing', 'run_failed', 'run_failed:leases'],
      ]);
      // A day later, still failing: one reminder, from either process.
      await Promise.all([
        evaluateAlerts(database.db, scope, { logger, now: at(29) }),
        evaluateAlerts(other as Db, scope, { logger, now: at(29) }),
      ]);
      await evaluateAlerts(database.db, scope, { logger, now: at(30) });
      expect(receiver.received.map((body) => body.event)).toEqual(['firing', 'reminder']);
      await addRun(database.db, 'leases', 'succeeded', 31);
      await Promise.all([
        evaluateAlerts(database.db, scope, { logger, now: at(31.1) }),
        evaluateAlerts(other as Db, scope, { logger, now: at(31.1) }),
      ]);
      expect(receiver.received.map((body) => body.event)).toEqual(['firing', 'reminder', 'resolved']);
      expect(receiver.received[0]).toMatchObject({
        source: 'propsync',
        version: 1,
        severity: 'error',
        account: 'north',
        stream: 'leases',
        details: { status: 'failed', firstError: 'leases:100:live: server error: HTTP 500' },
      });
    } finally {
      await other.destroy();
    }
  });

  it('a receiver that answers 500, then times out, then comes back gets the message once', async () => {
    receiver = await startReceiver();
    receiver.script.push('500', 'hang');
    const config = configWith(receiver.url, { kinds: ['run_failed'] });
    const { logger, lines } = capturedLogger();
    const events: DeliveryEvent[] = [];
    await addRun(database.db, 'invoices', 'failed', 0, 'invoices: boom');
    await evaluateAlerts(
      database.db,
      { config, accounts: config.accounts },
      { logger, now: at(0.1), onDelivery: (event) => events.push(event) },
    );
    expect(receiver.requests).toBe(3);
    expect(receiver.received).toHaveLength(1);
    expect(events).toEqual([
      { account: 'north', target: 'ops', kind: 'run_failed', event: 'firing', delivered: true },
    ]);
    expect(lines.some((line) => line.includes('"event":"alert_sent"') && line.includes('"attempts":3'))).toBe(
      true,
    );
    const [row] = await database.db.selectFrom('alert_state').selectAll().execute();
    expect(row.delivered_at).not.toBeNull();
  });

  it('a receiver that is down never fails the evaluation: logged and counted, no URL anywhere', async () => {
    receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const config = configWith(url, { kinds: ['run_failed'], giveUpAfter: '3s' });
    const { logger, lines } = capturedLogger();
    const events: DeliveryEvent[] = [];
    await addRun(database.db, 'invoices', 'failed', 0, 'invoices: boom');
    const started = Date.now();
    await evaluateAlerts(
      database.db,
      { config, accounts: config.accounts },
      { logger, now: at(0.1), onDelivery: (event) => events.push(event) },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(events).toEqual([
      { account: 'north', target: 'ops', kind: 'run_failed', event: 'firing', delivered: false },
    ]);
    const undelivered = lines.filter((line) => line.includes('"event":"alert_undelivered"'));
    expect(undelivered).toHaveLength(1);
    expect(undelivered[0]).toMatch(/could not connect \(ECONNREFUSED\)/);
    expect(lines.join('\n')).not.toContain('SECRET');
    expect(JSON.stringify(config)).not.toContain('SECRET');
  });

  it('a stale stream goes warn, then error on a moved clock, then resolved', async () => {
    receiver = await startReceiver();
    const config = configWith(receiver.url, { kinds: ['freshness'] });
    const { logger } = capturedLogger();
    const scope = { config, accounts: config.accounts };
    await addRun(database.db, 'leases', 'succeeded', 0);
    await addRun(database.db, 'invoices', 'succeeded', 0);
    await evaluateAlerts(database.db, scope, { logger, now: at(2) });
    expect(receiver.received).toEqual([]);
    await evaluateAlerts(database.db, scope, { logger, now: at(27) });
    await evaluateAlerts(database.db, scope, { logger, now: at(28) });
    expect(receiver.received.map((body) => [body.alertKey, body.severity]).sort()).toEqual([
      ['freshness:invoices', 'warn'],
      ['freshness:leases', 'warn'],
    ]);
    receiver.received.length = 0;
    await evaluateAlerts(database.db, scope, { logger, now: at(51) });
    expect(receiver.received.map((body) => [body.event, body.alertKey, body.severity]).sort()).toEqual([
      ['firing', 'freshness:invoices', 'error'],
      ['firing', 'freshness:leases', 'error'],
    ]);
    receiver.received.length = 0;
    await addRun(database.db, 'leases', 'succeeded', 52);
    await evaluateAlerts(database.db, scope, { logger, now: at(52.1) });
    expect(receiver.received.map((body) => [body.event, body.alertKey])).toEqual([
      ['resolved', 'freshness:leases'],
    ]);
  });

  it("a budget the call gate counts as spent fires once, whatever the runs' own tallies say", async () => {
    receiver = await startReceiver();
    const config = configWith(receiver.url, { kinds: ['budget'] });
    const budget = config.accounts[0].source.dailyCallBudget;
    const { logger } = capturedLogger();
    const scope = { config, accounts: config.accounts };
    // A worker's queued run books its calls at the gate; the run history holds only a share of them.
    await addRun(database.db, 'leases', 'succeeded', 0);
    await sql`insert into source_budget (account_id, day, spent)
              values ('north', (now() at time zone ${config.accounts[0].timeZone})::date, ${budget})`.execute(
      database.db,
    );
    try {
      await evaluateAlerts(database.db, scope, { logger });
      expect(receiver.received.map((body) => [body.event, body.kind])).toEqual([['firing', 'budget']]);
      expect(receiver.received[0].summary).toContain(`(${budget} of ${budget} calls)`);
    } finally {
      await database.db.deleteFrom('source_budget').execute();
    }
  });

  it('a target that asks for errors only hears of the stale stream when it is an error', async () => {
    receiver = await startReceiver();
    const config = configWith(receiver.url, { kinds: ['freshness'], minSeverity: 'error', format: 'slack' });
    const { logger } = capturedLogger();
    const scope = { config, accounts: config.accounts };
    await addRun(database.db, 'leases', 'succeeded', 0);
    await addRun(database.db, 'invoices', 'succeeded', 40);
    await evaluateAlerts(database.db, scope, { logger, now: at(27) });
    expect(receiver.received).toEqual([]);
    await evaluateAlerts(database.db, scope, { logger, now: at(51) });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]).toMatchObject({
      text: expect.stringMatching(
        /^propsync north: freshness \(leases\) error: leases of account north is stale/,
      ),
    });
  });
});

describe('alert_state', () => {
  it('is declared', () => {
    expect(WAREHOUSE_TABLES.some((table) => table.name === 'alert_state')).toBe(true);
  });
});
