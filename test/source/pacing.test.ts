import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer, type PacerTicket } from '../../src/source/pacing.js';
import { parseRateLimitHeaders } from '../../src/source/rate-headers.js';

/**
 * A fixed-window limiter like the source's (a window opens at the first call after the
 * previous one closed; the reset is announced in whole seconds, rounded up), answering with
 * the same headers.
 */
class FakeSource {
  private start = 0;
  private count = 0;
  throttled = 0;
  readonly starts: number[] = [];
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}
  call(at: number): { limit: string; remaining: string; reset: string } {
    if (this.count === 0 || at >= this.start + this.windowMs) {
      this.start = at;
      this.count = 0;
    }
    if (this.count >= this.limit) this.throttled += 1;
    else {
      this.count += 1;
      this.starts.push(at);
    }
    return {
      limit: `${this.limit}/${this.windowMs / 1000}s`,
      remaining: String(this.limit - this.count),
      reset: String(Math.ceil((this.start + this.windowMs - at) / 1000)),
    };
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Runs `calls` calls through the pacer, `parallel` at a time, each taking `latencyMs`. */
async function run(
  pacer: Pacer,
  source: FakeSource,
  calls: number,
  parallel: number,
  latencyMs: number,
  lane = 'getLeases',
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next += 1;
      const ticket = await pacer.acquire(lane);
      const headers = source.call(Date.now());
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      pacer.observe(ticket, parseRateLimitHeaders(headers.limit, headers.remaining, headers.reset));
      pacer.release(ticket);
    }
  };
  const done = Promise.all(Array.from({ length: parallel }, worker));
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) await vi.advanceTimersByTimeAsync(10);
  await done;
}

