import { describe, expect, it } from 'vitest';
import {
  cursorAfterBackfill,
  cursorAfterRegularScan,
  nextWatermark,
  type ScanResult,
} from '../../../../lambdas/engine/cursor/cursor-life';
import type { EngineScan, ScanMode, SourceOutcome } from '../../../../lambdas/engine/scan/scan-types';
import { SOURCES } from '../../../../lambdas/sources';
import { ctx, cursor, DAY, HOUR, START } from './scan-fixtures';

const visits = SOURCES.visits;
const iso = (ms: number) => new Date(ms).toISOString();
const scanOf = (mode: ScanMode, extra: Partial<EngineScan> = {}): EngineScan => ({
  mode,
  fromdate: '',
  nextOffset: 0,
  startedAt: iso(START),
  pages: 0,
  records: 0,
  ...extra,
});
const result = (outcome: SourceOutcome, scan: EngineScan, maxRecordMs?: number): ScanResult => ({
  scan,
  outcome,
  maxRecordMs,
  pages: 2,
  records: 10,
  events: 3,
  quarantined: 1,
  attempts: 1,
});

describe('nextWatermark', () => {
  it.each([
    {
      name: 'the highest record time',
      mode: 'tail',
      current: undefined,
      max: START - 10 * 60_000,
      want: START - 10 * 60_000,
    },
    { name: 'capped at the scan start', mode: 'tail', current: undefined, max: START + HOUR, want: START },
    {
      name: 'never below start minus lookback (a quiet source moves on)',
      mode: 'tail',
      current: undefined,
      max: undefined,
      want: START - visits.tailLookbackMs,
    },
    {
      name: 'a baseline moves to its start',
      mode: 'baseline',
      current: undefined,
      max: START - DAY,
      want: START,
    },
    { name: 'never backwards', mode: 'tail', current: START - 1000, max: START - HOUR, want: START - 1000 },
  ] as const)('$name', ({ mode, current, max, want }) => {
    // Act
    const watermark = nextWatermark(
      current === undefined ? undefined : iso(current),
      { scan: scanOf(mode), maxRecordMs: max },
      visits,
      ctx,
    );
    // Assess
    expect(watermark).toBe(iso(want));
  });

  it('a source without record times uses the scan start', () => {
    // Prepare
    const { recordTime: _none, ...untimed } = visits;
    // Act / Assess
    expect(nextWatermark(undefined, { scan: scanOf('tail'), maxRecordMs: START - DAY }, untimed, ctx)).toBe(
      iso(START),
    );
  });
});

