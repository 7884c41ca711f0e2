/**
 * The source client: what the rest of propsync imports from `src/source`.
 */
export * from './types.js';
export * from './errors.js';
export * from './quirks.js';
export type { Tree, TreeObject } from './tree.js';
export { buildEnvelope, CONTENT_TYPES, METHOD_AREAS, type Envelope, type EnvelopeInput } from './envelope.js';
export { encodeParams, METHOD_PARAMS, PARAM_KINDS, type ParamKind, type ParamSpec } from './params.js';
export { decodeJson } from './codec-json.js';
export { decodeXml } from './codec-xml.js';
export { decodeBody, readReply, recordsOf, RECORD_PATHS } from './reply.js';
export { createSourceClient, type SourceClientOptions } from './client.js';
export { SourceClock, SOURCE_TIME_ZONE } from './clock.js';
export { DailyBudget } from './budget.js';
export { Pacer, type PacerOptions, type PacerTicket } from './pacing.js';
export { parseRateLimitHeaders, parseRetryAfter, windowLengthMs, type RateWindowState } from './rate-headers.js';
export { isLastPage, parseLinkHeader, type PageFacts } from './paging.js';
export { RetrySchedule, isRetryable } from './retry.js';
