/**
 * The streams propsync runs, as manifests: name, source method and settings, loaded without
 * their plan and normalize (the configuration and the CLI read this; the engine loads the rest
 * with `loadStream`). A new stream is its folder and one line here.
 */
import { invoices } from './invoices/manifest.js';
import { leases } from './leases/manifest.js';
import { properties } from './properties/manifest.js';
import { PROPERTY_DISCOVERY } from './properties/discovery.js';

export const STREAM_MANIFESTS = [leases, invoices, properties] as const;

/** How a run finds the properties it may cover. */
export const DISCOVERY = PROPERTY_DISCOVERY;