describe('Pacer', () => {
  it('never passes the limit, keeps the reserve, and spreads calls over the window', async () => {
    const pacer = new Pacer({ reserve: 2, minIntervalMs: 0, concurrency: 4, now: () => Date.now() });
    const source = new FakeSource(20, 2_000);
    await run(pacer, source, 150, 4, 30);
    expect(source.throttled).toBe(0);
    // In any 2 s window, at most limit - reserve calls... plus the lone call that learns a reset.
    for (let i = 0; i < source.starts.length; i++) {
      const inWindow = source.starts.filter(
        (at) => at >= source.starts[i] && at < source.starts[i] + 2_000,
      ).length;
      expect(inWindow).toBeLessThanOrEqual(20);
    }
    // Spread, not bursts: no ten calls within 300 ms.
    for (let i = 0; i + 9 < source.starts.length; i++)
      expect(source.starts[i + 9] - source.starts[i]).toBeGreaterThanOrEqual(300);
    // And not too slow: 150 calls at 16 to 18 per 2 s window (limit 20, reserve 2).
    expect(source.starts).toHaveLength(150);
    expect(Date.now()).toBeGreaterThan((150 / 18 - 1) * 2_000);
    expect(Date.now()).toBeLessThan((150 / 16) * 2_000);
  });

  it('spreads short windows, and treats a far reset as a quota until its last stretch', async () => {
    const pacer = new Pacer({ reserve: 2, minIntervalMs: 0, concurrency: 1, now: () => Date.now() });
    const starts: number[] = [];
    const call = async (limit: string, remaining: string, reset: string) => {
      const ticket = await pacer.acquire('getLeases');
      starts.push(Date.now());
      pacer.observe(ticket, parseRateLimitHeaders(limit, remaining, reset));
      pacer.release(ticket);
    };
    const drive = async (calls: (() => Promise<void>)[]) => {
      const all = Promise.all(calls.map((c) => c()));
      for (let i = 0; i < 1_000; i++) await vi.advanceTimersByTimeAsync(100);
      await all;
    };
    // A fresh day and hour: no spreading, the calls go at once.
    await drive(
      Array.from(
        { length: 10 },
        (_, i) => () => call('15000/day;1000/hour', `${14999 - i};${999 - i}`, `86400;3600`),
      ),
    );
    expect(starts.at(-1)! - starts[0]).toBe(0);
    // The same hour in its last 10 minutes, 102 calls left: 100 spread over 600 s, 6 s apart.
    starts.length = 0;
    const base = Date.now();
    await drive(
      Array.from(
        { length: 3 },
        () => () => call('1000/hour', '102', String(600 - Math.round((Date.now() - base) / 1000))),
      ),
    );
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(5_900);
    expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(5_900);
    // A minute window is always spread: 149 left, 147 over 60 s.
    const spread = new Pacer({
      reserve: 2,
      minIntervalMs: 0,
      concurrency: 1,
      now: () => Date.now(),
      spreadWithinMs: 600_000,
    });
    const first = await spread.acquire('getInvoices');
    spread.observe(first, parseRateLimitHeaders('150/minute', '149', '60'));
    spread.release(first);
    const waited = spread.acquire('getInvoices');
    await vi.advanceTimersByTimeAsync(400);
    expect(spread.view('getInvoices').queued).toBe(1);
    await vi.advanceTimersByTimeAsync(20);
    expect((await waited).startedAt - first.startedAt).toBe(Math.ceil(60_000 / 147));
  });

  it('keeps a minimum interval between starts, across lanes', async () => {
    const pacer = new Pacer({ reserve: 0, minIntervalMs: 100, concurrency: 8, now: () => Date.now() });
    const starts: number[] = [];
    const tickets = await Promise.all(
      Array.from({ length: 5 }, (_, i) => {
        const waiting = pacer.acquire(i % 2 ? 'getLeases' : 'getInvoices').then((ticket) => {
          starts.push(Date.now());
          return ticket;
        });
        return waiting;
      }).map(async (p) => {
        await vi.advanceTimersByTimeAsync(1_000);
        return p;
      }),
    );
    expect(tickets).toHaveLength(5);
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(100);
  });

  it('holds calls beyond the concurrency until one ends', async () => {
    const pacer = new Pacer({ reserve: 0, minIntervalMs: 0, concurrency: 2, now: () => Date.now() });
    const first = await pacer.acquire('getLeases');
    await pacer.acquire('getLeases');
    let third: PacerTicket | undefined;
    void pacer.acquire('getInvoices').then((ticket) => (third = ticket));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(third).toBeUndefined();
    pacer.release(first);
    await vi.advanceTimersByTimeAsync(0);
    expect(third?.lane).toBe('getInvoices');
  });

  it('pauses a lane for Retry-After, not the others', async () => {
    const pacer = new Pacer({ reserve: 0, minIntervalMs: 0, concurrency: 4, now: () => Date.now() });
    pacer.pause('getLeases', 2_000);
    const started: string[] = [];
    void pacer.acquire('getLeases').then(() => started.push(`leases@${Date.now()}`));
    void pacer.acquire('getInvoices').then(() => started.push(`invoices@${Date.now()}`));
    await vi.advanceTimersByTimeAsync(3_000);
    expect(started).toEqual(['invoices@0', 'leases@2000']);
  });

  it('waits for the reset when a window is down to its reserve, then sends one call alone', async () => {
    const pacer = new Pacer({ reserve: 2, minIntervalMs: 0, concurrency: 4, now: () => Date.now() });
    const first = await pacer.acquire('getLeases');
    pacer.observe(first, parseRateLimitHeaders('10/minute', '2', '30'));
    pacer.release(first);
    expect(pacer.view('getLeases').remaining).toBe(2);
    const starts: number[] = [];
    const a = pacer.acquire('getLeases').then((t) => (starts.push(Date.now()), t));
    const b = pacer.acquire('getLeases').then((t) => (starts.push(Date.now()), t));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(starts).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(starts).toHaveLength(1);
    expect(starts[0]).toBeGreaterThanOrEqual(30_000);
    // The second waits for the first's reply, which shows the new window.
    const probe = await a;
    pacer.observe(probe, parseRateLimitHeaders('10/minute', '9', '60'));
    pacer.release(probe);
    await vi.advanceTimersByTimeAsync(10_000);
    await b;
    expect(starts).toHaveLength(2);
  });

  it('waits a second past the announced reset when nothing is left at all', async () => {
    const pacer = new Pacer({ reserve: 0, minIntervalMs: 0, concurrency: 4, now: () => Date.now() });
    const first = await pacer.acquire('getLeases');
    pacer.observe(first, parseRateLimitHeaders('10/minute', '0', '5'));
    pacer.release(first);
    let startedAt: number | undefined;
    void pacer.acquire('getLeases').then(() => (startedAt = Date.now()));
    await vi.advanceTimersByTimeAsync(5_500);
    expect(startedAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(startedAt).toBeGreaterThanOrEqual(6_000);
  });

  it('gives up a queued call when its signal aborts', async () => {
    const pacer = new Pacer({ reserve: 0, minIntervalMs: 10_000, concurrency: 1, now: () => Date.now() });
    const held = await pacer.acquire('getLeases');
    const controller = new AbortController();
    const waiting = pacer.acquire('getLeases', controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(pacer.view('getLeases').queued).toBe(0);
    pacer.release(held);
  });
});
