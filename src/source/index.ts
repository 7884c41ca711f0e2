/**
 * The source client: what the rest of propsync imports from `src/source`.
 *
 * - `createSourceClient(options)`: the client (pages, today, stats, close), generic over the
 *   methods its callers describe (`SourceMethod`).
 * - Typed errors (`SourceError` and its subclasses, `BudgetExhaustedError`, `RecordError`).
 * - Quirk helpers (`asList`, `asBoolean`, `asDate`, `asDateTime`, `asPostMonth`, `asMoney`,
 *   `asId`, `asInt`, `asText`, `required`): the only place the source's quirks are read.
 * - The auth modes (Basic auth, the API-key gateway): `authSettingsProblem` checks settings
 *   before a client is made.
 * - The parts, for tests and tools: envelopes, codecs, paging, pacing, retries, budget, clock.
 */
export * from './types.js';
export * from './errors.js';
export * from './field-readers.js';
export { createSourceClient, type SourceClientOptions } from './client.js';
export { authModeOf, authSettingsProblem, type AuthMode } from './auth-modes.js';
export type { Tree, TreeObject } from './tree.js';
export { buildEnvelope, CONTENT_TYPES, type Envelope, type EnvelopeInput } from './envelope.js';
export { encodeParams } from './params.js';
export { decodeJson } from './codec-json.js';
export { decodeXml } from './codec-xml.js';
export { decodeBody, readReply, recordsOf } from './reply.js';
export { SourceClock } from './clock.js';
export { DailyBudget } from './budget.js';
export { Pacer, SPREAD_WITHIN_MS, type PacerOptions, type PacerTicket } from './pacing.js';
export {
  parseRateLimitHeaders,
  parseRetryAfter,
  windowLengthMs,
  type RateWindowState,
} from './rate-headers.js';
export { isLastPage, parseLinkHeader, parseTotalCount, type PageFacts } from './paging.js';
export { RetrySchedule, isRetryable } from './retry.js';
