import { PROPERTY_DISCOVERY } from './properties/discovery.js';
import { STREAM_CODE, type StreamName } from './registry.js';
import type { Discovery, StreamDefinition } from './types.js';

/** Loads a stream (its manifest with its plan and normalize) by name. */
export async function loadStream(name: StreamName): Promise<StreamDefinition<StreamName>> {
  const code = STREAM_CODE[name];
  if (!code) throw new Error(`unknown stream '${name}'`);
  return (await code()).default as StreamDefinition<StreamName>;
}

/**
 * How a run finds the properties it may cover. Named here, for the engine, not in the registry:
 * discovery reads records with the source's quirk readers, which the registry's readers (the
 * CLI at every start) do not need.
 */
export const DISCOVERY: Discovery = PROPERTY_DISCOVERY;

export { STREAM_MANIFESTS } from './registry.js';
export type { Discovery, DiscoveredProperty, StreamDefinition, StreamManifest } from './types.js';
