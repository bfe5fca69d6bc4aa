import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../sandbox/sandbox-random';

const draw = (r: SeededRandom, n: number) => Array.from({ length: n }, () => r.next());

describe('SeededRandom', () => {
  it('repeats for the same seed and label and differs otherwise', () => {
    expect(draw(new SeededRandom(42, 'a'), 5)).toEqual(draw(new SeededRandom(42, 'a'), 5));
    expect(draw(new SeededRandom(42, 'a'), 5)).not.toEqual(draw(new SeededRandom(42, 'b'), 5));
    expect(draw(new SeededRandom(42, 'a'), 5)).not.toEqual(draw(new SeededRandom(43, 'a'), 5));
  });

  it('stays in range', () => {
    const r = new SeededRandom(1);
    for (let i = 0; i < 2000; i++) {
      const x = r.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      const n = r.int(3, 5);
      expect([3, 4, 5]).toContain(n);
    }
  });

  it('samples Poisson counts with about the right mean, small and large', () => {
    const r = new SeededRandom(9);
    for (const mean of [0.5, 4, 200]) {
      let sum = 0;
      for (let i = 0; i < 4000; i++) sum += r.poisson(mean);
      expect(sum / 4000).toBeGreaterThan(mean * 0.9);
      expect(sum / 4000).toBeLessThan(mean * 1.1);
    }
    expect(r.poisson(0)).toBe(0);
  });

  it('honours weights', () => {
    const r = new SeededRandom(5);
    let heavy = 0;
    for (let i = 0; i < 5000; i++)
      if (
        r.weighted([
          ['a', 9],
          ['b', 1],
        ] as const) === 'a'
      )
        heavy++;
    expect(heavy / 5000).toBeGreaterThan(0.85);
    expect(heavy / 5000).toBeLessThan(0.95);
  });

  it('shuffles a sub-range in place and keeps the elements', () => {
    const xs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    new SeededRandom(3).shuffle(xs, 2, 8);
    expect(xs.slice(0, 2)).toEqual([0, 1]);
    expect(xs.slice(8)).toEqual([8, 9]);
    expect([...xs].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
