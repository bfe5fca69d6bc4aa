/**
 * The state sources: each record is compared with its stored snapshot and the transitions between
 * the two become events. Polling sees states, not history: a status that changes and changes back
 * between two polls is invisible (README: guarantees).
 */

import { createHash } from 'node:crypto';
import type { Snapshot } from '../common/subject-snapshot';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../common/time-units';
import type { BridgeEvent } from '../events/catalog';
import { DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { ItemOf } from '../gym-api/operations';
import { envelopeFor, toInstant } from './record-time';
import type { ClubContext, StateSource } from './source';

type Member = ItemOf<'members'>;
type Prospect = ItemOf<'prospects'>;

function hashOf(fields: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 24);
}

/**
 * The status a snapshot holds. Joined and Created report it (not the record's): the engine may
 * publish again, from a stored intent, what an earlier poll announced while the record moved on.
 */
const statusOf = (s: Snapshot) => (typeof s.fields.status === 'string' ? s.fields.status : undefined);

/** Number of transitions seen so far: part of each transition's eventId, so A->B->A->B gets new ids. */
const changesOf = (s: Snapshot | undefined) => (typeof s?.fields.changes === 'number' ? s.fields.changes : 0);

/**
 * The status the subject was first seen with (null: none), carried from snapshot to snapshot: the
 * status its Joined or Created announced, or would have (a baseline is silent). An explicit
 * backfill announces that status again, so its event has the id of the one a regular poll
 * published. Snapshots stored before this field existed: their status when they never changed,
 * otherwise unknown (undefined: the backfill then uses the current status).
 */
function firstStatusOf(status: unknown, previous: Snapshot | undefined): string | null | undefined {
  const known = (v: unknown) => (typeof v === 'string' || v === null ? v : undefined);
  if (!previous) return known(status) ?? null;
  if ('firstStatus' in previous.fields) return known(previous.fields.firstStatus);
  return changesOf(previous) === 0 ? known(previous.fields.status) : undefined;
}

/** The status a subject's Joined/Created announces: the first one it was seen with, when known. */
const announcedStatus = (s: Snapshot) => {
  const first = s.fields.firstStatus;
  if (first === null) return undefined;
  return typeof first === 'string' ? first : statusOf(s);
};

function makeSnapshot(
  id: string,
  tracked: Record<string, unknown>,
  previous: Snapshot | undefined,
  ctx: ClubContext,
) {
  const hash = hashOf(tracked);
  const changes = previous && previous.hash !== hash ? changesOf(previous) + 1 : changesOf(previous);
  const firstStatus = firstStatusOf(tracked.status, previous);
  return {
    id,
    hash,
    fields: { ...tracked, changes, ...(firstStatus === undefined ? {} : { firstStatus }) },
    updatedAt: new Date(ctx.observedAtMs).toISOString(),
  };
}

/**
 * What a member snapshot tracks: the fields whose change is an event, and the membership dates the
 * lifecycle rules read (docs/lifecycle.md; a change of those alone is recorded, not announced).
 */
const memberTracked = (m: Member) => ({
  status: m.Status ?? null,
  cancellationDate: m.Membership?.CancellationDate ?? null,
  optOutEmail: m.Contact?.OptOutEmail ?? null,
  optOutSms: m.Contact?.OptOutSms ?? null,
  startDate: m.Membership?.StartDate ?? null,
  expiryDate: m.Membership?.ExpiryDate ?? null,
  minimumTermDate: m.Membership?.MinimumTermDate ?? null,
});

/**
 * The record as of the state an event announces. A poll that lost its lease after storing its
 * intent leaves the states it was about to publish; the next poll publishes them again with the
 * record it reads then, which may have moved on. The event's `data` takes the announced state's
 * tracked fields (status, cancellation date, contact preferences), so a Joined published late does
 * not carry preferences a later Contact Preferences Changed says it changed from. Fields equal to
 * the record's (or absent from an older snapshot) leave the record untouched.
 */
