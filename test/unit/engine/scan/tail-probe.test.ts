import { describe, expect, it } from 'vitest';
import {
  cursorAfterProbe,
  cursorWithoutProbes,
  plannedProbe,
  tailCountOf,
  withTailCount,
} from '../../../../lambdas/engine/scan/tail-probe';
import { SOURCES } from '../../../../lambdas/sources';
import { type Cursor, newCursor } from '../../../../lambdas/state';

const MINUTE = 60_000;
const T = Date.parse('2026-05-04T10:00:00Z');
const ctx = {
  clubId: 'club-1',
  timeZone: 'UTC',
  unstatedZone: 'local' as const,
  unstatedZoneConfirmed: true,
  piiPolicy: 'minimal' as const,
};
const counted = (over: Partial<Cursor> = {}, fullAtMs = T - 5 * MINUTE): Cursor =>
  withTailCount(
    {
      ...newCursor('club-1', 'disbursements'),
      baselineDone: true,
      version: 3,
      watermark: '2026-05-04T09:55:00.000Z',
      stats: { lastSweepAtMs: T - 60 * MINUTE },
      ...over,
    },
    { fromMs: T - 33 * 60 * MINUTE, rows: 412, fullAtMs },
  );

describe('plannedProbe', () => {
  it('probes past the counted rows with the counted tail filter', () => {
    const probe = plannedProbe(counted(), SOURCES.disbursements, ctx, T);
    expect(probe).toMatchObject({ mode: 'tail', nextOffset: 412, fromdate: '2026-05-03T01:00:00' });
  });

  it('reads the tail instead: a source without probes, no count, a stale count, a pending backfill, a sweep due, probes off', () => {
    expect(plannedProbe(counted(), SOURCES.posTransactions, ctx, T)).toBeUndefined();
    expect(plannedProbe(withTailCount(counted(), undefined), SOURCES.disbursements, ctx, T)).toBeUndefined();
    expect(plannedProbe(counted({}, T - 15 * MINUTE), SOURCES.disbursements, ctx, T)).toBeUndefined();
    expect(plannedProbe(counted({}, T + MINUTE), SOURCES.disbursements, ctx, T)).toBeUndefined();
    const backfill = counted({ backfillFrom: '2026-05-01T00:00:00.000Z' });
    expect(plannedProbe(backfill, SOURCES.disbursements, ctx, T)).toBeUndefined();
    const sweepDue = counted({ stats: { lastSweepAtMs: T - 7 * 60 * MINUTE } });
    expect(plannedProbe(sweepDue, SOURCES.disbursements, ctx, T)).toBeUndefined();
    expect(plannedProbe(cursorWithoutProbes(counted()), SOURCES.disbursements, ctx, T)).toBeUndefined();
  });
});

describe('the cursor around a probe', () => {
  it('keeps the count in stats, drops it with probes off, and a probe is a successful poll', () => {
    const c = counted({
      health: { consecutiveFailures: 2, lastError: { kind: 'server', message: 'x', at: 'y' } },
    });
    expect(tailCountOf(c)).toEqual({ fromMs: T - 33 * 60 * MINUTE, rows: 412, fullAtMs: T - 5 * MINUTE });
    expect(tailCountOf(cursorWithoutProbes(c))).toBeUndefined();
    const after = cursorAfterProbe(c, T);
    expect(after.health).toMatchObject({ consecutiveFailures: 0, lastPollAt: '2026-05-04T10:00:00.000Z' });
    expect(after.health.lastError).toBeUndefined();
    expect(after.watermark).toBe(c.watermark);
    expect(tailCountOf(after)).toEqual(tailCountOf(c));
  });
});
