import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SimDataset } from '../data/model.js';
import { callerOf, type Credentials } from './auth.js';
import { simulatedHttpDate } from './clock.js';
import type { DatasetIndex } from './dataset-index.js';
import { ApiError, ERROR_CODE } from './errors.js';
import { malformBody, truncateBody, type CallFault, type FaultInjector } from './faults.js';
import { CONTENT_TYPE, serializeEnvelope, type WireFormat } from './formats.js';
import { runMethod } from './methods.js';
import { bodyPagination, linkHeader, pageLinks, parsePaging } from './paging.js';
import type { RateLimiter } from './rate-limit.js';
import { readEnvelope } from './request-parsing.js';
import { resolveMethod, routeOfPath, type ApiMethod, type ApiRoute } from './routes.js';
import type { CallStats } from './stats.js';

/** Everything the HTTP server reads and changes; the simulator swaps its parts (faults, limits). */
export interface ServerState {
  dataset: SimDataset;
  index: DatasetIndex;
  /** Basic auth at `/api/v1/<area>`, the API-key gateway at `/ext/orgs/<org>/v1/<area>`, or both. */
  credentials: Credentials;
  limiter: RateLimiter;
  faults?: FaultInjector;
  stats: CallStats;
  /** Applies `days` days of activity; the reply of `POST /_sim/advance`. */
  advance(days: number): unknown;
}

/** A finished reply before it is sent. */
interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
  format: WireFormat;
  /** The method counted in the stats (`-` when none could be read). */
  method: string;
  fault?: CallFault;
}

const SIM_JSON = 'application/json; charset=utf-8';

function envelopeReply(
  format: WireFormat,
  requestId: string | undefined,
  error: ApiError,
  method: string,
  headers: Record<string, string>,
): Reply {
  const response: Record<string, unknown> = {};
  if (requestId !== undefined) response.requestId = requestId;
  response.error = { code: error.code, message: error.message };
  return {
    status: error.httpStatus,
    headers: { ...headers, ...error.headers },
    body: serializeEnvelope(format, { response }),
    format,
    method,
  };
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The reply to one API call (`POST /api[/v1]/<area>` or the gateway's
 * `/ext/orgs/<org>/v1/<area>`), through every stage of the contract. The two routes differ only
 * in how the envelope is read and the credential checked; the rest is one path.
 */
async function apiReply(state: ServerState, req: IncomingMessage, url: URL, route: ApiRoute): Promise<Reply> {
  const { area } = route;
  let format: WireFormat = 'json';
  let requestId: string | undefined;
  let method = '-';
  let rateHeaders: Record<string, string> | undefined;
  let caller = '';
  try {
    if (req.method !== 'POST') {
      req.resume();
      throw new ApiError(ERROR_CODE.unknownMethod, `Use POST for ${url.pathname}`, 405, { Allow: 'POST' });
    }
    // Each route reads the envelope its own way; an unreadable one waits for the credential check.
    const { envelope, readError, ...read } = await readEnvelope(route, req);
    format = read.format;
    requestId = envelope?.requestId;
    if (envelope?.methodName) method = envelope.methodName;
    // Credentials first: a caller without them learns nothing about its request.
    caller = callerOf(state.credentials, route, req.headers, envelope?.authType);
    if (!envelope) throw readError;
    const resolved = resolveMethod(area, envelope.methodName, envelope.version);
    const decision = state.limiter.take(`${caller}\u0000${resolved.method}`);
    rateHeaders = decision.headers;
    if (!decision.allowed) {
      throw new ApiError(
        ERROR_CODE.throttled,
        `Rate limit exceeded for ${resolved.method}; retry after ${decision.retryAfter} s`,
        429,
        {
          'Retry-After': String(decision.retryAfter),
        },
      );
    }
    const fault = state.faults?.nextCall(resolved.method);
    if (fault?.kind === 'status') {
      state.stats.fault(String(fault.status));
      const error =
        fault.status === 429
          ? new ApiError(ERROR_CODE.throttled, 'Too many requests; slow down', 429, {
              'Retry-After': String(fault.retryAfter ?? 1),
            })
          : new ApiError(ERROR_CODE.internal, `Internal server error (HTTP ${fault.status})`, fault.status);
      return envelopeReply(format, requestId, error, resolved.method, rateHeaders);
    }
    const paged = resolved.method !== 'getStatus';
    const pageRequest = paged ? parsePaging(url) : { pageNo: 1, perPage: 500 };
    const outcome = runMethod(resolved.method as ApiMethod, resolved.version, envelope.params, {
      index: state.index,
      seed: state.dataset.seed,
      page: pageRequest,
      faults: state.faults,
    });
    const headers: Record<string, string> = { ...rateHeaders };
    let result = outcome.result;
    if (outcome.page) {
      const links = pageLinks(url, outcome.page);
      headers['X-Total-Count'] = String(outcome.page.totalCount);
      headers.Link = linkHeader(links);
      if (
        headerValue(req, 'x-send-pagination-links') === '1' &&
        result !== null &&
        typeof result === 'object'
      ) {
        result = { ...(result as Record<string, unknown>), pagination: bodyPagination(outcome.page, links) };
      }
    }
    const response: Record<string, unknown> = {};
    if (requestId !== undefined) response.requestId = requestId;
    response.code = 200;
    response.result = result;
    return {
      status: 200,
      headers,
      body: serializeEnvelope(format, { response }),
      format,
      method: resolved.method,
      fault,
    };
  } catch (error) {
    const apiError =
      error instanceof ApiError ? error : new ApiError(ERROR_CODE.internal, 'Internal server error', 500);
    if (!(error instanceof ApiError))
      process.stderr.write(`simulator: internal error: ${(error as Error).stack ?? String(error)}\n`);
    // Replies that were not counted as calls (401, 404, unreadable requests) still announce the limits.
    return envelopeReply(
      format,
      requestId,
      apiError,
      method,
      rateHeaders ?? state.limiter.peek(`${caller}\u0000${method}`),
    );
  }
}

function send(res: ServerResponse, reply: Reply, contentType: string): void {
  const body = Buffer.from(reply.body, 'utf8');
  const headers = { ...reply.headers, 'Content-Type': contentType };
  const fault = reply.fault;
  if (fault?.kind === 'reset') {
    res.writeHead(reply.status, { ...headers, 'Content-Length': String(body.length) });
    res.write(truncateBody(body), () => {
      const socket = res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
      if (socket?.resetAndDestroy) socket.resetAndDestroy();
      else socket?.destroy();
    });
    return;
  }
  const out =
    fault?.kind === 'truncate'
      ? truncateBody(body)
      : fault?.kind === 'malformed'
        ? Buffer.from(malformBody(reply.format, reply.body))
        : body;
  res.writeHead(reply.status, { ...headers, 'Content-Length': String(out.length) });
  res.end(out);
}

function sendSimJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': SIM_JSON, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.trim() === '' ? {} : JSON.parse(text);
}

