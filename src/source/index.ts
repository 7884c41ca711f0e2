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
