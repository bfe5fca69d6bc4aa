/**
 * The state sources: snapshot, diff against the stored snapshot, and backfill events.
 * Snapshots go through a JSON round trip between steps, as they do through the state store.
 */
import { describe, expect, it } from 'vitest';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import type { ItemOf } from '../../../lambdas/gym-api/operations';
import type { ClubContext, StateSource } from '../../../lambdas/sources/source';
import { membersSource, prospectsSource } from '../../../lambdas/sources/state-sources';
import type { Snapshot } from '../../../lambdas/state/store';
import { member, prospect, sydney, utc } from './fixtures';

/** One poll of one record: the snapshot it leaves and the events the engine would publish. */
function step<T>(source: StateSource, item: T, previous?: Snapshot, ctx: ClubContext = sydney) {
  const s = source as unknown as StateSource & {
    identity: (i: T) => string | undefined;
    snapshot: (i: T, id: string, p: Snapshot | undefined, c: ClubContext) => Snapshot;
    diff: (p: Snapshot | undefined, i: T, n: Snapshot, c: ClubContext) => BridgeEvent[];
  };
  const id = s.identity(item);
  if (id === undefined) throw new Error('test record has no identity');
  const next = s.snapshot(item, id, previous, ctx);
  const stored = JSON.parse(JSON.stringify(next)) as Snapshot;
  return { next: stored, events: s.diff(previous, item, next, ctx) };
}

/** Runs records through the source in order, each diffed against the previous snapshot. */
function history<T>(source: StateSource, items: T[]) {
  let previous: Snapshot | undefined;
  return items.map((item) => {
    const result = step(source, item, previous);
    previous = result.next;
    return result;
  });
}

const types = (events: BridgeEvent[]) => events.map((e) => e.detailType);
const dataOf = (event: BridgeEvent) => (event.detail as { data?: Record<string, unknown> }).data ?? {};
type Member = ItemOf<'members'>;
const withContact = (m: Member, contact: Partial<NonNullable<Member['Contact']>>): Member => ({
  ...m,
  Contact: { ...m.Contact!, ...contact },
});
const cancelled = (date: string): Member =>
  member({ Membership: { ...member().Membership!, CancellationDate: date } });

describe('members: identity and record time', () => {
  it('identity is the member Number; undefined without one', () => {
    expect(membersSource.identity(member())).toBe('M100');
    expect(membersSource.identity(member({ Number: null }))).toBeUndefined();
    expect(membersSource.identity(member({ Number: undefined }))).toBeUndefined();
  });

  it('recordTime is LastUpdatedUtcDateTime (the updatedate filter field, UTC)', () => {
    expect(membersSource.recordTime?.(member())).toBe('2025-06-01T06:00:00');
    expect(membersSource.filterParam).toBe('updatedate');
    expect(membersSource.filterZone).toBe('utc');
  });
});

