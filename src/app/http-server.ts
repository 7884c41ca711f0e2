import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { Logger } from '../log/logger.js';
import { EXIT, ExitError } from './exit-codes.js';
import { databaseHealth } from './health.js';

/** What `/healthz` reports: 200 when `ok`, else 503, with the details as JSON (no secrets, hosts or users). */
export interface Health {
  ok: boolean;
  [detail: string]: unknown;
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests); the configuration's `metrics.port: 0` means no server at all. */
  port: number;
  health: () => Promise<Health>;
  /** Without it, `/metrics` is not served (`propsync console` alone has no runs to count). */
  metrics?: { render(): Promise<string>; contentType: string };
  /** Other pages (the console): true when it answered the request, false to leave it to the 404. */
  routes?: HttpRoutes;
}

/** Pages served beside /healthz and /metrics: whether the request was theirs (and answered). */
export type HttpRoutes = (request: IncomingMessage, response: ServerResponse) => boolean;

/** The scheduler's HTTP endpoint: `GET /healthz` and `GET /metrics` (Prometheus text format). */
export interface HttpEndpoint {
  url: string;
  close(): Promise<void>;
}

/** Starts the `/healthz` and `/metrics` server and resolves once it listens. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpEndpoint> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return reply(405, 'text/plain', 'method not allowed\n');
    if (path !== '/healthz' && path !== '/metrics' && options.routes?.(request, response)) return;
    if (path === '/healthz') {
      options
        .health()
        .then((health) => reply(health.ok ? 200 : 503, 'application/json', `${JSON.stringify(health)}\n`))
        // A failure's message may name hosts or users: the reply says only that the check failed.
        .catch(() =>
          reply(503, 'application/json', `${JSON.stringify({ ok: false, error: 'health check failed' })}\n`),
        );
      return;
    }
    const metrics = options.metrics;
    if (path === '/metrics' && metrics) {
      metrics
        .render()
        .then((text) => reply(200, metrics.contentType, text))
        .catch(() => reply(500, 'text/plain', 'could not collect the metrics; see /healthz\n'));
      return;
    }
    reply(404, 'text/plain', 'not found; try /healthz or /metrics\n');
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The `/healthz` and `/metrics` of a long-running process (scheduler, worker) on
 * `metrics.host:metrics.port`, or none when the port is 0: healthy while the warehouse answers
 * and the process is not stopping; `details` adds what the process reports of itself.
 */
export async function serveHealthAndMetrics<DB>(options: {
  metricsConfig: { host: string; port: number };
  metrics: HttpServerOptions['metrics'];
  db: Kysely<DB>;
  logger: Pick<Logger, 'info'>;
  stopping: () => boolean;
  details: () => Record<string, unknown>;
  /** The freshness of the process's accounts' streams: shown, never making the process unhealthy. */
  freshness?: () => Promise<readonly { account: string; stream: string; state: string }[]>;
  /** The console (src/console/), when it is served. */
  routes?: HttpRoutes;
}): Promise<HttpEndpoint | undefined> {
  const { metricsConfig, logger } = options;
  if (metricsConfig.port <= 0) return undefined;
  const http = await startHttpServer({
    host: metricsConfig.host,
    port: metricsConfig.port,
    metrics: options.metrics,
    routes: options.routes,
    health: async () => {
      const database = await databaseHealth(options.db);
      // A stale stream is for status --check and the alerts: a probe that restarted the process would not help.
      const freshness =
        database === 'ok' && options.freshness ? await options.freshness().catch(() => undefined) : undefined;
      return {
        ok: database === 'ok' && !options.stopping(),
        stopping: options.stopping(),
        database,
        ...options.details(),
        ...(freshness && { freshness }),
      };
    },
  }).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'EADDRINUSE') throw error;
    throw new ExitError(
      `the /healthz and /metrics port ${metricsConfig.port} (metrics.port) is in use on ${metricsConfig.host}, ` +
        'by another worker or scheduler on this host or another program: give each propsync process on a host ' +
        `its own port (PROPSYNC_METRICS_PORT=${metricsConfig.port + 1}), or PROPSYNC_METRICS_PORT=0 for none ` +
        '(see docs/operating.md#workers)',
      EXIT.usage,
    );
  });
  logger.info(
    { event: 'http_listening', url: http.url },
    `serving ${http.url}/healthz and ${http.url}/metrics`,
  );
  return http;
}
