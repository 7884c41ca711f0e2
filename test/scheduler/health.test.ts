import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/warehouse/embedded.js';
import { startPropsync, waitFor, type RunningCli } from '../cli/support.js';
import { scratchFolder } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * A TCP relay in front of Postgres that the test turns off: `pass` relays, `refuse` closes its
 * port and every connection (a server that is down), `hang` accepts connections and relays
 * nothing (a server or network that stopped answering) until `pass` again.
 */
async function startRelay(target: { host: string; port: number }) {
  const port = await freePort();
  const links: { client: Socket; upstream?: Socket }[] = [];
  let mode: 'pass' | 'hang' = 'pass';
  const link = (entry: { client: Socket; upstream?: Socket }) => {
    const upstream = tcpConnect(target.port, target.host);
    entry.upstream = upstream;
    for (const socket of [entry.client, upstream]) socket.on('error', () => {});
    entry.client.pipe(upstream);
    upstream.pipe(entry.client);
    entry.client.resume();
  };
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const entry = { client };
        links.push(entry);
        client.on('error', () => {});
        client.pause();
        if (mode === 'pass') link(entry);
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  await listen();
  return {
    port,
    async refuse() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const { client, upstream } of links.splice(0)) {
          client.destroy();
          upstream?.destroy();
        }
      });
    },
    async hang() {
      mode = 'hang';
      if (!server?.listening) await listen();
    },
    async pass() {
      mode = 'pass';
      if (!server?.listening) await listen();
      for (const entry of links) if (!entry.upstream) link(entry);
    },
    async close() {
      await this.refuse();
    },
  };
}

let database: TestDatabase;
let folder: ReturnType<typeof scratchFolder>;
beforeAll(async () => {
  database = await createTestDatabase();
  folder = scratchFolder();
});
afterAll(async () => {
  await database?.drop();
  folder?.remove();
});

/** GET /healthz; a reply that does not come within 15 s fails the test (a hung check). */
async function healthz(port: number): Promise<{ status: number; text: string }> {
  const reply = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(15_000) });
  return { status: reply.status, text: await reply.text() };
}

describe('/healthz of propsync schedule while its warehouse goes away', () => {
  it('answers 503 within its timeout, saying what is wrong without hosts, users or database names', async () => {
    const real = new URL(database.url);
    const relay = await startRelay({ host: real.hostname, port: Number(real.port || 5432) });
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    const port = await freePort();
    let scheduler: RunningCli | undefined;
    try {
      scheduler = startPropsync(['schedule'], {
        env: {
          DATABASE_URL: url.toString(),
          PROPSYNC_API_URL: 'http://127.0.0.1:9',
          PROPSYNC_API_USERNAME: 'u',
          PROPSYNC_API_PASSWORD: 'health-pw',
          PROPSYNC_METRICS_PORT: String(port),
          PROPSYNC_METRICS_HOST: '127.0.0.1',
        },
        cwd: folder.dir,
      });
      let up = 0;
      await waitFor(
        async () => {
          up = await healthz(port).then(
            (r) => r.status,
            () => 0,
          );
          return up !== 0;
        },
        60_000,
        'the scheduler /healthz',
      );
      expect(up, scheduler.stderr()).toBe(200);

      const leaks = [String(relay.port), '127.0.0.1', real.username, database.name].filter(Boolean);
      const expectDown = async (database: string) => {
        const { status, text } = await healthz(port);
        expect(status).toBe(503);
        expect(JSON.parse(text)).toMatchObject({ ok: false, stopping: false, database });
        for (const leak of leaks) expect(text).not.toContain(leak);
      };
      await relay.refuse();
      await expectDown('database unreachable (connection refused)');
      await relay.hang();
      await expectDown('database timeout');

      await relay.pass();
      await waitFor(
        async () => (await healthz(port)).status === 200,
        30_000,
        '/healthz 200 once the warehouse answers again',
      );
    } finally {
      scheduler?.child.kill('SIGTERM');
      await scheduler?.exited;
      await relay.close();
    }
  }, 120_000);
});