describe('members: transitions', () => {
  it('a member never seen -> Member Joined, at LastUpdatedUtcDateTime read as UTC', () => {
    const { events, next } = step(membersSource, member());
    expect(types(events)).toEqual([DETAIL_TYPES.MemberJoined]);
    expect(events[0]!.detail).toMatchObject({
      source: 'members',
      clubId: 'club-syd',
      occurredAt: '2025-06-01T06:00:00.000Z',
      observedAt: '2025-06-02T00:00:00.000Z',
      subject: { memberNumber: 'M100' },
      status: 'Active',
      membershipName: 'Gold 12 Month',
    });
    expect(events[0]!.detail).not.toHaveProperty('occurredAtLocal');
    expect(next).toMatchObject({ id: 'M100', fields: { status: 'Active', changes: 0 } });
  });

  it("minimal PII: the event's data has no email, phone, last name, barcode or birth date", () => {
    const event = step(membersSource, member()).events[0]!;
    const data = dataOf(event);
    expect(data).toMatchObject({ Number: 'M100', FirstName: 'Alex', Status: 'Active' });
    expect(data.Contact).toEqual({ OptOutEmail: false, OptOutSms: false, State: 'NSW' });
    for (const field of ['LastName', 'Barcode', 'DateOfBirth']) expect(data).not.toHaveProperty(field);
    expect(JSON.stringify(event)).not.toMatch(/alex@example\.com|0400 000 000/);

    const full = step(membersSource, member(), undefined, { ...sydney, piiPolicy: 'full' }).events[0]!;
    expect(dataOf(full)).toEqual(member());
  });

  it('a status change -> Member Status Changed with the previous and the new status', () => {
    const [, changed] = history(membersSource, [member(), member({ Status: 'PaymentIssue' })]);
    expect(types(changed!.events)).toEqual([DETAIL_TYPES.MemberStatusChanged]);
    expect(changed!.events[0]!.detail).toMatchObject({ previousStatus: 'Active', status: 'PaymentIssue' });
  });

  it('a first status after none has previousStatus null; losing the status is not an event', () => {
    const [, gained, lost] = history(membersSource, [
      member({ Status: null }),
      member({ Status: 'Active' }),
      member({ Status: null }),
    ]);
    expect(gained!.events[0]!.detail).toMatchObject({ previousStatus: null, status: 'Active' });
    expect(lost!.events).toEqual([]);
  });

  it('a cancellation date -> Membership Cancelled; a changed date is cancelled again', () => {
    const [, first, same, moved] = history(membersSource, [
      member(),
      cancelled('2025-07-01T00:00:00'),
      cancelled('2025-07-01T00:00:00'),
      cancelled('2025-08-01T00:00:00'),
    ]);
    expect(types(first!.events)).toEqual([DETAIL_TYPES.MembershipCancelled]);
    expect(first!.events[0]!.detail).toMatchObject({ cancellationDate: '2025-07-01T00:00:00' });
    expect(same!.events).toEqual([]);
    expect(types(moved!.events)).toEqual([DETAIL_TYPES.MembershipCancelled]);
    expect(moved!.events[0]!.detail.eventId).not.toBe(first!.events[0]!.detail.eventId);
  });

  it('an opt-out change -> Member Contact Preferences Changed with previous and current', () => {
    const [, optedOut] = history(membersSource, [member(), withContact(member(), { OptOutSms: true })]);
    expect(types(optedOut!.events)).toEqual([DETAIL_TYPES.MemberContactPreferencesChanged]);
    expect(optedOut!.events[0]!.detail).toMatchObject({
      previous: { optOutEmail: false, optOutSms: false },
      current: { optOutEmail: false, optOutSms: true },
    });
  });

  it('a new email address or name alone is not an event, and keeps the hash', () => {
    const [before, after] = history(membersSource, [
      member(),
      withContact(member({ FirstName: 'Lex', LastUpdatedUtcDateTime: '2025-06-01T07:00:00' }), {
        Email: 'new@example.com',
      }),
    ]);
    expect(after!.events).toEqual([]);
    expect(after!.next.hash).toBe(before!.next.hash);
    expect(after!.next.fields.changes).toBe(0);
  });

  it('unchanged -> no event and an equal hash', () => {
    const [first, second] = history(membersSource, [member(), member()]);
    expect(second!.events).toEqual([]);
    expect(second!.next.hash).toBe(first!.next.hash);
  });

  it('several changes at once -> one event each', () => {
    const [, changed] = history(membersSource, [
      member(),
      withContact(
        member({
          Status: 'Suspended',
          Membership: { ...member().Membership!, CancellationDate: '2025-07-01T00:00:00' },
        }),
        { OptOutEmail: true },
      ),
    ]);
    expect(types(changed!.events).sort()).toEqual(
      [
        DETAIL_TYPES.MemberStatusChanged,
        DETAIL_TYPES.MembershipCancelled,
        DETAIL_TYPES.MemberContactPreferencesChanged,
      ].sort(),
    );
  });

  it('A -> B -> A -> B: every transition has its own eventId; a replay has the same one', () => {
    const steps = history(membersSource, [
      member({ Status: 'Active' }),
      member({ Status: 'Suspended' }),
      member({ Status: 'Active' }),
      member({ Status: 'Suspended' }),
    ]);
    const ids = steps.slice(1).map((s) => s.events[0]!.detail.eventId);
    expect(new Set(ids).size).toBe(3);
    // A re-run of the same poll (state not yet committed) publishes the same id.
    const replay = step(membersSource, member({ Status: 'Suspended' }), steps[2]!.next);
    expect(replay.events[0]!.detail.eventId).toBe(ids[2]);
    expect(steps.map((s) => s.next.fields.changes)).toEqual([0, 1, 2, 3]);
  });
});

