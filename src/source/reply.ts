/**
 * One reply → its records, or the typed error it stands for. The body is decoded once (JSON
 * or XML into the same plain tree); the envelope's error code, else the HTTP status, picks
 * the error class; the echoed `requestId` must be the one sent.
 */
import type { Format } from './settings.js';
import { decodeJson } from './codec-json.js';
import { decodeXml } from './codec-xml.js';
import {
  AccessError,
  AuthenticationError,
  BadParameterError,
  MalformedReplyError,
  RecognizerFailure,
  ServerError,
  SourceError,
  ThrottledError,
  UndecodableReplyError,
  UnknownMethodError,
  type CallSite,
} from './errors.js';
import { asList } from './field-readers.js';
import { isTreeObject, type Tree } from './tree.js';
import { KnownRecord, type SourceMethod } from './types.js';
import { messageOf } from '../log/errors.js';

/**
 * A decoded body: the tree, and, when records were recognized (see `RecordRecognizer`), the records' text
 * digests and the keys of those passed over.
 */
export interface DecodedBody {
  tree: Tree;
  /** The digest of each record's text, in the order of the records, when the reply was digested. */
  digests?: string[];
  /** The caller's key of each record passed over (undecoded; it stands as `{}` in the tree), by the same index. */
  keys?: (string | undefined)[];
}

/** Decodes a body into the plain tree, perhaps on another thread (see xml-decoder.ts). */
export type BodyDecoder = (
  format: Format,
  body: Buffer,
  records: SourceMethod['records'],
) => DecodedBody | Promise<DecodedBody>;

/** Decodes the body's UTF-8 text on this thread. */
export const decodeBytes: BodyDecoder = (format, body) => ({
  tree: decodeBody(format, body.toString('utf8')),
});

/** Decodes a body in the given format into the plain tree (throws on unreadable text). */
export function decodeBody(format: Format, text: string): Tree {
  return format === 'xml' ? decodeXml(text) : decodeJson(text);
}

/** The body's pagination block (`result.pagination`, sent on `X-Send-Pagination-Links: 1`). */
export interface BodyPagination {
  totalCount?: number;
  pageNumber?: number;
  perPage?: number;
  /** Link relations present (`first`, `prev`, `next`, `last`) with their URLs. */
  links?: Record<string, string>;
}

/** A successful reply, read. */
export interface ReadReply {
  /** The records; a record passed over undecoded is a `KnownRecord`. */
  records: unknown[];
  /** The digest of each record's text, by the index of `records`, when the reply was digested. */
  textDigests?: string[];
  pagination?: BodyPagination;
}

/** What `readReply` needs. */
export interface ReplyInput {
  format: Format;
  status: number;
  /** The body's bytes (a decoder may take them over: read `size` and the start below first). */
  body: Buffer;
  /** Where the method's records sit under `response.result`. */
  records: SourceMethod['records'];
  /** The requestId sent. */
  requestId: string;
  site: CallSite;
  /** Milliseconds from `Retry-After`, for a 429. */
  retryAfterMs?: number;
  /** What an authentication error tells the operator to check (the auth mode's, see auth-modes.ts). */
  credentialHint?: string;
}

