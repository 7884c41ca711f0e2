import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpEndpoint } from '../../src/app/http-server.js';
import { consoleAccess } from '../../src/console/access.js';
import { openConsole, type OpenConsole } from '../../src/console/open-console.js';
import { createLogger } from '../../src/log/logger.js';
import { runPropsync } from '../support/cli.js';
import { launchBrowser, type TestBrowser, type WatchedPage } from './browser.js';
import { buildConsoleWorld, type ConsoleWorld } from './world.js';

const silent = createLogger({ level: 'silent' });

/** The part of a canvas the chart test reads (the tests compile without the DOM's types). */
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  };
}
const PAGES = ['/', '/runs', '/quarantine', '/verify', '/queue'];

describe('the web console in a real browser, over runs against the simulator', () => {
  let world: ConsoleWorld;
  let web: OpenConsole;
  let http: HttpEndpoint;
  let browser: TestBrowser;
  const watched: WatchedPage[] = [];

  async function visit(
    path: string,
    options: { width?: number; height?: number } = {},
  ): Promise<WatchedPage> {
    const tab = await browser.open(options);
    watched.push(tab);
    const reply = await tab.page.goto(`${http.url}${path}`);
    expect(reply?.status(), path).toBe(200);
    return tab;
  }

  async function serve(console: OpenConsole): Promise<HttpEndpoint> {
    return startHttpServer({
      host: '127.0.0.1',
      port: 0,
      routes: console.routes,
      health: async () => ({ ok: true }),
    });
  }

  beforeAll(async () => {
    world = await buildConsoleWorld();
    web = openConsole(world.h.config, { host: '127.0.0.1', logger: silent })!;
    http = await serve(web);
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await web?.close();
    await world?.close();
  });

  it('overview: one row per stream with its freshness, last run, calls against the budget and quarantine', async () => {
    // The calls a worker booked at the account's gate today: the budget's one count, which the
    // runs' own tallies (no gate in this harness) do not reach.
    const [account] = world.h.config.accounts;
    await sql`insert into source_budget (account_id, day, spent)
              values (${account.id}, (now() at time zone ${account.timeZone})::date, 4321)
              on conflict (account_id, day) do update set spent = 4321`.execute(world.h.warehouse.db);
    const { page } = await visit('/');
    const streams = await page.locator('table.streams tbody tr').evaluateAll((rows) =>
      rows.map((row) => ({
        stream: row.getAttribute('data-stream'),
        freshness: row.querySelector('td .badge')?.textContent,
        cells: [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim()),
      })),
    );
    const expected = world.h.config.accounts.length * Object.keys(world.h.config.streams).length;
    expect(streams).toHaveLength(expected);
    for (const row of streams) expect(['ok', 'warn', 'error', 'not scheduled']).toContain(row.freshness);
    expect(streams.some((row) => row.freshness === 'ok')).toBe(true);
    const totals = await page.locator('dl.totals').first().textContent();
    expect(totals).toMatch(/calls today\s*4,321 \/ /);
    expect(totals).toMatch(/rows? drifted/);
    const quarantine = Number(
      (await page.locator('dl.totals a[href^="/quarantine"]').first().textContent())!.replace(/,/g, ''),
    );
    expect(quarantine).toBeGreaterThan(0);
  });

  it('runs: filters by status and stream, and the chart draws a mark per run, coloured by outcome', async () => {
    const { page } = await visit('/runs');
    expect(await page.locator('table.runs tbody tr').count()).toBeGreaterThanOrEqual(5);
    await page.waitForSelector('#runs-chart[data-drawn]');
    expect(await page.locator('#runs-chart canvas').count()).toBe(2);
    // The duration chart's canvas holds marks in the succeeded colour (#2e7d32).
    const marks = await page
      .locator('#runs-chart canvas')
      .first()
      .evaluate((element) => {
        const canvas = element as unknown as CanvasLike;
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < pixels.length; i += 4)
          if (
            Math.abs(pixels[i] - 0x2e) < 12 &&
            Math.abs(pixels[i + 1] - 0x7d) < 12 &&
            Math.abs(pixels[i + 2] - 0x32) < 12
          )
            n++;
        return n;
      });
    expect(marks).toBeGreaterThan(20);

    const failedStatus = (
      await world.h.warehouse.db
        .selectFrom('sync_runs')
        .select('status')
        .where('run_id', '=', world.failedRunId)
        .executeTakeFirstOrThrow()
    ).status;
    await page.selectOption('select[name=status]', failedStatus);
    await page.click('form.filters button');
    await page.waitForURL(/status=/);
    const statuses = await page.locator('table.runs tbody tr td .badge').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([failedStatus]));
    expect(await page.locator(`a[href$="/${world.failedRunId}"]`).count()).toBe(1);

    const stream = Object.keys(world.h.config.streams)[0];
    await page.goto(`${http.url}/runs?stream=${stream}&kind=sync`);
    const rows = await page
      .locator('table.runs tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
    expect(rows.length).toBeGreaterThan(0);
    for (const cells of rows) {
      expect(cells[2]).toBe('sync');
      expect(cells[3]).toContain(stream);
    }
  });

  it("a run's page shows its failed unit on the timeline and with its error", async () => {
    const { page } = await visit(`/runs/default/${world.failedRunId}`);
    const unit = world.failedUnit.workUnitId;
    expect(await page.locator(`svg.timeline rect[data-unit="${unit}"]`).getAttribute('class')).toContain(
      'bad',
    );
    expect(await page.locator('svg.timeline rect.unit').count()).toBeGreaterThan(3);
    const failed = await page.locator(`.failed-units li[data-unit="${unit}"]`).textContent();
    expect(failed).toContain(world.failedUnit.error.split('\n')[0].slice(0, 60));
    expect(await page.locator(`table.units tr.failed[data-unit="${unit}"]`).count()).toBe(1);
  });

  it('quarantine: entries grouped by field, each with its record, property, page, reason and replay command', async () => {
    const { page } = await visit('/quarantine');
    const groups = await page.locator('table.groups tbody tr').count();
    expect(groups).toBeGreaterThan(0);
    const first = page.locator('table.entries tbody tr').first();
    const cells = await first.locator('td').allTextContents();
    expect(cells[3]).not.toBe('');
    expect(cells[4]).toMatch(/^\d+$/);
    expect(cells[6]).toMatch(/^\d+$/);
    expect(cells[10]).toMatch(/^propsync sync --stream \S+ --property \d+ --full$/);
    // The field filter narrows the list to that field.
    const field = (await page.locator('table.groups tbody tr td a').first().textContent())!;
    await page.click('table.groups tbody tr td a >> nth=0');
    await page.waitForURL(/field=/);
    const fields = await page.locator('table.entries tbody tr td:nth-child(8)').allTextContents();
    expect(fields.length).toBeGreaterThan(0);
    expect(new Set(fields)).toEqual(new Set([field]));
  });

  it('verify: the pass and the key it found drifted', async () => {
    const { page } = await visit('/verify');
    const pass = await page.locator('article.pass').first().textContent();
    expect(pass).toMatch(/1 row drifted/);
    expect(pass).toMatch(/differing/);
    expect(await page.locator('article.pass dl.keys code').count()).toBeGreaterThan(0);
  });

  it('queue: the waiting jobs of the account', async () => {
    const { page } = await visit('/queue');
    const cells = await page.locator('table.queues tbody tr[data-account="default"] td').allTextContents();
    expect(Number(cells[2])).toBeGreaterThan(0);
  });

  it("fits a phone's width: the page itself never scrolls sideways", async () => {
    for (const path of [...PAGES, `/runs/default/${world.failedRunId}`]) {
      const { page } = await visit(path, { width: 390, height: 844 });
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, path).toBeLessThanOrEqual(1);
    }
  });

  it("shows each account apart, at a phone's width too, each filtered to its own runs", async () => {
    const [first] = world.h.config.accounts;
    const second = { ...first, id: 'south', name: 'South Portfolio' };
    expect(await world.h.sync({}, { accountId: second.id })).toMatchObject({ status: 'succeeded' });
    const both = openConsole(world.h.config, {
      host: '127.0.0.1',
      logger: silent,
      accounts: [first, second],
    })!;
    const server = await serve(both);
    try {
      const tab = await browser.open({ width: 390, height: 844 });
      watched.push(tab);
      expect((await tab.page.goto(`${server.url}/`))?.status()).toBe(200);
      const sections = await tab.page
        .locator('section.account')
        .evaluateAll((found) => found.map((section) => section.getAttribute('data-account')));
      expect(sections).toEqual([first.id, second.id]);
      expect(await tab.page.locator('section.account[data-account="south"] h2').textContent()).toBe(
        'South Portfolio (south)',
      );
      const streams = Object.keys(world.h.config.streams).length;
      expect(
        await tab.page.locator('section.account[data-account="south"] table.streams tbody tr').count(),
      ).toBe(streams);
      expect(
        await tab.page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
      ).toBeLessThanOrEqual(1);

      expect((await tab.page.goto(`${server.url}/runs?account=south`))?.status()).toBe(200);
      const accounts = await tab.page.locator('table.runs tbody tr td:nth-child(2)').allTextContents();
      expect(accounts).toEqual(['south']);
    } finally {
      await server.close();
      await both.close();
    }
  });

  it('no page logged an error or asked anything of another machine', () => {
    expect(watched.length).toBeGreaterThanOrEqual(PAGES.length);
    expect(watched.flatMap((tab) => tab.errors)).toEqual([]);
    expect(watched.flatMap((tab) => tab.offMachine)).toEqual([]);
  });

  it('serves a strict policy, and no inline script or style in any page', async () => {
    for (const path of [...PAGES, `/runs/default/${world.failedRunId}`]) {
      const reply = await fetch(`${http.url}${path}`);
      expect(reply.headers.get('content-security-policy')).toMatch(
        /default-src 'none'; script-src 'self'; style-src 'self'/,
      );
      const text = await reply.text();
      expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(text).not.toMatch(/\sstyle=|<style/);
      expect(text).not.toContain(
        world.h.config.accounts[0].source.auth.type === 'basic'
          ? world.h.config.accounts[0].source.auth.password!
          : 'x',
      );
    }
  });

  it('with console.auth, a request without the credential is refused, in the browser too', async () => {
    const env = { CONSOLE_TEST_PASSWORD: 'open-sesame-42x', CONSOLE_TEST_TOKEN: 'tok-0123456789abcdef' };
    const basic = openConsole(
      {
        ...world.h.config,
        console: {
          enabled: true,
          auth: { type: 'basic', username: 'ops', passwordEnv: 'CONSOLE_TEST_PASSWORD' },
        },
      },
      { host: '127.0.0.1', logger: silent, env },
    )!;
    const bearer = openConsole(
      {
        ...world.h.config,
        console: { enabled: true, auth: { type: 'bearer', tokenEnv: 'CONSOLE_TEST_TOKEN' } },
      },
      { host: '127.0.0.1', logger: silent, env },
    )!;
    const [basicHttp, bearerHttp] = [await serve(basic), await serve(bearer)];
    try {
      const open = await fetch(`${basicHttp.url}/runs`);
      expect(open.status).toBe(401);
      expect(open.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(await open.text()).not.toMatch(/<table/);
      const wrong = await fetch(`${basicHttp.url}/`, {
        headers: { authorization: `Basic ${btoa('ops:guess-guess-guess')}` },
      });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${basicHttp.url}/`, {
        headers: { authorization: `Basic ${btoa(`ops:${env.CONSOLE_TEST_PASSWORD}`)}` },
      });
      expect(right.status).toBe(200);
      expect((await fetch(`${basicHttp.url}/assets/console.js`)).status).toBe(401);
      expect((await fetch(`${basicHttp.url}/healthz`)).status).toBe(200);

      expect((await fetch(`${bearerHttp.url}/queue`)).status).toBe(401);
      expect(
        (await fetch(`${bearerHttp.url}/queue`, { headers: { authorization: 'Bearer nope' } })).status,
      ).toBe(401);
      const token = await fetch(`${bearerHttp.url}/queue`, {
        headers: { authorization: `Bearer ${env.CONSOLE_TEST_TOKEN}` },
      });
      expect(token.status).toBe(200);

      // In the browser: Basic's challenge ends in the browser's refusal (headless asks no one), the bearer's
      // 401 page shows nothing of the console.
      const tab = await browser.open();
      const basicRefusal = await tab.page.goto(`${basicHttp.url}/`).then(
        (reply) => `status ${reply?.status()}`,
        (error: Error) => error.message,
      );
      expect(basicRefusal).toMatch(/ERR_INVALID_AUTH_CREDENTIALS|status 401/);
      const other = await browser.open();
      const refused = await other.page.goto(`${bearerHttp.url}/`);
      expect(refused?.status()).toBe(401);
      expect(await other.page.locator('table').count()).toBe(0);
      expect(await other.page.content()).toContain('the console needs its credential');
    } finally {
      await basicHttp.close();
      await bearerHttp.close();
      await basic.close();
      await bearer.close();
    }
  });

  it('refuses to serve openly on another address than this machine, and a short or missing secret', async () => {
    const settings = { enabled: true };
    expect(() => consoleAccess(settings, '0.0.0.0')).toThrow(
      /console: would serve the console without auth on 0\.0\.0\.0.*set console\.auth/,
    );
    expect(() => consoleAccess(settings, '::1')).not.toThrow();
    const basic = {
      enabled: true,
      auth: { type: 'basic' as const, username: 'ops', passwordEnv: 'NOPE_UNSET' },
    };
    expect(() => consoleAccess(basic, '0.0.0.0', {})).toThrow(
      /console\.auth\.passwordEnv: names NOPE_UNSET, which is not set/,
    );
    expect(() => consoleAccess(basic, '0.0.0.0', { NOPE_UNSET: 'short' })).toThrow(
      /fewer than 12 characters/,
    );

    const result = await runPropsync(['console', '--host', '0.0.0.0', '--port', '9'], {
      env: { DATABASE_URL: world.h.config.database.url },
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /invalid configuration\n\s+console: would serve the console without auth on 0\.0\.0\.0/,
    );
  });
});