describe('cursorAfterRegularScan', () => {
  const before = cursor({
    baselineDone: true,
    watermark: iso(START - 2 * HOUR),
    scan: scanOf('tail'),
    health: { consecutiveFailures: 2, lastError: { kind: 'api', message: 'x', at: iso(START - HOUR) } },
    stats: { totalEvents: 5, lastSweepAtMs: 1 },
  });

  it.each([
    { outcome: 'completed', watermarkMoves: true, scanKept: false, success: true, error: undefined },
    { outcome: 'partial', watermarkMoves: false, scanKept: true, success: true, error: 'api' },
    {
      outcome: 'incomplete',
      watermarkMoves: false,
      scanKept: false,
      success: false,
      error: 'incomplete-scan',
    },
  ] as const)(
    '$outcome: watermark moves $watermarkMoves, scan kept $scanKept',
    ({ outcome, watermarkMoves, scanKept, success, error }) => {
      // Act
      const next = cursorAfterRegularScan(
        before,
        result(outcome, scanOf('tail'), START - HOUR),
        visits,
        ctx,
        START,
      );
      // Assess
      expect(next.watermark).toBe(watermarkMoves ? iso(START - HOUR) : before.watermark);
      expect(next.scan !== undefined).toBe(scanKept);
      expect(next.health.lastPollAt).toBe(iso(START));
      expect(next.health.lastSuccessAt).toBe(success ? iso(START) : undefined);
      expect(next.health.lastError?.kind).toBe(error);
      expect(next.stats).toMatchObject({
        lastPages: 2,
        lastRecords: 10,
        lastEvents: 3,
        totalEvents: 8,
        totalQuarantined: 1,
      });
    },
  );

  it.each([
    { mode: 'sweep', sweepAt: START },
    { mode: 'baseline', sweepAt: START },
    { mode: 'tail', sweepAt: 1 },
  ] as const)('a completed $mode sets the sweep time to $sweepAt', ({ mode, sweepAt }) => {
    // Act
    const next = cursorAfterRegularScan(
      before,
      result('completed', scanOf(mode), START - HOUR),
      visits,
      ctx,
      START,
    );
    // Assess
    expect(next.stats?.lastSweepAtMs).toBe(sweepAt);
  });

  it("marks a whole sweep of a source with a paid window, and keeps a paid sweep's rows apart", () => {
    // Prepare: payment history (10 days hourly, the paid sweeps 6 days)
    const payments = SOURCES.paymentHistory;
    const done = (scan: EngineScan) =>
      cursorAfterRegularScan(before, result('completed', scan, START - HOUR), payments, ctx, START);
    // Act
    const whole = done(scanOf('sweep'));
    const paid = done(scanOf('sweep', { paid: true }));
    const ofVisits = cursorAfterRegularScan(
      before,
      result('completed', scanOf('sweep'), START - HOUR),
      visits,
      ctx,
      START,
    );
    // Assess: both are sweeps; only the whole one marks the whole window and sets its rows
    expect(whole.stats).toMatchObject({ lastSweepAtMs: START, lastWholeSweepAtMs: START, sweepRows: 10 });
    expect(paid.stats).toMatchObject({ lastSweepAtMs: START, paidSweepRows: 10 });
    expect(paid.stats?.lastWholeSweepAtMs).toBeUndefined();
    expect(paid.stats?.sweepRows).toBeUndefined();
    expect(ofVisits.stats?.lastWholeSweepAtMs).toBeUndefined();
  });

  it('does not change the cursor it is given', () => {
    // Prepare
    const copy = structuredClone(before);
    // Act
    cursorAfterRegularScan(before, result('completed', scanOf('tail'), START), visits, ctx, START);
    // Assess
    expect(before).toEqual(copy);
  });
});

describe('cursorAfterBackfill', () => {
  const from = START - 3 * DAY;
  const before = cursor({
    baselineDone: true,
    watermark: iso(START - HOUR),
    scan: scanOf('tail'),
    backfillFrom: iso(from),
    backfillScan: scanOf('backfill', { backfillFromMs: from }),
    health: { consecutiveFailures: 0, lastSuccessAt: iso(START - HOUR) },
    stats: { lastSweepAtMs: 7, lastPages: 4 },
  });

  it.each([
    { outcome: 'completed', pending: false, progress: false },
    { outcome: 'partial', pending: true, progress: true },
    { outcome: 'incomplete', pending: true, progress: false },
  ] as const)(
    '$outcome: pending $pending, progress kept $progress; the regular fields untouched',
    ({ outcome, pending, progress }) => {
      // Act
      const next = cursorAfterBackfill(before, result(outcome, scanOf('backfill', { backfillFromMs: from })));
      // Assess
      expect(next.backfillFrom !== undefined).toBe(pending);
      expect(next.backfillScan !== undefined).toBe(progress);
      expect(next.watermark).toBe(before.watermark);
      expect(next.scan).toEqual(before.scan);
      expect(next.health).toEqual(before.health);
      expect(next.stats).toMatchObject({
        lastSweepAtMs: 7,
        lastPages: 4,
        lastBackfillPages: 2,
        totalEvents: 3,
      });
      if (outcome === 'completed')
        expect(next.stats).toMatchObject({ lastBackfillAtMs: START, lastBackfillFromMs: from });
    },
  );
});
