import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ROOT, readText, readYaml } from './support.js';

interface Card {
  name: string;
  display: string;
  size: [number, number];
  query: string;
}
const spec = JSON.parse(readText('deploy/metabase/dashboards.json')) as {
  database: string;
  dashboards: { name: string; cards: Card[] }[];
};
const cards = spec.dashboards.flatMap((dashboard) => dashboard.cards);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

/** A stand-in for Metabase's HTTP API: what the loader asks, answered as Metabase 0.50 does, and recorded. */
function fakeMetabase(): {
  server: Server;
  calls: { method: string; path: string; body: unknown }[];
  url(): string;
} {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const state = {
    setUp: false,
    databases: [] as { id: number; name: string }[],
    dashboards: [] as { id: number; name: string }[],
  };
  let nextId = 1;
  const body = async (request: IncomingMessage) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  };
  const server = createServer(async (request, response) => {
    const path = request.url!.replace(/^\/api/, '');
    const sent = await body(request);
    calls.push({ method: request.method!, path, body: sent });
    const reply = (value: unknown, status = 200) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    const signedIn = request.headers['x-metabase-session'] === 'session-1';
    if (path === '/health') return reply({ status: 'ok' });
    if (path === '/session/properties')
      return reply({ 'setup-token': 'token-1', 'has-user-setup': state.setUp });
    if (path === '/setup') {
      state.setUp = true;
      return reply({ id: 'session-1' });
    }
    if (path === '/session') return reply({ id: 'session-1' });
    if (!signedIn) return reply({ message: 'unauthenticated' }, 401);
    if (path === '/database' && request.method === 'GET') return reply({ data: state.databases });
    if (path === '/database') {
      const created = { id: nextId++, name: String(sent!.name) };
      state.databases.push(created);
      return reply(created);
    }
    if (path === '/dashboard' && request.method === 'GET') return reply(state.dashboards);
    if (path === '/dashboard') {
      const created = { id: nextId++, name: String(sent!.name) };
      state.dashboards.push(created);
      return reply(created);
    }
    if (path === '/card') return reply({ id: nextId++ });
    if (/^\/dashboard\/\d+$/.test(path)) return reply({ id: Number(path.split('/')[2]) });
    return reply({ message: 'not found' }, 404);
  });
  return { server, calls, url: () => `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

describe('the starter Metabase dashboards', () => {
  it("ask the demo's analyst questions of the reporting views, each query valid on a migrated warehouse", async () => {
    expect(cards.map((card) => card.name)).toEqual([
      'Portfolio by account',
      'Occupancy by property (%)',
      'AR balance by aging bucket',
      'Vendor spend by month',
    ]);
    for (const card of cards) {
      expect(card.query, card.name).toMatch(/\breporting\.\w+/);
      await expect(sql.raw(card.query).execute(database.db), card.name).resolves.toBeDefined();
    }
  });

  it('are loaded by the compose profile bi, once Metabase has started', () => {
    const compose = readYaml<{
      services: Record<
        string,
        { profiles?: string[]; command?: string[]; volumes?: string[]; depends_on?: Record<string, unknown> }
      >;
    }>('docker-compose.yml');
    const loader = compose.services['metabase-dashboards'];
    expect(loader.profiles).toEqual(['bi']);
    expect(loader.volumes).toContain('./deploy/metabase:/etc/propsync-metabase:ro');
    expect(loader.command).toEqual(['node', '/etc/propsync-metabase/load-dashboards.mjs']);
    expect(Object.keys(loader.depends_on ?? {})).toEqual(['metabase']);
  });

  it('the loader sets Metabase up, adds the warehouse as the reader, and loads each dashboard once', async () => {
    const fake = fakeMetabase();
    await new Promise<void>((done) => fake.server.listen(0, '127.0.0.1', done));
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      METABASE_URL: fake.url(),
      METABASE_ADMIN_PASSWORD: 'admin-pw-1',
      PROPSYNC_READER_PASSWORD: 'reader-pw-1',
    };
    const load = () =>
      promisify(execFile)(process.execPath, [resolve(ROOT, 'deploy/metabase/load-dashboards.mjs')], { env });
    try {
      const first = await load();
      expect(first.stdout).toContain('first-run setup done');
      expect(first.stdout).toContain(`loaded dashboard "propsync: portfolio" with ${cards.length} questions`);
      const database = fake.calls.find((call) => call.method === 'POST' && call.path === '/database');
      expect(database?.body).toMatchObject({
        engine: 'postgres',
        details: { host: 'postgres', user: 'propsync_reader', password: 'reader-pw-1', dbname: 'propsync' },
      });
      expect(fake.calls.filter((call) => call.path === '/card')).toHaveLength(cards.length);
      const layout = fake.calls.find((call) => call.method === 'PUT')?.body as { dashcards: unknown[] };
      expect(layout.dashcards).toHaveLength(cards.length);

      const second = await load();
      expect(second.stdout).toContain('exists; left as it is');
      expect(fake.calls.filter((call) => call.path === '/card')).toHaveLength(cards.length);
    } finally {
      fake.server.close();
    }
  });
});
