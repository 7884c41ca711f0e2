/**
 * What `propsync simulate --help` tells: scales, areas and the faults' grammar. A leaf module
 * (it imports nothing), re-exported by the simulator's own modules. Why: docs/architecture.md#lazy-loading
 */

/** Scales of the data set. */
export const SCALES = ['small', 'medium', 'large'] as const;
/** A scale name. */
export type Scale = (typeof SCALES)[number];

/** The methods the simulator serves. */
export const API_METHODS = [
  'getLeases',
  'getInvoices',
  'getProperties',
  'getPropertyUnits',
  'getStatus',
] as const;
export type ApiMethod = (typeof API_METHODS)[number];

/** Which method each area serves. */
export const AREA_METHODS: Record<string, ApiMethod> = {
  leases: 'getLeases',
  vendors: 'getInvoices',
  properties: 'getProperties',
  propertyunits: 'getPropertyUnits',
  status: 'getStatus',
};

/** The SPEC grammar as `propsync simulate --help` prints it. */
export const FAULT_SPEC_HELP = [
  'Fault SPEC: comma-separated FAULT items and an optional seed=N (default: from --seed).',
  '  FAULT := KIND[@RATE|xCOUNT][:OPTION...]   RATE a share (0.1) or percentage (10%) of calls;',
  '           COUNT: the next COUNT matching calls; neither: every call.',
  '  KIND   500 | 502 | 503  HTTP 5xx with an error envelope',
  '         429              throttled, with Retry-After (a RATE starts a burst of calls)',
  '         slow             the reply waits ms= milliseconds (default 60000)',
  '         reset            headers and half the body, then the connection is reset',
  '         truncate         a complete reply whose body is cut in half',
  '         malformed        HTTP 200 with a JSON/XML body that does not parse',
  '         badrecord        RATE of records damaged (same records on every call while on)',
  '  OPTION method=NAME | ms=N (slow) | burst=N, retry=SECONDS (429)',
  '         | kind=KIND|KIND|... (badrecord damage, default any: every kind), ids=ID|ID|... (badrecord)',
  '  DAMAGE date (unparseable) | id (left out) | number (text) | nul (NUL in text) | int (987654 in a smallint)',
  '         | money (past numeric(14,2)) | year0 (01/15/0000) | bigid (25 digits)',
  '  e.g. 500@0.05,slow@0.02:ms=5000,seed=7    500x2    429x1:retry=3    badrecord@0.01:kind=date|nul',
].join('\n');
