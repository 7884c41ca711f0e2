/**
 * Seeded pseudo-random numbers for the simulator's data set.
 *
 * sfc32 (Chris Doty-Humphrey's "small fast counting" generator, public domain) seeded through a
 * murmur3-style integer mix. It is a dozen lines, passes PractRand far beyond what a data set
 * needs, and its exact output is pinned by this file: a dependency could change its stream in a
 * minor release and silently change every seeded data set (and every test that relies on one).
 * Nothing here reads `Math.random` or the clock.
 */

/** Mixes 32-bit integers into one well-spread 32-bit hash (murmur3 finalizer per part). */
export function hashInts(...parts: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    let k = Math.imul(part | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    // Parts beyond 32 bits (epoch days never are, ids may be) contribute their high half too.
    const high = Math.floor(part / 0x100000000);
    if (high !== 0) h ^= Math.imul(high, 0x85ebca6b);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seeded generator (sfc32) with the draws the data set needs. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeds the generator from any number of integers (seed, day, property id, stream...). */
  constructor(...parts: readonly number[]) {
    this.a = hashInts(...parts, 1);
    this.b = hashInts(...parts, 2);
    this.c = hashInts(...parts, 3);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** The next unsigned 32-bit value. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** An index drawn with the given (non-negative, not all zero) weights. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** A count with mean `mean` (Poisson by inversion; fine for the small means used here). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }
}

/** Stream ids, so that independent activities draw from independent sequences. */
export const STREAM = {
  properties: 1,
  vendors: 2,
  leases: 3,
  arrivals: 4,
  invoices: 5,
  people: 6,
} as const;