function memberAsOf(m: Member, state: Snapshot): Member {
  const now = memberTracked(m);
  const f = state.fields;
  const differs = (k: keyof typeof now) => k in f && f[k] !== now[k];
  if (!(['status', 'cancellationDate', 'optOutEmail', 'optOutSms'] as const).some(differs)) return m;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
  return {
    ...m,
    ...(differs('status') ? { Status: str(f.status) } : {}),
    ...(differs('cancellationDate')
      ? { Membership: { ...m.Membership, CancellationDate: str(f.cancellationDate) } as Member['Membership'] }
      : {}),
    ...(differs('optOutEmail') || differs('optOutSms')
      ? {
          // A record that no longer has a contact keeps the preferences only (no Email to carry).
          Contact: {
            ...m.Contact,
            OptOutEmail: bool(f.optOutEmail),
            OptOutSms: bool(f.optOutSms),
          } as Member['Contact'],
        }
      : {}),
  };
}

function memberEnvelope(m: Member, id: string, identity: string[], ctx: ClubContext) {
  return envelopeFor(
    ctx,
    [id, ...identity],
    { value: m.LastUpdatedUtcDateTime, zone: 'utc' },
    { memberNumber: id },
  );
}

/**
 * Joined and Created carry the status of the snapshot they announce, and so does their id: an
 * announcement in another status is another event, never one a consumer would drop as a duplicate.
 */
function memberJoined(m: Member, next: Snapshot, ctx: ClubContext): BridgeEvent {
  const status = announcedStatus(next);
  return createEvent(DETAIL_TYPES.MemberJoined, memberEnvelope(m, next.id, ['joined', status ?? ''], ctx), {
    data: memberAsOf(m, next),
    ...(status ? { status } : {}),
    ...(m.Membership?.Name ? { membershipName: m.Membership.Name } : {}),
  });
}

/**
 * Membership Cancelled when the snapshot's cancellation date is set and differs from the one before
 * (none for a member never seen). Its id is the date, not the transition number: the same
 * cancellation seen by a first sighting or by a later diff is one event.
 */
function memberCancelled(m: Member, before: Snapshot | undefined, next: Snapshot, ctx: ClubContext) {
  const date = next.fields.cancellationDate;
  if (typeof date !== 'string' || before?.fields.cancellationDate === date) return [];
  return [
    createEvent(DETAIL_TYPES.MembershipCancelled, memberEnvelope(m, next.id, ['cancelled', date], ctx), {
      data: memberAsOf(m, next),
      cancellationDate: date,
    }),
  ];
}

export const membersSource: StateSource<'members'> = {
  kind: 'state',
  name: 'members',
  operation: 'members',
  snapshotKind: 'MEMBER',
  // Every change to a member moves LastUpdatedUtcDateTime, so `updatedate` finds all changes.
  filterParam: 'updatedate',
  filterZone: 'utc',
  recordTime: (m) => m.LastUpdatedUtcDateTime,
  tailLookbackMs: 15 * MINUTE_MS,
  identity: (m) => m.Number ?? undefined,
  snapshot: (m, mid, previous, ctx) => makeSnapshot(mid, memberTracked(m), previous, ctx),
  diff: (previous, m, next, ctx) => {
    // A member first seen already cancelled (joined and cancelled between two polls): the
    // cancellation date is part of the state this poll sees, so it is announced too. Its snapshot
    // holds the date, so no later diff would ever announce it.
    if (!previous) return [memberJoined(m, next, ctx), ...memberCancelled(m, undefined, next, ctx)];
    const before = previous.fields;
    const now = next.fields;
    // Transition number plus the new value: a poll that published and crashed before its commit
    // may next see a later value (A -> B published, then A -> C): that is another change, and must
    // not reuse the id a consumer de-duplicates on.
    const seq = String(changesOf(previous) + 1);
    const events: BridgeEvent[] = [];
    if (before.status !== now.status && typeof now.status === 'string') {
      events.push(
        createEvent(
          DETAIL_TYPES.MemberStatusChanged,
          memberEnvelope(m, next.id, ['status', seq, now.status], ctx),
          {
            data: memberAsOf(m, next),
            previousStatus: typeof before.status === 'string' ? before.status : null,
            status: now.status,
          },
        ),
      );
    }
    events.push(...memberCancelled(m, previous, next, ctx));
    if (before.optOutEmail !== now.optOutEmail || before.optOutSms !== now.optOutSms) {
      const prefs = (f: Record<string, unknown>) => ({
        optOutEmail: typeof f.optOutEmail === 'boolean' ? f.optOutEmail : null,
        optOutSms: typeof f.optOutSms === 'boolean' ? f.optOutSms : null,
      });
      events.push(
        createEvent(
          DETAIL_TYPES.MemberContactPreferencesChanged,
          memberEnvelope(m, next.id, ['contact', seq, `${now.optOutEmail},${now.optOutSms}`], ctx),
          { data: memberAsOf(m, next), previous: prefs(before), current: prefs(now) },
        ),
      );
    }
    return events;
  },
  backfillEvents: (m, next, ctx, fromMs) => {
    const start = m.Membership?.StartDate;
    return start && toInstant(start, 'local', ctx) >= fromMs ? [memberJoined(m, next, ctx)] : [];
  },
};

