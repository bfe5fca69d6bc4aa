import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../lambdas/common/seeded-random';
import { SortedStringMap } from '../../../lambdas/state/sorted-string-map';

/** What `range` must return, computed the slow and obvious way from all entries in order. */
function expectedRange(ordered: [string, number][], from: string, to?: string): [string, number][] {
  return ordered.filter(([k]) => k >= from && (to === undefined || k <= to));
}

describe('SortedStringMap', () => {
  it('agrees with a plain map on gets and ranges after 20,000 random puts (overwrites and splits)', () => {
    // Prepare
    const random = mulberry32(7); // seeded, so a failure replays
    const key = () =>
      Math.floor(random() * 8_000)
        .toString(36)
        .padStart(4, '0');
    const sorted = new SortedStringMap<number>();
    const model = new Map<string, number>();

    // Act
    for (let i = 0; i < 20_000; i++) {
      const k = key();
      sorted.set(k, i);
      model.set(k, i);
    }

    // Assess
    const ordered = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(sorted.size).toBe(model.size);
    expect([...sorted.range('')]).toEqual(ordered);
    for (let i = 0; i < 200; i++) {
      const [a, b] = [key(), key()].sort();
      const from = a as string;
      const to = i % 4 === 0 ? undefined : (b as string);
      expect([...sorted.range(from, to)]).toEqual(expectedRange(ordered, from, to));
      const probe = key();
      expect(sorted.get(probe)).toBe(model.get(probe));
    }
  });

  it('agrees with a plain map after random puts and deletes', () => {
    // Prepare
    const random = mulberry32(11);
    const key = () =>
      Math.floor(random() * 3_000)
        .toString(36)
        .padStart(3, '0');
    const sorted = new SortedStringMap<number>();
    const model = new Map<string, number>();

    // Act: puts, then deletes of most of the keys, then puts again
    for (let i = 0; i < 5_000; i++) {
      const k = key();
      sorted.set(k, i);
      model.set(k, i);
    }
    for (let i = 0; i < 6_000; i++) {
      const k = key();
      sorted.delete(k);
      model.delete(k);
    }
    for (let i = 0; i < 500; i++) {
      const k = key();
      sorted.set(k, -i);
      model.set(k, -i);
    }

    // Assess
    const ordered = [...model.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(sorted.size).toBe(model.size);
    expect([...sorted.range('')]).toEqual(ordered);
    for (let i = 0; i < 100; i++) {
      const probe = key();
      expect(sorted.get(probe)).toBe(model.get(probe));
    }
    // Every chunk emptied, then used again
    for (const k of model.keys()) sorted.delete(k);
    expect(sorted.size).toBe(0);
    expect([...sorted.range('')]).toEqual([]);
    sorted.set('b', 1);
    sorted.set('a', 2);
    expect([...sorted.range('')]).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('treats both bounds as inclusive and handles empty maps and ranges', () => {
    // Prepare
    const sorted = new SortedStringMap<string>();
    expect([...sorted.range('a')]).toEqual([]);
    for (const k of ['b', 'd', 'c', 'a']) sorted.set(k, k.toUpperCase());

    // Act / Assess
    expect([...sorted.range('b', 'c')]).toEqual([
      ['b', 'B'],
      ['c', 'C'],
    ]);
    expect([...sorted.range('bb', 'cc')]).toEqual([['c', 'C']]);
    expect([...sorted.range('c', 'b')]).toEqual([]);
    expect([...sorted.range('e')]).toEqual([]);
    expect(sorted.get('zz')).toBeUndefined();
  });
});
