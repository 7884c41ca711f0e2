/**
 * Hand-built requests for the contract tests: the envelope written out by hand, sent as
 * multipart or raw JSON/XML with fetch, replies read with JSON.parse or fast-xml-parser. Not
 * the project's client, so that the simulator is checked against the contract alone.
 */
import { XMLParser } from 'fast-xml-parser';
import {
  startSimulatorWith,
  type Simulator,
  type SimulatorOptions,
} from '../../src/simulator/server/simulator.js';
import type { SimDataset } from '../../src/simulator/data/model.js';
import { fixtureDataset, fixtureEngine } from './fixtures/dataset.js';

export const USER = 'sim-user';
export const PASSWORD = 'sim-secret-pw';
/** The gateway's org and API key (`startFixtureSimulator({ ...GATEWAY })` serves the gateway too). */
export const ORG = 'acme-sim';
export const API_KEY = 'sim-key-5f2e9c71';
export const GATEWAY = { org: ORG, apiKey: API_KEY } as const;

/** A simulator over the fixture data set (rate limits off unless asked for). */
export function startFixtureSimulator(
  options: Partial<SimulatorOptions> & { dataset?: SimDataset } = {},
): Promise<Simulator<{ today: string; newLeases: number }>> {
  return startSimulatorWith(
    {
      username: USER,
      password: PASSWORD,
      rateLimit: 'off',
      dataset: options.dataset ?? fixtureDataset(options.seed ?? 1),
      ...options,
    },
    fixtureEngine,
  );
}

export type Params = Record<string, string>;

/** One hand-built call. */
export interface CallOptions {
  area?: string;
  /** Path prefix: `/api/v1` (default) or `/api`. */
  prefix?: string;
  method: string;
  version?: string;
  params?: Params;
  format?: 'json' | 'xml';
  /** `multipart` (default) or `raw`. */
  transport?: 'multipart' | 'raw';
  requestId?: string | number | null;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  /** Credentials, or null for none. */
  auth?: { username: string; password: string } | null;
  /**
   * A gateway call instead: `/ext/orgs/<org>/v1/<area>`, `X-Api-Key` (none when null), the
   * envelope as a raw JSON body (unless `transport` says multipart) with auth type `apikey`.
   */
  gateway?: { org: string; apiKey: string | null };
  /** The envelope's `auth.type` (default `basic`, `apikey` on the gateway). */
  authType?: string;
  /** Overrides the multipart `requestContentType`. */
  requestContentType?: string;
  /** Extra multipart file parts. */
  files?: Record<string, string>;
}

/** A reply, its text and its parsed body (JSON, or XML parsed to the same tree). */
export interface CallReply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

const AREA: Record<string, string> = {
  getLeases: 'leases',
  getInvoices: 'vendors',
  getProperties: 'properties',
  getPropertyUnits: 'propertyunits',
  getStatus: 'status',
};

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The request envelope as JSON or XML text. */
export function envelopeText(options: CallOptions): string {
  const format = options.format ?? 'json';
  const requestId = options.requestId === undefined ? '15' : options.requestId;
  if (format === 'json') {
    const method: Record<string, unknown> = { name: options.method };
    if (options.version !== undefined) method.version = options.version;
    method.params = options.params ?? {};
    const envelope: Record<string, unknown> = {
      auth: { type: options.authType ?? (options.gateway ? 'apikey' : 'basic') },
    };
    if (requestId !== null) envelope.requestId = requestId;
    envelope.method = method;
    return JSON.stringify(envelope);
  }
  const params = Object.entries(options.params ?? {})
    .map(([key, value]) => `<${key}>${xmlEscape(value)}</${key}>`)
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><request><auth><type>${options.authType ?? (options.gateway ? 'apikey' : 'basic')}</type></auth>` +
    (requestId !== null ? `<requestId>${requestId}</requestId>` : '') +
    `<method><name>${options.method}</name>` +
    (options.version !== undefined ? `<version>${options.version}</version>` : '') +
    `<params>${params}</params></method></request>`
  );
}

/** The XML parser the tests read replies with: repeated elements become arrays, text stays text. */
export const xmlParser = new XMLParser({
  parseTagValue: false,
  ignoreAttributes: false,
  attributesGroupName: '@attributes',
  attributeNamePrefix: '',
  processEntities: true,
});

/** Builds the URL of a call. */
export function callUrl(
  sim: { url: string },
  options: Pick<CallOptions, 'area' | 'prefix' | 'method' | 'query' | 'gateway'>,
): string {
  const prefix = options.gateway
    ? `/ext/orgs/${encodeURIComponent(options.gateway.org)}/v1`
    : (options.prefix ?? '/api/v1');
  const url = new URL(`${sim.url}${prefix}/${options.area ?? AREA[options.method] ?? 'leases'}`);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
  return url.href;
}

/** The request of a call, ready for fetch. */
export function buildRequest(sim: { url: string }, options: CallOptions): { url: string; init: RequestInit } {
  const format = options.format ?? 'json';
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const auth =
    options.auth === undefined
      ? options.gateway
        ? null
        : { username: USER, password: PASSWORD }
      : options.auth;
  if (options.gateway?.apiKey != null) headers['X-Api-Key'] = options.gateway.apiKey;
  if (auth)
    headers.Authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  const text = envelopeText(options);
  let body: FormData | string;
  if ((options.transport ?? (options.gateway ? 'raw' : 'multipart')) === 'multipart') {
    const form = new FormData();
    form.append(
      'requestContentType',
      options.requestContentType ??
        (format === 'json' ? 'application/json; CHARSET=UTF-8' : 'application/xml; CHARSET=UTF-8'),
    );
    form.append('requestBody', text);
    for (const [name, content] of Object.entries(options.files ?? {}))
      form.append(name, new Blob([content]), `${name}.txt`);
    body = form;
  } else {
    headers['Content-Type'] =
      format === 'json' ? 'application/json; charset=UTF-8' : 'application/xml; charset=UTF-8';
    body = text;
  }
  return { url: callUrl(sim, options), init: { method: 'POST', headers, body } };
}

/** Sends one call and reads the reply. */
export async function call(sim: { url: string }, options: CallOptions): Promise<CallReply> {
  const { url, init } = buildRequest(sim, options);
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('xml')) body = xmlParser.parse(text);
  else if (type.includes('json')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body };
}

/** Always an array: a list that may come as a bare object. */
export function asList<T = any>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The records of a getLeases reply (empty for the "No records found" string). */
export function leasesOf(reply: CallReply): any[] {
  const result = reply.body.response.result;
  return typeof result === 'string' ? [] : asList(result.leases.lease);
}

/** The records of a getInvoices reply. */
export function invoicesOf(reply: CallReply): any[] {
  const result = reply.body.response.result;
  return typeof result === 'string' ? [] : asList(result.invoices.invoice);
}

/** Ids of records as strings, in order. */
export function idsOf(records: any[]): string[] {
  return records.map((record) => String(record.id));
}
