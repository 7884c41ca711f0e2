/**
 * The streams propsync runs, as manifests: name, source method, tables and settings, without
 * their plan and normalize (`loadStream`). A new stream is its folder and one line here; the
 * conformance suite (test/streams/conformance.test.ts) then tests it.
 * Light on purpose: docs/architecture.md#lazy-loading
 */
import { invoices } from './invoices/manifest.js';
import { leases } from './leases/manifest.js';
import { properties } from './properties/manifest.js';

export const STREAM_MANIFESTS = [leases, invoices, properties] as const;

/** The streams propsync knows, by name. */
export type StreamName = (typeof STREAM_MANIFESTS)[number]['name'];
export const STREAM_NAMES: readonly StreamName[] = STREAM_MANIFESTS.map((manifest) => manifest.name);
