/**
 * The streams propsync runs, as manifests: name, source method, tables and settings, without
 * their plan and normalize (`loadStream`). A new stream is its folder and its lines here; the
 * conformance suite (test/streams/conformance.test.ts) then tests it.
 * Light on purpose: docs/architecture.md#lazy-loading
 */
import { invoices } from './invoices/manifest.js';
import { leases } from './leases/manifest.js';
import { properties } from './properties/manifest.js';
import { units } from './units/manifest.js';
import type { StreamDefinition } from './types.js';

export const STREAM_MANIFESTS = [leases, invoices, properties, units] as const;

/** The streams propsync knows, by name. */
export type StreamName = (typeof STREAM_MANIFESTS)[number]['name'];
export const STREAM_NAMES: readonly StreamName[] = STREAM_MANIFESTS.map((manifest) => manifest.name);

/** Each stream's code (`<name>/stream.ts`), loaded when a run needs it (`loadStream`). */
export const STREAM_CODE: Readonly<Record<StreamName, () => Promise<{ default: StreamDefinition }>>> = {
  leases: () => import('./leases/stream.js'),
  invoices: () => import('./invoices/stream.js'),
  properties: () => import('./properties/stream.js'),
  units: () => import('./units/stream.js'),
};