describe('members: backfill', () => {
  const next = step(membersSource, member()).next;
  // StartDate 2025-05-01T00:00:00 in Sydney (AEST +10) is 2025-04-30T14:00:00Z.
  const startInstant = utc('2025-04-30T14:00:00Z');

  it('Member Joined when the membership started at or after the backfill start (local time)', () => {
    expect(types(membersSource.backfillEvents!(member(), next, sydney, startInstant))).toEqual([
      DETAIL_TYPES.MemberJoined,
    ]);
    expect(membersSource.backfillEvents!(member(), next, sydney, startInstant + 1)).toEqual([]);
    // Read as UTC, the start would be 10 hours later and wrongly included.
    expect(membersSource.backfillEvents!(member(), next, sydney, startInstant + 3_600_000)).toEqual([]);
  });

  it('a daylight-time start date uses +11', () => {
    const summer = member({ Membership: { ...member().Membership!, StartDate: '2025-01-15T00:00:00' } });
    const at = utc('2025-01-14T13:00:00Z');
    expect(membersSource.backfillEvents!(summer, next, sydney, at)).toHaveLength(1);
    expect(membersSource.backfillEvents!(summer, next, sydney, at + 1)).toEqual([]);
  });

  it('no membership, no event', () => {
    expect(membersSource.backfillEvents!(member({ Membership: null }), next, sydney, 0)).toEqual([]);
  });

  it('the backfill Joined event has the same id as the live one', () => {
    const live = step(membersSource, member()).events[0]!;
    const backfilled = membersSource.backfillEvents!(member(), next, sydney, startInstant)[0]!;
    expect(backfilled.detail.eventId).toBe(live.detail.eventId);
  });
});

describe('prospects', () => {
  it('identity is the prospect Number; undefined without one; no record time', () => {
    expect(prospectsSource.identity(prospect())).toBe('P200');
    expect(prospectsSource.identity(prospect({ Number: null }))).toBeUndefined();
    expect(prospectsSource.recordTime).toBeUndefined();
  });

  it('a prospect never seen -> Prospect Created at CreatedDateUtc read as UTC', () => {
    const { events } = step(prospectsSource, prospect());
    expect(types(events)).toEqual([DETAIL_TYPES.ProspectCreated]);
    expect(events[0]!.detail).toMatchObject({
      source: 'prospects',
      occurredAt: '2025-06-01T06:00:00.000Z',
      subject: { prospectNumber: 'P200' },
      status: 'Enquiry',
    });
    expect(JSON.stringify(events[0])).not.toContain('sam@example.com');
  });

  it('without CreatedDateUtc, created when observed', () => {
    const { events } = step(prospectsSource, prospect({ CreatedDateUtc: null }));
    expect(events[0]!.detail.occurredAt).toBe('2025-06-02T00:00:00.000Z');
  });

  it('a status change -> Prospect Status Changed; unchanged or lost status -> nothing', () => {
    const [first, toured, same, lost] = history(prospectsSource, [
      prospect(),
      prospect({ Status: 'Tour' }),
      prospect({ Status: 'Tour', FirstName: 'Samuel' }),
      prospect({ Status: null }),
    ]);
    expect(types(toured!.events)).toEqual([DETAIL_TYPES.ProspectStatusChanged]);
    expect(toured!.events[0]!.detail).toMatchObject({
      previousStatus: 'Enquiry',
      status: 'Tour',
      occurredAt: '2025-06-02T00:00:00.000Z',
    });
    expect(same!.events).toEqual([]);
    expect(same!.next.hash).toBe(toured!.next.hash);
    expect(same!.next.hash).not.toBe(first!.next.hash);
    expect(lost!.events).toEqual([]);
  });

  it('A -> B -> A -> B: distinct eventIds', () => {
    const steps = history(
      prospectsSource,
      ['Tour', 'OnTrial', 'Tour', 'OnTrial'].map((s) => prospect({ Status: s })),
    );
    const ids = steps.slice(1).map((s) => s.events[0]!.detail.eventId);
    expect(new Set(ids).size).toBe(3);
  });

  it('backfill: Prospect Created only when CreatedDateUtc (UTC) >= the backfill start', () => {
    const next = step(prospectsSource, prospect()).next;
    const created = utc('2025-06-01T06:00:00Z');
    expect(types(prospectsSource.backfillEvents!(prospect(), next, sydney, created))).toEqual([
      DETAIL_TYPES.ProspectCreated,
    ]);
    expect(prospectsSource.backfillEvents!(prospect(), next, sydney, created + 1)).toEqual([]);
    expect(prospectsSource.backfillEvents!(prospect({ CreatedDateUtc: null }), next, sydney, 0)).toEqual([]);
  });
});
