import { describe, expect, it } from 'vitest';
import { attributeValueBytes, itemBytes, readUnits, writeUnits } from '../../../bench/dynamo-units';
import { entryOf, linearFit, median, medianRun, percentile } from '../../../bench/stats';

describe('bench statistics', () => {
  it('takes the median of odd and even counts without sorting the input in place', () => {
    const values = [5, 1, 3];
    expect(median(values)).toBe(3);
    expect(values).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 95)).toBe(95);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 95)).toBe(7);
  });

  it('fits a least-squares line: exact through points on one, the mean when x never varies', () => {
    const fit = linearFit([0, 100, 2_700].map((rows) => [rows, 34 + 0.056 * rows] as const));
    expect(fit.intercept).toBeCloseTo(34, 9);
    expect(fit.slope).toBeCloseTo(0.056, 9);
    expect(
      linearFit([
        [5, 1],
        [5, 3],
      ]),
    ).toEqual({ intercept: 2, slope: 0 });
    expect(linearFit([]).slope).toBeNaN();
  });

  it('picks the run whose key is the median, so its details agree with the figure', () => {
    const runs = [
      { id: 'a', v: 9 },
      { id: 'b', v: 1 },
      { id: 'c', v: 5 },
    ];
    expect(medianRun(runs, (r) => r.v).id).toBe('c');
  });

  it('creates a record entry once and returns the same one after', () => {
    const record: Record<string, number[]> = {};
    entryOf(record, 'k', () => []).push(1);
    entryOf(record, 'k', () => []).push(2);
    expect(record).toEqual({ k: [1, 2] });
  });
});

describe('DynamoDB item sizes and request units', () => {
  it('sizes strings in UTF-8 bytes and attribute names included', () => {
    expect(itemBytes({ pk: 'CLUB#c1', sk: 'é' })).toBe(2 + 7 + 2 + 2);
  });

  it('sizes numbers by significant digits, maps and lists with their overhead', () => {
    expect(attributeValueBytes(12345)).toBe(4);
    expect(attributeValueBytes(true)).toBe(1);
    expect(attributeValueBytes([1, 'ab'])).toBe(3 + (1 + 2) + (1 + 2));
    expect(attributeValueBytes({ a: 'xy' })).toBe(3 + 1 + 1 + 2);
  });

  it('charges 1 RRU per started 4 KB and 1 WRU per started 1 KB, at least 1', () => {
    expect(readUnits(0)).toBe(1);
    expect(readUnits(4096)).toBe(1);
    expect(readUnits(4097)).toBe(2);
    expect(writeUnits(1)).toBe(1);
    expect(writeUnits(1025)).toBe(2);
  });
});
