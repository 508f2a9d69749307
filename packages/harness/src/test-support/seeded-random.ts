import { seededRandom } from "@antigravity-ts/sdk/testing";

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
