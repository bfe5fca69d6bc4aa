/**
 * A backfill's Member Joined / Prospect Created re-use the eventId of the announcement a regular
 * poll published (or would have, after a silent baseline), also when the subject's status changed
 * since: snapshots carry the status the subject was first seen with (`firstStatus`), and the
 * engine hands the backfill the snapshot built on the stored one.
 */
import { describe, expect, it } from 'vitest';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import type { ClubContext, StateSource } from '../../../lambdas/sources/source';
import { membersSource, prospectsSource } from '../../../lambdas/sources/state-sources';
import type { Snapshot } from '../../../lambdas/state/store';
import { member, prospect, sydney } from './fixtures';

/** What the engine does with one record: the snapshot on top of the stored one, and the live diff. */
function step<T>(source: StateSource, item: T, previous?: Snapshot, ctx: ClubContext = sydney) {
  const s = source as unknown as {
    identity: (i: T) => string | undefined;
    snapshot: (i: T, id: string, p: Snapshot | undefined, c: ClubContext) => Snapshot;
    diff: (p: Snapshot | undefined, i: T, n: Snapshot, c: ClubContext) => BridgeEvent[];
    backfillEvents: (i: T, n: Snapshot, c: ClubContext, from: number) => BridgeEvent[];
  };
  const next = JSON.parse(JSON.stringify(s.snapshot(item, s.identity(item)!, previous, ctx))) as Snapshot;
  return {
    next,
    live: s.diff(previous, item, next, ctx),
    backfill: (from = 0) => s.backfillEvents(item, next, ctx, from),
  };
}

const statusOf = (e: BridgeEvent) => (e.detail as { status?: string }).status;

describe('backfill announcements re-use the regular eventIds', () => {
  it('Member Joined: joined Active, now PaymentIssue -> the id (and status) of the Active announcement', () => {
    const joined = step(membersSource, member({ Status: 'Active' }));
    const moved = step(membersSource, member({ Status: 'PaymentIssue' }), joined.next);
    const again = step(membersSource, member({ Status: 'Active' }), moved.next);
    expect(joined.next.fields.firstStatus).toBe('Active');
    expect(moved.next.fields.firstStatus).toBe('Active');
    const announced = joined.live[0]!;
    for (const later of [moved, again]) {
      const [event] = later.backfill();
      expect(event!.detail.eventId).toBe(announced.detail.eventId);
      expect(statusOf(event!)).toBe('Active');
    }
  });

  it('Prospect Created: created Tour, now OnTrial -> the id of the Tour announcement', () => {
    const created = step(prospectsSource, prospect({ Status: 'Tour' }));
    const moved = step(prospectsSource, prospect({ Status: 'OnTrial' }), created.next);
    expect(moved.backfill()[0]!.detail.eventId).toBe(created.live[0]!.detail.eventId);
  });

  it('a subject never seen: the backfill announces what the next regular poll would', () => {
    const first = step(membersSource, member({ Status: 'Suspended' }));
    expect(first.backfill()[0]!.detail.eventId).toBe(first.live[0]!.detail.eventId);
  });

  it('a member first seen without a status keeps announcing none', () => {
    const joined = step(membersSource, member({ Status: null }));
    const moved = step(membersSource, member({ Status: 'Active' }), joined.next);
    expect(joined.next.fields.firstStatus).toBeNull();
    expect(moved.backfill()[0]!.detail.eventId).toBe(joined.live[0]!.detail.eventId);
    expect(statusOf(moved.backfill()[0]!)).toBeUndefined();
  });

  it('snapshots stored before firstStatus: their status if they never changed, else the current one', () => {
    const legacy = (status: string, changes: number): Snapshot => {
      const s = step(membersSource, member({ Status: status })).next;
      const { firstStatus: _dropped, ...fields } = s.fields;
      return { ...s, fields: { ...fields, changes } };
    };
    const unchanged = step(membersSource, member({ Status: 'PaymentIssue' }), legacy('Active', 0));
    expect(unchanged.next.fields.firstStatus).toBe('Active');
    expect(unchanged.backfill()[0]!.detail.eventId).toBe(
      step(membersSource, member({ Status: 'Active' })).live[0]!.detail.eventId,
    );
    // Changed before: the first status is unknown, and stays unknown in later snapshots.
    const changed = step(membersSource, member({ Status: 'PaymentIssue' }), legacy('Active', 2));
    expect('firstStatus' in changed.next.fields).toBe(false);
    expect(statusOf(changed.backfill()[0]!)).toBe('PaymentIssue');
  });
});
