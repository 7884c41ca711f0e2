import type { StreamName } from '../config/schema.js';
import { STREAM_MANIFESTS } from './registry.js';
import type { StreamDefinition } from './types.js';

/** Loads a stream (its plan, normalize and tables) by name. */
export async function loadStream(name: StreamName): Promise<StreamDefinition> {
  const manifest = STREAM_MANIFESTS.find((candidate) => candidate.name === name);
  if (!manifest) throw new Error(`unknown stream '${name}'`);
  return manifest.load();
}

export { DISCOVERY, STREAM_MANIFESTS } from './registry.js';
export type { Discovery, DiscoveredProperty, StreamDefinition, StreamManifest } from './types.js';