function toInt(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function shorten(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/**
 * The typed error of an error code (from the envelope) or, without one, of the HTTP status;
 * `undefined` when neither says error.
 */
function errorFor(
  code: number | undefined,
  status: number,
  message: string,
  input: Pick<ReplyInput, 'site' | 'retryAfterMs' | 'credentialHint'>,
): SourceError | undefined {
  const details = { ...input.site, code, status };
  const key = code ?? status;
  if (key === 301 || key === 401)
    return new AuthenticationError(
      `authentication failed: ${message}; ${input.credentialHint ?? 'check the credential'}`,
      details,
    );
  if (key === 302 || key === 403) return new AccessError(`no access: ${message}`, details);
  if (key === 400) return new BadParameterError(`bad parameter: ${message}`, details);
  if (key === 404) return new UnknownMethodError(`unknown area, method or version: ${message}`, details);
  if (key === 429)
    return new ThrottledError(`throttled: ${message}`, { ...details, retryAfterMs: input.retryAfterMs });
  if (key >= 500 && key <= 599) return new ServerError(`server error: ${message}`, details);
  if (code !== undefined && code !== 200) return new SourceError(`error: ${message}`, details);
  if (code === undefined && (status < 200 || status > 299))
    return new SourceError(`unexpected HTTP status: ${message}`, details);
  return undefined;
}

/**
 * Reads one reply: the records of the method (always an array, via `asList`) and the body's
 * pagination, or throws the typed error: the envelope's error code first, then the HTTP
 * status; an unreadable body, a missing envelope or another `requestId` is a
 * `MalformedReplyError` (retryable: the next try may come whole).
 */
export async function readReply(input: ReplyInput, decode: BodyDecoder = decodeBytes): Promise<ReadReply> {
  const { site, status } = input;
  // What error messages quote, taken before the decoder may move the bytes to another thread.
  const size = input.body.length;
  const start = input.body.subarray(0, 480).toString('utf8');
  let body: DecodedBody;
  try {
    body = await decode(input.format, input.body, input.records);
  } catch (error) {
    // The caller's recognizer failed (see xml-decoder.ts): its own error, not the reply's.
    if (error instanceof RecognizerFailure) throw error.cause;
    if (error instanceof UndecodableReplyError)
      throw new UndecodableReplyError(error.detail, { ...site, status });
    const statusError = errorFor(
      undefined,
      status,
      `unreadable ${input.format.toUpperCase()} body: ${shorten(start, 120)}`,
      input,
    );
    if (statusError) throw statusError;
    throw new MalformedReplyError(
      `unreadable ${input.format.toUpperCase()} reply (${messageOf(error)}; ${size} bytes)`,
      {
        ...site,
        status,
        cause: error,
      },
    );
  }
  const tree = body.tree;
  const response = isTreeObject(tree) ? tree.response : undefined;
  if (!isTreeObject(response)) {
    const statusError = errorFor(undefined, status, `no response envelope: ${shorten(start, 120)}`, input);
    if (statusError) throw statusError;
    throw new MalformedReplyError('reply has no response envelope', { ...site, status });
  }
  const echoed = response.requestId;
  if (echoed !== undefined && echoed !== input.requestId) {
    throw new MalformedReplyError(
      `reply is for requestId ${JSON.stringify(echoed)}, not ${JSON.stringify(input.requestId)}`,
      { ...site, status },
    );
  }
  const error = response.error;
  if (error !== undefined) {
    const code = isTreeObject(error) ? toInt(error.code) : undefined;
    const message =
      isTreeObject(error) && typeof error.message === 'string'
        ? error.message
        : typeof error === 'string'
          ? error
          : 'no message';
    throw (
      errorFor(code, status, message, input) ??
      new SourceError(`error: ${message}`, { ...site, code, status })
    );
  }
  const code = toInt(response.code);
  const failure = errorFor(
    code !== undefined && code !== 200 ? code : undefined,
    status,
    `code ${response.code ?? 'absent'}`,
    input,
  );
  if (failure) throw failure;
  if (echoed === undefined) {
    throw new MalformedReplyError(`reply does not echo requestId ${JSON.stringify(input.requestId)}`, {
      ...site,
      status,
    });
  }
  if (!('result' in response))
    throw new MalformedReplyError('reply has neither result nor error', { ...site, status });
  const records = recordsOf(input.records, response.result);
  return { ...recognized(records, body, input.site, status), pagination: paginationOf(response.result) };
}

/**
 * The records with those passed over undecoded as `KnownRecord`s, and their text digests. The
 * digests are of the container's record elements, which the records are one for one (unless the
 * source sent a record as "No records found" text, say): digests that do not line up are dropped,
 * and a reply whose passed-over records would not line up is refused (the next try decodes it).
 */
function recognized(
  records: unknown[],
  body: DecodedBody,
  site: CallSite,
  status: number,
): Pick<ReadReply, 'records' | 'textDigests'> {
  const { digests, keys } = body;
  if (!digests) return { records };
  if (digests.length !== records.length) {
    if (keys?.some((key) => key !== undefined)) {
      throw new MalformedReplyError(
        `the reply's ${records.length} records do not line up with its ${digests.length} record elements`,
        { ...site, status },
      );
    }
    return { records };
  }
  keys?.forEach((key, index) => {
    if (key !== undefined) records[index] = new KnownRecord(key);
  });
  return { records, textDigests: digests };
}

/** The records under a method's path in a decoded `result`: `[]` for "No records found" or an absent container. */
export function recordsOf(path: SourceMethod['records'], result: Tree | undefined): unknown[] {
  if (!isTreeObject(result)) return asList(result).filter((item) => typeof item !== 'string');
  const [container, item] = path;
  const holder = result[container];
  return isTreeObject(holder)
    ? asList(holder[item])
    : asList(holder).filter((entry) => typeof entry !== 'string');
}

function paginationOf(result: Tree | undefined): BodyPagination | undefined {
  const block = isTreeObject(result) ? result.pagination : undefined;
  if (!isTreeObject(block)) return undefined;
  const links: Record<string, string> = {};
  if (isTreeObject(block.links)) {
    for (const [rel, href] of Object.entries(block.links))
      if (typeof href === 'string' && href !== '') links[rel] = href;
  }
  return {
    totalCount: toInt(block.totalCount),
    pageNumber: toInt(block.pageNumber),
    perPage: toInt(block.perPage),
    links: isTreeObject(block.links) ? links : undefined,
  };
}
