/**
 * Seeded, deterministic hashing and random numbers: the simulator's only source of chance,
 * so that the same seed gives the same bytes and a failing test can be replayed.
 */

/** FNV-1a 32-bit hash of a text, mixed with a seed. */
export function hash32(seed: number, key: string): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3 fmix32) so that near keys spread over the whole range.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) fixed by the seed and the key: `hashUnit(seed, key) < rate` picks a stable share. */
export function hashUnit(seed: number, key: string): number {
  return hash32(seed, key) / 4294967296;
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
