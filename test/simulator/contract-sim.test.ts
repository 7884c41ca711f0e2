/** The simulator as a whole: the seeded generator behind it, advance, stats, determinism, the CLI. */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type AdvanceSummary, type Simulator } from '../../src/simulator/index.js';
import { denverToday } from '../../src/simulator/server/clock.js';
import { call, leasesOf, PASSWORD, USER, type CallOptions } from './support.js';
import { PROPSYNC_BIN } from '../support/cli.js';

const TODAY = '2024-06-15';

function start(
  options: { seed?: number; today?: string; faults?: string } = {},
): Promise<Simulator<AdvanceSummary>> {
  return startSimulator({
    username: USER,
    password: PASSWORD,
    rateLimit: 'off',
    scale: 'small',
    seed: 5,
    today: TODAY,
    ...options,
  });
}

/** A spread of calls touching every method, both versions and both formats. */
function probeCalls(sim: Simulator): CallOptions[] {
  const propertyId = String(sim.dataset.properties[0]!.PropertyID);
  return [
    { method: 'getProperties', params: {} },
    {
      method: 'getLeases',
      version: 'r2',
      params: {
        propertyId,
        leaseStatusTypeIds: '1,2,3,4,5,6',
        includeArTransactions: '1',
        includeLeaseHistory: '1',
        includeOtherIncomeLeases: '1',
      },
    },
    {
      method: 'getLeases',
      version: 'r1',
      format: 'xml',
      params: { propertyId, includeArTransactions: '1' },
      query: { per_page: 50, page_no: 2 },
    },
    {
      method: 'getInvoices',
      version: 'r2',
      params: { includeExported: '1', customerRefunds: '1', includeVoidedPayments: '1' },
      query: { per_page: 1000 },
    },
    {
      method: 'getInvoices',
      version: 'r1',
      format: 'xml',
      params: { propertyIds: propertyId },
      query: { per_page: 100 },
    },
  ];
}

async function bodies(sim: Simulator): Promise<string[]> {
  const out: string[] = [];
  for (const options of probeCalls(sim)) {
    const reply = await call(sim, options);
    expect(reply.status).toBe(200);
    out.push(reply.text);
  }
  return out;
}

