/**
 * What an hourly evaluation reads (docs/lifecycle.md, "What an evaluation reads"), on the memory
 * store with a session of its own: the noted subjects, and the visits since the base, or back to
 * a late visit noted since the base until the next rebase (its fold may change a last visit alone,
 * which the delta does not keep).
 */

import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { HOUR_MS } from '../../../lambdas/common/time-units';
import { MemorySink } from '../../../lambdas/events/publisher';
import {
  evaluationHourOf,
  evaluationHourStartMs,
  type LifecycleReport,
  lifecycleSlot,
  runClubLifecycle,
} from '../../../lambdas/lifecycle/club-lifecycle';
import { type Cursor, MemoryStateStore, newCursor } from '../../../lambdas/state';
import { addNotes, type LifecycleNotes } from '../../../lambdas/state/lifecycle-notes';
import { openSession } from '../../support/state-seeds';

const CLUB: ClubConfig = {
  clubId: 'club-1',
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'UTC',
  plan: 'basic',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: true,
  sources: ['members', 'visits'],
  lifecycle: { enabled: true, inactiveDays: 1, expiringDays: 14, trialEndingHours: 24 },
};
/** A start in the club's rebase slot hour (`lifecycleSlot`, club-lifecycle.ts): it rebases every 12 hours from it. */
const T0 = (() => {
  const near = evaluationHourOf(CLUB.clubId, Date.parse('2026-05-04T12:00:00Z'));
  return evaluationHourStartMs(CLUB.clubId, near - (near % 12) + lifecycleSlot(CLUB.clubId).rebaseHour);
})();
const cursors: Cursor[] = (['members', 'visits'] as const).map((s) => ({
  ...newCursor(CLUB.clubId, s),
  baselineDone: true,
  version: 1,
}));
const poll = {
  polled: new Set(['members', 'visits'] as const),
  completed: new Set(['members', 'visits'] as const),
};

const iso = (ms: number) => new Date(ms).toISOString();

/** The session's part the evaluation uses, kept across polls as the club state item would be. */
class Session {
  hour: number | undefined;
  notes: LifecycleNotes = {};
  lifecycleHour = () => this.hour;
  markLifecycleHour = (hour: number) => {
    this.hour = hour;
  };
  lifecycleNotes = () => this.notes;
  clearLifecycleNotes = () => {
    this.notes = {};
  };
  noteLifecycle = (more: LifecycleNotes) => {
    this.notes = addNotes(this.notes, more);
  };
}
/** An API with no visits: the first evaluation's history read finds none. */
const api = { client: { pages: async function* () {} }, deadlineMs: Number.MAX_SAFE_INTEGER };

describe('the reads of an hourly evaluation', () => {
  it('reads a late visit again until the rebase, so a last visit it alone moved is not forgotten', async () => {
    // Prepare: member 1, Active; tracking begins at T0, the member visits an hour later.
    const memory = new MemoryStateStore();
    const store = await openSession(memory, CLUB.clubId);
    const session = new Session();
    const sink = new MemorySink();
    const fields = { status: 'Active', startDate: '2024-01-01T00:00:00' };
    await memory.parts.snapshots.putSnapshots(CLUB.clubId, 'MEMBER', [
      { id: '1', hash: 'h', fields, updatedAt: 'u' },
    ]);
    const visit = async (atMs: number) => {
      const at = new Date(atMs).toISOString();
      await memory.parts.seen.putSeenAt(
        CLUB.clubId,
        'visits',
        [{ fingerprint: `v${atMs}`, at, memo: '1' }],
        4e9,
      );
      session.notes = addNotes(session.notes, { visitsFromMs: atMs });
    };
    const evaluate = async (hour: number) => {
      const nowMs = T0 + hour * HOUR_MS;
      const report = await runClubLifecycle({ store, sink, session, nowMs, poll, api }, CLUB, cursors);
      return report as Extract<LifecycleReport, { outcome: 'evaluated' }>;
    };
    const reads: string[] = [(await evaluate(0)).read];
    await visit(T0 + HOUR_MS);
    for (let h = 1; h <= 24; h++) reads.push((await evaluate(h)).read);

    // Act: after the rebase at T0 + 24 h (its base: last visit T0 + 1 h, a lapse due at T0 + 25 h),
    // a visit of T0 + 10 h is filed late: older than the visits re-read from the base (T0 + 21 h).
    await visit(T0 + 10 * HOUR_MS);
    const before: number[] = [];
    for (let h = 25; h <= 33; h++) {
      const report = await evaluate(h);
      reads.push(report.read);
      before.push(report.published);
    }
    const due = await evaluate(34);

    // Assess: the late visit moves the lapse to T0 + 34 h, through every evaluation until then.
    const run = <T>(value: T, n: number): T[] => Array.from({ length: n }, () => value);
    expect(reads).toEqual([
      'all',
      ...run('noted', 11),
      'all',
      ...run('noted', 11),
      'all',
      ...run('noted', 9),
    ]);
    expect(before).toEqual(run(0, 9));
    expect(due.published).toBe(1);
    const detail = (e: (typeof sink.events)[number]) => e.detail as { lastVisitAt?: string };
    expect(sink.events.map((e) => [e.detailType, detail(e).lastVisitAt])).toEqual([
      ['Member Inactive', expect.stringMatching(new RegExp(`^${iso(T0 + 10 * HOUR_MS).slice(0, 16)}`))],
    ]);
  });
});
