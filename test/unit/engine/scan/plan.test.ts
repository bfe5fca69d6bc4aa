import { describe, expect, it } from 'vitest';
import {
  BackfillRangeError,
  checkBackfillStart,
  planBackfillScan,
  planRegularScan,
  upgradeCursor,
} from '../../../../lambdas/engine/scan/plan';
import { SOURCES } from '../../../../lambdas/sources';
import { toFilterValue } from '../../../../lambdas/sources/record-time';
import { ctx, cursor, DAY, HOUR, START } from './scan-fixtures';

const visits = SOURCES.visits;
const members = SOURCES.members;
const filter = (ms: number) => toFilterValue(ms, visits.filterZone, ctx);
const WATERMARK = START - 2 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

describe('planRegularScan', () => {
  it.each([
    {
      name: 'first run of an append source: a baseline over the longer of lookback and sweep window',
      given: cursor(),
      source: visits,
      mode: 'baseline',
      fromdate: filter(START - Math.max(visits.tailLookbackMs, visits.sweep?.windowMs ?? 0)),
    },
    {
      name: 'first run of a state source: a baseline of everything',
      given: cursor(),
      source: members,
      mode: 'baseline',
      fromdate: '',
    },
    {
      name: 'a sweep that was never run is due',
      given: cursor({ baselineDone: true, watermark: iso(WATERMARK) }),
      source: visits,
      mode: 'sweep',
      fromdate: filter(WATERMARK - (visits.sweep?.windowMs ?? 0)),
    },
    {
      name: 'a recent sweep: a tail from watermark minus lookback',
      given: cursor({
        baselineDone: true,
        watermark: iso(WATERMARK),
        stats: { lastSweepAtMs: START - HOUR },
      }),
      source: visits,
      mode: 'tail',
      fromdate: filter(WATERMARK - visits.tailLookbackMs),
    },
    {
      name: 'a sweep older than its period is due again',
      given: cursor({ baselineDone: true, watermark: iso(WATERMARK), stats: { lastSweepAtMs: START - DAY } }),
      source: visits,
      mode: 'sweep',
      fromdate: filter(WATERMARK - (visits.sweep?.windowMs ?? 0)),
    },
  ])('$name', ({ given, source, mode, fromdate }) => {
    // Act
    const scan = planRegularScan(given, source, ctx, START);
    // Assess
    expect(scan).toEqual({ mode, fromdate, nextOffset: 0, startedAt: iso(START), pages: 0, records: 0 });
  });

  it('resumes a scan in progress as it was saved', () => {
    // Prepare
    const saved = {
      mode: 'tail',
      fromdate: 'x',
      nextOffset: 500,
      startedAt: iso(START - HOUR),
      pages: 1,
      records: 500,
    };
    // Act
    const scan = planRegularScan(
      cursor({ baselineDone: true, watermark: iso(WATERMARK), scan: saved }),
      visits,
      ctx,
      START,
    );
    // Assess
    expect(scan).toEqual(saved);
  });
});

describe('planBackfillScan', () => {
  const from = START - 3 * DAY;
  it.each([
    { source: visits, fromdate: filter(from) },
    { source: members, fromdate: '' },
  ])('starts a backfill of $source.name from its start ($fromdate)', ({ source, fromdate }) => {
    // Act
    const scan = planBackfillScan({ ...cursor(), backfillFrom: iso(from) }, source, ctx, START);
    // Assess
    expect(scan).toEqual({
      mode: 'backfill',
      fromdate,
      backfillFromMs: from,
      nextOffset: 0,
      startedAt: iso(START),
      pages: 0,
      records: 0,
    });
  });

  it('resumes the backfill in progress for the same start, restarts one for another start', () => {
    // Prepare
    const saved = {
      mode: 'backfill',
      fromdate: 'x',
      backfillFromMs: from,
      nextOffset: 50,
      startedAt: iso(START - HOUR),
      pages: 1,
      records: 50,
    };
    // Act
    const same = planBackfillScan(
      { ...cursor({ backfillScan: saved }), backfillFrom: iso(from) },
      visits,
      ctx,
      START,
    );
    const other = planBackfillScan(
      { ...cursor({ backfillScan: saved }), backfillFrom: iso(from + HOUR) },
      visits,
      ctx,
      START,
    );
    // Assess
    expect(same).toEqual(saved);
    expect(other.nextOffset).toBe(0);
    expect(other.backfillFromMs).toBe(from + HOUR);
  });
});

describe('checkBackfillStart', () => {
  it.each([
    { fromMs: undefined, throws: false },
    { fromMs: START, throws: false },
    { fromMs: START - DAY, throws: false },
    { fromMs: START + 1, throws: true },
    { fromMs: Number.NaN, throws: true },
  ])('from $fromMs: throws $throws', ({ fromMs, throws }) => {
    // Act
    const act = () => checkBackfillStart(fromMs, START);
    // Assess
    if (throws) expect(act).toThrow(BackfillRangeError);
    else expect(act).not.toThrow();
  });
});

describe('upgradeCursor', () => {
  it('turns a backfill held in `scan` by an earlier version into a pending backfill', () => {
    // Prepare
    const old = cursor({
      scan: {
        mode: 'backfill',
        fromdate: '',
        backfillFromMs: START - DAY,
        nextOffset: 9,
        startedAt: iso(START),
        pages: 1,
        records: 9,
      } as never,
    });
    // Act
    const upgraded = upgradeCursor(old);
    // Assess
    expect(upgraded.scan).toBeUndefined();
    expect(upgraded.backfillFrom).toBe(iso(START - DAY));
  });

  it('leaves any other cursor as it is', () => {
    // Prepare
    const given = cursor({ baselineDone: true, watermark: iso(WATERMARK) });
    // Act / Assess
    expect(upgradeCursor(given)).toBe(given);
  });
});
