import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../sandbox/sandbox-random';
import { lowerBound, SortedIndex, selectPage, upperBound } from '../../../sandbox/sorted-index';

function indexOf(keys: number[]): SortedIndex<number> {
  const index = new SortedIndex<number>();
  keys.forEach((k, i) => {
    index.insert(k, i);
  });
  return index;
}

describe('SortedIndex', () => {
  it('keeps keys sorted and equal keys in insertion order', () => {
    const index = indexOf([5, 1, 5, 3, 1]);
    expect(index.keys).toEqual([1, 1, 3, 5, 5]);
    expect(index.items).toEqual([1, 4, 3, 0, 2]);
  });

  it('removes and re-keys a given item', () => {
    const index = indexOf([1, 2, 2, 3]);
    index.rekey(2, 9, 2);
    expect(index.keys).toEqual([1, 2, 3, 9]);
    expect(index.items).toEqual([0, 1, 3, 2]);
    expect(index.remove(2, 99)).toBe(false);
  });

  it('binary searches bounds', () => {
    expect(lowerBound([1, 2, 2, 4], 2)).toBe(1);
    expect(upperBound([1, 2, 2, 4], 2)).toBe(3);
    expect(lowerBound([], 2)).toBe(0);
  });
});

describe('selectPage', () => {
  it('equals filter-then-slice for any data, bound, filter, offset and limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.option(fc.integer({ min: 0, max: 22 }), { nil: undefined }),
        fc.boolean(),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 0, max: 30 }),
        (keys, fromKey, filtered, offset, limit) => {
          const index = indexOf(keys);
          const even = (i: number) => index.itemAt(i) % 2 === 0;
          const expected = index.keys
            .map((k, i) => ({ k, i }))
            .filter(({ k, i }) => (fromKey === undefined || k >= fromKey) && (!filtered || even(i)))
            .map(({ i }) => i)
            .slice(offset, offset + limit);
          const got = selectPage(index, {
            ...(fromKey !== undefined ? { fromKey } : {}),
            ...(filtered ? { matches: even } : {}),
            offset,
            limit,
          });
          expect(got).toEqual(expected);
        },
      ),
    );
  });

  it('with shuffled ties, moves records across page edges but only among equal keys', () => {
    // 40 records all with the same key: pages of 10 from two different shuffles differ.
    const index = indexOf(Array.from({ length: 40 }, () => 7));
    const rng = new SeededRandom(1);
    const shuffle = (xs: number[], from: number, to: number) => {
      rng.shuffle(xs, from, to);
    };
    const first = selectPage(index, { offset: 10, limit: 10, shuffleTies: shuffle });
    const second = selectPage(index, { offset: 10, limit: 10, shuffleTies: shuffle });
    expect(first).toHaveLength(10);
    expect(first).not.toEqual(second);
    // Distinct keys never move.
    const distinct = indexOf(Array.from({ length: 40 }, (_, i) => i));
    expect(selectPage(distinct, { offset: 10, limit: 10, shuffleTies: shuffle })).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ]);
  });
});