/** The prospect as of the state an event announces (see memberAsOf). */
function prospectAsOf(p: Prospect, state: Snapshot): Prospect {
  const f = state.fields;
  if (!('status' in f) || f.status === (p.Status ?? null)) return p;
  return { ...p, Status: typeof f.status === 'string' ? f.status : null };
}

function prospectCreated(p: Prospect, next: Snapshot, ctx: ClubContext): BridgeEvent {
  const pid = next.id;
  const status = announcedStatus(next);
  return createEvent(
    DETAIL_TYPES.ProspectCreated,
    envelopeFor(
      ctx,
      [pid, 'created', status ?? ''],
      { value: p.CreatedDateUtc, zone: 'utc' },
      { prospectNumber: pid },
    ),
    { data: prospectAsOf(p, next), ...(status ? { status } : {}) },
  );
}

export const prospectsSource: StateSource<'prospects'> = {
  kind: 'state',
  name: 'prospects',
  operation: 'prospects',
  snapshotKind: 'PROSPECT',
  // fromdate filters by the last status update, a field the response does not carry, in a zone the
  // seed does not state: the watermark is the scan's start; an hour of lookback absorbs late updates
  // and clock skew, a day while the club's reading of the zone is not confirmed.
  filterParam: 'fromdate',
  filterZone: 'unstated',
  tailLookbackMs: HOUR_MS,
  unconfirmedZoneLookbackMs: DAY_MS,
  identity: (p) => p.Number ?? undefined,
  // The trial end is kept for the lifecycle rules (a change of it alone is recorded, not announced).
  snapshot: (p, pid, previous, ctx) =>
    makeSnapshot(pid, { status: p.Status ?? null, trialEndDate: p.TrialEndDate ?? null }, previous, ctx),
  diff: (previous, p, next, ctx) => {
    if (!previous) return [prospectCreated(p, next, ctx)];
    if (previous.fields.status === next.fields.status || typeof next.fields.status !== 'string') return [];
    return [
      createEvent(
        DETAIL_TYPES.ProspectStatusChanged,
        envelopeFor(
          ctx,
          [next.id, 'status', String(changesOf(previous) + 1), next.fields.status],
          { occurredAtMs: ctx.observedAtMs },
          { prospectNumber: next.id },
        ),
        {
          data: prospectAsOf(p, next),
          previousStatus: typeof previous.fields.status === 'string' ? previous.fields.status : null,
          status: next.fields.status,
        },
      ),
    ];
  },
  backfillEvents: (p, next, ctx, fromMs) =>
    p.CreatedDateUtc && toInstant(p.CreatedDateUtc, 'utc', ctx) >= fromMs
      ? [prospectCreated(p, next, ctx)]
      : [],
};
