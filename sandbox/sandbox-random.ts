/**
 * The sandbox's seeded stream (common/seeded-random's sfc32, seeded through cyrb128) plus the
 * sampling helpers the sandbox needs.
 * Every bit of sandbox randomness comes from here, never from Math.random, so the same seed gives
 * the same data.
 */
import { cyrb128, sfc32 } from '../lambdas/common/seeded-random';

export class SeededRandom {
  private readonly nextWord: () => number;

  /** `seed` and `label` together pick the stream: different labels give independent streams. */
  constructor(seed: number | string, label = '') {
    this.nextWord = sfc32(...cyrb128(`${seed}\u0000${label}`));
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    return this.nextWord();
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform real in [min, max). */
  real(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks a value with probability proportional to its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    let r = this.next() * total;
    for (const [value, w] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    const last = entries[entries.length - 1];
    if (!last) throw new RangeError('weighted pick from an empty list');
    return last[0];
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A Poisson-distributed count with the given mean (normal approximation above 30). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }

  /** Fisher-Yates in place. */
  shuffle<T>(items: T[], from = 0, to = items.length): T[] {
    for (let i = to - 1; i > from; i--) {
      const j = from + Math.floor(this.next() * (i - from + 1));
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** A string of `length` characters from `alphabet`. */
  chars(length: number, alphabet = '0123456789'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}