/** `POST /_sim/advance` with `{"days": N}` and `GET /_sim/stats`: the simulator's own controls. */
async function simControl(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  if (pathname === '/_sim/stats' && req.method === 'GET')
    return sendSimJson(res, 200, state.stats.snapshot());
  if (pathname === '/_sim/advance' && req.method === 'POST') {
    let days: unknown;
    try {
      days = ((await readJson(req)) as { days?: unknown }).days;
    } catch {
      return sendSimJson(res, 400, { error: 'expected a JSON body such as {"days": 1}' });
    }
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 0 || days > 3660) {
      return sendSimJson(res, 400, { error: "'days' must be an integer from 0 to 3660" });
    }
    return sendSimJson(res, 200, state.advance(days));
  }
  req.resume();
  return sendSimJson(res, 404, {
    error: 'unknown simulator endpoint; use POST /_sim/advance or GET /_sim/stats',
  });
}

/** Options of the HTTP server beyond its state. */
export interface ServerHooks {
  /** Timers of slow replies, cleared when the simulator closes. */
  pendingTimers: Set<NodeJS.Timeout>;
}

/** Where the API is served, for the 404 of any other path. */
function servedPaths(credentials: Credentials): string {
  const paths = [
    credentials.basic ? '/api/v1/<area>' : '',
    credentials.gateway ? '/ext/orgs/<org>/v1/<area>' : '',
  ];
  return paths.filter(Boolean).join(' or ');
}

/**
 * The simulator's HTTP server (not yet listening): API calls on `/api/v1/<area>` and
 * `/api/<area>` (Basic auth) and on `/ext/orgs/<org>/v1/<area>` (the API-key gateway), each
 * when its credential is configured, the `/_sim/...` controls, and the simulated `Date`
 * header on every reply.
 */
export function createSimServer(getState: () => ServerState, hooks: ServerHooks): Server {
  return createServer((req, res) => {
    const state = getState();
    res.setHeader('Date', simulatedHttpDate(state.dataset.today));
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const handle = async () => {
      if (url.pathname.startsWith('/_sim/')) return simControl(state, req, res, url.pathname);
      const route = routeOfPath(url.pathname);
      if (
        route === undefined ||
        !(route.auth === 'basic' ? state.credentials.basic : state.credentials.gateway)
      ) {
        req.resume();
        const reply = envelopeReply(
          'json',
          undefined,
          new ApiError(
            ERROR_CODE.unknownMethod,
            `No such path ${url.pathname}; use ${servedPaths(state.credentials)}`,
            404,
          ),
          '-',
          {},
        );
        state.stats.record('-', reply.status);
        return send(res, reply, CONTENT_TYPE.json);
      }
      const reply = await apiReply(state, req, url, route);
      state.stats.record(reply.method, reply.status);
      const contentType = CONTENT_TYPE[reply.format];
      if (reply.fault && reply.fault.kind !== 'status') state.stats.fault(reply.fault.kind);
      if (reply.fault?.kind === 'slow') {
        const timer = setTimeout(() => {
          hooks.pendingTimers.delete(timer);
          if (!res.destroyed && !res.writableEnded) send(res, reply, contentType);
        }, reply.fault.ms);
        hooks.pendingTimers.add(timer);
        return;
      }
      send(res, reply, contentType);
    };
    handle().catch((error: unknown) => {
      process.stderr.write(`simulator: ${(error as Error).stack ?? String(error)}\n`);
      if (!res.headersSent) sendSimJson(res, 500, { error: 'internal simulator error' });
      else res.destroy();
    });
  });
}
