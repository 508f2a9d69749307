/**
 * mulberry32, the seeded PRNG of the randomised tests (the same generator as the SDK's test
 * helper, which is not exported across packages): a failure replays from its seed.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random helpers over one seeded generator. */
export interface Dice {
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** {@link Dice} from a seed. */
export function dice(seed: number): Dice {
  const next = seededRandom(seed);
  const int = (n: number): number => Math.floor(next() * n);
  return { int, chance: (p) => next() < p, pick: (items) => items[int(items.length)] as (typeof items)[number] };
}