describe('startSimulator with the seeded data set', () => {
  let a: Simulator<AdvanceSummary>;
  let b: Simulator<AdvanceSummary>;
  beforeAll(async () => {
    a = await start();
    b = await start();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('serves a generated portfolio in the contract shape', async () => {
    expect(a.dataset.today).toBe(TODAY);
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const propertyId = String(a.dataset.properties[0]!.PropertyID);
    const reply = await call(a, {
      method: 'getLeases',
      version: 'r2',
      params: { propertyId, includeArTransactions: '1' },
    });
    const leases = leasesOf(reply);
    expect(leases.length).toBeGreaterThan(5);
    expect(new Set(leases.map((lease) => lease.leaseStatusTypeId))).toEqual(new Set(['4', '5']));
    expect(reply.text).not.toMatch(/"_[a-zA-Z]/);
    expect(
      new Date(reply.headers.get('date')!).toLocaleDateString('en-CA', { timeZone: 'America/Denver' }),
    ).toBe(TODAY);
  });

  it('renders generated leases in both versions and invoices in both versions', async () => {
    const propertyId = String(a.dataset.properties[0]!.PropertyID);
    const params = {
      propertyId,
      leaseStatusTypeIds: '1,2,3,4,5,6',
      includeOtherIncomeLeases: '1',
      includeLeaseHistory: '1',
      includeArTransactions: '1',
    };
    const r1 = leasesOf(await call(a, { method: 'getLeases', version: 'r1', params }));
    const r2 = leasesOf(await call(a, { method: 'getLeases', version: 'r2', params }));
    expect(r1.map((lease) => lease.id)).toEqual(r2.map((lease) => lease.id));
    expect(r1.some((lease) => lease.leaseActivities)).toBe(true);
    expect(r1.every((lease) => !lease.leaseIntervals && !lease.unitSpaces && !lease.moveOutReason)).toBe(
      true,
    );
    expect(r2.some((lease) => lease.moveOutReason)).toBe(true);
    expect(r2.every((lease) => lease.leaseIntervals && lease.unitSpaces && !lease.leaseActivities)).toBe(
      true,
    );
    const invoices = await call(a, {
      method: 'getInvoices',
      version: 'r1',
      params: { includeExported: '1', customerRefunds: '1' },
      query: { per_page: 1000 },
    });
    expect(invoices.text).toContain('"lineitem"');
    expect(invoices.text).not.toContain('"lineItem"');
    expect(invoices.text).toMatch(/"amount":"\$-?\d/);
    for (const reply of [invoices, await call(a, { method: 'getLeases', version: 'r2', params })]) {
      expect(reply.text).not.toMatch(/\[\]|\{\}|null|"_[a-zA-Z]/);
    }
  });

  it('same seed and same today: byte-identical bodies', async () => {
    expect(await bodies(b)).toEqual(await bodies(a));
  });

  it('another seed gives other data', async () => {
    const other = await start({ seed: 6 });
    try {
      expect((await bodies(other))[1]).not.toBe((await bodies(a))[1]);
    } finally {
      await other.close();
    }
  });

  it('advance moves the clock, changes the data and is deterministic, in-process and over HTTP', async () => {
    const before = await bodies(a);
    const summary = a.advance(3);
    expect(summary).toMatchObject({ from: TODAY, to: '2024-06-18', days: 3 });
    expect(a.dataset.today).toBe('2024-06-18');
    const res = await fetch(`${b.url}/_sim/advance`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"days": 3}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(summary)));
    const after = await bodies(a);
    expect(after).not.toEqual(before);
    expect(await bodies(b)).toEqual(after);
    const reply = await call(a, { method: 'getStatus', params: {} });
    expect(
      new Date(reply.headers.get('date')!).toLocaleDateString('en-CA', { timeZone: 'America/Denver' }),
    ).toBe('2024-06-18');
  });

  it('POST /_sim/advance rejects a bad body', async () => {
    for (const body of ['{"days": -1}', '{"days": 1.5}', '{"days": "2"}', 'not json']) {
      const res = await fetch(`${a.url}/_sim/advance`, { method: 'POST', body });
      expect(res.status).toBe(400);
    }
    expect((await fetch(`${a.url}/_sim/unknown`)).status).toBe(404);
  });

  it('stats count calls by method and HTTP status, in-process and over HTTP', async () => {
    const fresh = await start();
    try {
      const propertyId = String(fresh.dataset.properties[0]!.PropertyID);
      await call(fresh, { method: 'getLeases', version: 'r2', params: { propertyId } });
      await call(fresh, { method: 'getLeases', version: 'r2', params: { propertyId } });
      await call(fresh, { method: 'getLeases', version: 'r2', params: { propertyId }, auth: null });
      await call(fresh, { method: 'getInvoices', version: 'r2', params: {} });
      fresh.setFaults('503x1');
      await call(fresh, { method: 'getInvoices', version: 'r2', params: {} });
      const expected = {
        total: 5,
        calls: { getInvoices: { '200': 1, '503': 1 }, getLeases: { '200': 2, '401': 1 } },
        faults: { '503': 1 },
      };
      expect(fresh.stats()).toEqual(expected);
      const res = await fetch(`${fresh.url}/_sim/stats`);
      expect(await res.json()).toEqual(expected);
    } finally {
      await fresh.close();
    }
  });

  it('defaults today to the date in America/Denver', async () => {
    const sim = await startSimulator({ username: USER, password: PASSWORD, rateLimit: 'off', seed: 2 });
    try {
      expect([denverToday(new Date(Date.now() - 60_000)), denverToday()]).toContain(sim.dataset.today);
    } finally {
      await sim.close();
    }
  });
});

describe('propsync simulate', () => {
  function runCli(
    args: string[],
    env: NodeJS.ProcessEnv = process.env,
  ): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, [PROPSYNC_BIN, 'simulate', ...args], {
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, stdout: () => out, stderr: () => err, exited };
  }

  async function listening(run: ReturnType<typeof runCli>): Promise<string> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const match = /^listening on (http:\/\/127\.0\.0\.1:(\d+))\n/.exec(run.stdout());
      if (match) return match[1]!;
      if (run.child.exitCode !== null) throw new Error(`simulate exited early: ${run.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('simulate did not print its listening line');
  }

  it('prints exactly the listening line, answers, never prints the password, exits 0 on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const run = runCli([
        '--port',
        '0',
        '--seed',
        '3',
        '--today',
        TODAY,
        '--username',
        'cli-user',
        '--password',
        'cli-secret-pw',
        '--rate-limit',
        '20/2s,500/hour',
      ]);
      try {
        const url = await listening(run);
        expect(run.stdout()).toBe(`listening on ${url}\n`);
        const reply = await call(
          { url },
          { method: 'getStatus', params: {}, auth: { username: 'cli-user', password: 'cli-secret-pw' } },
        );
        expect(reply.body.response.result.status).toBe('Success');
        expect(reply.headers.get('x-ratelimit-limit')).toBe('500/hour;20/2s');
        run.child.kill(signal);
        expect(await run.exited).toBe(0);
        expect(run.stdout() + run.stderr()).not.toContain('cli-secret-pw');
      } finally {
        if (run.child.exitCode === null) run.child.kill('SIGKILL');
      }
    }
  }, 150_000);

  it('takes faults from --faults', async () => {
    const run = runCli([
      '--port',
      '0',
      '--today',
      TODAY,
      '--username',
      'u',
      '--password',
      'pw-123',
      '--faults',
      '500x1',
    ]);
    try {
      const url = await listening(run);
      const auth = { username: 'u', password: 'pw-123' };
      expect((await call({ url }, { method: 'getStatus', params: {}, auth })).status).toBe(500);
      expect((await call({ url }, { method: 'getStatus', params: {}, auth })).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 90_000);

  it('serves the gateway alone with --api-key and --org, never printing the key', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('PROPSYNC_API_')),
    );
    const run = runCli(
      ['--port', '0', '--today', TODAY, '--api-key', 'cli-gateway-key-42', '--org', 'cli-org'],
      env,
    );
    try {
      const url = await listening(run);
      const gateway = { org: 'cli-org', apiKey: 'cli-gateway-key-42' };
      const reply = await call({ url }, { method: 'getStatus', params: {}, gateway });
      expect(reply.body.response.result.status).toBe('Success');
      expect(
        (await call({ url }, { method: 'getStatus', params: {}, gateway: { ...gateway, org: 'other' } }))
          .status,
      ).toBe(401);
      // No Basic credential was given: Basic auth is not served.
      expect(
        (
          await call(
            { url },
            {
              method: 'getStatus',
              params: {},
              auth: { username: 'propsync', password: 'propsync-simulator' },
            },
          )
        ).status,
      ).toBe(404);
      expect(run.stderr()).toContain('gateway org cli-org');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    expect(run.stdout() + run.stderr()).not.toContain('cli-gateway-key-42');
  }, 90_000);

  it('serves Basic auth and the gateway together when both are given', async () => {
    const run = runCli([
      '--port',
      '0',
      '--today',
      TODAY,
      '--username',
      'u',
      '--password',
      'pw-123',
      '--api-key',
      'both-key-99',
      '--org',
      'both-org',
    ]);
    try {
      const url = await listening(run);
      const basic = await call(
        { url },
        { method: 'getStatus', params: {}, auth: { username: 'u', password: 'pw-123' } },
      );
      const gateway = await call(
        { url },
        { method: 'getStatus', params: {}, gateway: { org: 'both-org', apiKey: 'both-key-99' } },
      );
      expect(basic.status).toBe(200);
      expect(gateway.body).toEqual(basic.body);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 90_000);

  it('refuses --api-key without --org with exit 2', async () => {
    const run = runCli(['--port', '0', '--api-key', 'lonely-key']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('--api-key and --org go together');
    expect(run.stderr()).not.toContain('lonely-key');
  }, 60_000);

  it('refuses a bad --faults or --rate-limit with exit 2 and a message', async () => {
    const faults = runCli(['--port', '0', '--faults', 'explode@1']);
    expect(await faults.exited).toBe(2);
    expect(faults.stderr()).toContain("invalid fault 'explode@1'");
    const limits = runCli(['--port', '0', '--rate-limit', '5/fortnight']);
    expect(await limits.exited).toBe(2);
    expect(limits.stderr()).toContain('invalid rate limit');
  }, 90_000);

  it('documents the options, the fault grammar and examples in --help', async () => {
    const run = runCli(['--help']);
    expect(await run.exited).toBe(0);
    const help = run.stdout();
    for (const text of [
      '--port',
      '--scale',
      '--seed',
      '--today',
      '--username',
      '--password',
      '--api-key',
      '--org',
      '/ext/orgs/ORG/v1/<area>',
      '--rate-limit',
      '--faults',
      'badrecord',
      '500x2',
      'Examples:',
      'default: "8080"',
    ]) {
      expect(help).toContain(text);
    }
  }, 60_000);
});
