import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeDatabaseError } from '../app/health.js';
import type { Logger } from '../log/logger.js';
import type { ConsoleAccess } from './access.js';
import { loadAssets } from './assets.js';
import type { ConsoleContext } from './context.js';
import { html, type Html } from './html.js';
import { page } from './layout.js';
import { overviewPage } from './page-overview.js';
import { quarantinePage } from './page-quarantine.js';
import { queuePage } from './page-queue.js';
import { runPage } from './page-run.js';
import { runsChartData, runsPage } from './page-runs.js';
import { verifyPage } from './page-verify.js';
import { messageOf } from '../log/errors.js';

/**
 * What every console reply carries: a policy that lets the page load its own files only (no inline
 * script or style, no other origin, no frame), and no caching of what may hold residents' data.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

type Route = (
  context: ConsoleContext,
  params: URLSearchParams,
  match: RegExpExecArray,
) => Promise<Html | null>;

/** The pages, by path. */
const ROUTES: [RegExp, Route][] = [
  [/^\/$/, (context) => overviewPage(context)],
  [/^\/runs$/, (context, params) => runsPage(context, params)],
  [
    /^\/runs\/([^/]+)\/(\d{1,15})$/,
    (context, _, match) => runPage(context, decodeURIComponent(match[1]), Number(match[2])),
  ],
  [/^\/quarantine$/, (context, params) => quarantinePage(context, params)],
  [/^\/verify$/, (context, params) => verifyPage(context, params)],
  [/^\/queue$/, (context) => queuePage(context)],
];

/**
 * The console as routes of the /healthz and /metrics server: true for a request it answered
 * (a page, its chart data, an asset, or the refusal of a request without the credential).
 */
export function consoleRoutes(
  context: ConsoleContext,
  access: ConsoleAccess,
  logger: Pick<Logger, 'warn'>,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const assets = loadAssets();
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    const asset = assets.get(path);
    const route = ROUTES.find(([pattern]) => pattern.test(path));
    if (!asset && !route && path !== '/runs/chart.json') return false;
    const send = (
      status: number,
      type: string,
      body: string | Buffer,
      extra: Record<string, string> = {},
    ) => {
      response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...extra });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (!access.allows(request)) {
      send(401, 'text/plain; charset=utf-8', 'the console needs its credential (console.auth)\n', {
        'www-authenticate': access.challenge ?? '',
      });
      return true;
    }
    if (asset) {
      send(200, asset.type, asset.body);
      return true;
    }
    const rendered: Promise<{ status: number; type: string; body: string }> =
      path === '/runs/chart.json'
        ? runsChartData(context, url.searchParams).then((data) => ({
            status: 200,
            type: 'application/json',
            body: JSON.stringify(data),
          }))
        : route![1](context, url.searchParams, route![0].exec(path)!).then((html) =>
            html
              ? { status: 200, type: 'text/html; charset=utf-8', body: html.text }
              : { status: 404, type: 'text/html; charset=utf-8', body: notFound(path).text },
          );
    rendered
      .then(({ status, type, body }) => send(status, type, body))
      .catch((error: unknown) => {
        // The driver's message may name hosts or users: the page says what is wrong in words.
        const fromDatabase = typeof (error as { code?: unknown } | null)?.code === 'string';
        const problem = fromDatabase ? describeDatabaseError(error) : 'the page could not be drawn';
        const detail = fromDatabase ? problem : messageOf(error);
        logger.warn(
          { event: 'console_page_failed', path, problem: detail },
          `console: ${path} failed: ${detail}`,
        );
        send(503, 'text/html; charset=utf-8', failed(path, problem).text);
      });
    return true;
  };
}

function notFound(path: string): Html {
  return page({
    path,
    title: 'Not found',
    body: html`<p class="empty">
      Nothing here: the run or page does not exist in the accounts this console shows.
    </p>`,
  });
}

function failed(path: string, problem: string): Html {
  return page({
    path,
    title: 'Could not read the warehouse',
    body: html`<p class="error">${problem}; see /healthz.</p>`,
  });
}
