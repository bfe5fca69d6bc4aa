import { describe, expect, it } from 'vitest';
import { ScanTally } from '../../../../lambdas/engine/scan/scan-tally';
import type { EngineScan } from '../../../../lambdas/engine/scan/scan-types';

const scan: EngineScan = {
  mode: 'tail',
  fromdate: '',
  nextOffset: 0,
  startedAt: '2026-03-10T12:00:00.000Z',
  pages: 0,
  records: 0,
};
const none = new Map<string, string>();
const allNew = async (ids: string[]) => ids;

describe('ScanTally', () => {
  it('counts distinct identities across pages; a row read twice across pages is not a repeat', async () => {
    // Prepare
    const tally = new ScanTally(scan, allNew);
    // Act
    await tally.account(['a', 'b'], none);
    await tally.account(['b', 'c'], none);
    // Assess
    expect(tally.distinct).toBe(3);
    expect(tally.covers(4, 0)).toBe(false);
    expect(tally.covers(3, 0)).toBe(true);
  });

  it('counts a repeat proven by one response (a door scanned twice in one second)', async () => {
    // Prepare
    const tally = new ScanTally(scan, allNew);
    // Act
    await tally.account(['a', 'a', 'b'], none);
    // Assess
    expect(tally.covers(3, 0)).toBe(true);
    expect(tally.progress(scan, { nextOffset: 3, unidentified: 0, pages: 1, records: 3 })).toMatchObject({
      distinct: 2,
      repeats: 1,
    });
  });

  it('names the record times of identities read more often than one response proves', async () => {
    // Prepare
    const tally = new ScanTally(scan, allNew);
    await tally.account(
      ['a', 'b'],
      new Map([
        ['a', 't1'],
        ['b', 't2'],
      ]),
    );
    // Act
    const times = tally.suspectTimes(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
    );
    // Assess
    expect(times).toEqual(['t1']);
  });

  it('a resumed scan counts only identities its earlier invocations did not read', async () => {
    // Prepare
    const tally = new ScanTally({ ...scan, distinct: 2 }, async (ids) => ids.filter((id) => id !== 'a'));
    // Act
    await tally.account(['a', 'c'], none);
    // Assess
    expect(tally.distinct).toBe(3);
    expect(tally.takeUnmarked()).toEqual(['c']);
    expect(tally.takeUnmarked()).toEqual([]);
  });

  it('saves the highest record time in its progress', () => {
    // Prepare
    const tally = new ScanTally(scan, allNew);
    // Act
    tally.noteRecordTime(Date.parse('2026-03-10T11:00:00Z'));
    tally.noteRecordTime(undefined);
    tally.noteRecordTime(Date.parse('2026-03-10T10:00:00Z'));
    // Assess
    expect(tally.progress(scan, { nextOffset: 0, unidentified: 0, pages: 0, records: 0 }).maxRecordTime).toBe(
      '2026-03-10T11:00:00.000Z',
    );
  });
});
