/**
 * What the bridge knows of one subject (a member, a prospect or a payment) of one club, read from
 * the state table: the snapshot it compares with and since when, an intent a poll left, the events
 * last published for it and by which poll, its payments (./payment-facts.ts), quarantined records
 * that name it, and the state of the source that would see its next change; and which kinds of
 * events the table keeps per subject at all (`KEPT`): the others, a visit for one, are filed by a
 * hash of their record, so their absence here says nothing. No eventId is given for anything not
 * published. `explain` (../commands/explain.ts) prints it, in words (./subject-words.ts) or as JSON.
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { splitIntent } from '../../lambdas/common/snapshot-intent';
import { clubContext } from '../../lambdas/engine/club-poll/club-context';
import { activePause, type ClubPause } from '../../lambdas/engine/club-poll/failure-policy';
import { type PublishedEntry, publishedOf } from '../../lambdas/engine/scan/published-log';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { enabledSources, SOURCES } from '../../lambdas/sources';
import { tailLookbackFor } from '../../lambdas/sources/source';
import type { StateStore } from '../../lambdas/state/state-store';
import type { Cursor, SourceName } from '../../lambdas/state/store';
import { type LifecycleFacts, lifecycleFacts } from './lifecycle-facts';
import {
  memberPaymentSightings,
  type PaymentSighting,
  paymentSightings,
  type RefundSighting,
} from './payment-facts';
import type { SubjectKind, SubjectRef } from './subject-ref';

export type { PaymentSighting, RefundSighting } from './payment-facts';

/** The state of the source that sees the subject's changes. */
export interface SourceFacts {
  readonly source: SourceName;
  readonly enabled: boolean;
  readonly polled: boolean;
  readonly baselineDone: boolean;
  readonly watermark: string | null;
  /** What every poll re-reads behind the watermark (ms). */
  readonly lookbackMs: number;
  /** The occasional deeper re-read, if the source has one. */
  readonly sweep: { readonly windowMs: number; readonly everyMs: number } | null;
  readonly health: Cursor['health'] | null;
}

export interface SnapshotFacts {
  /** The tracked fields the bridge compares with (status, cancellation date, preferences...). */
  readonly fields: Record<string, unknown>;
  /** When the snapshot was taken (the poll that last saw the subject change). */
  readonly takenAt: string;
  readonly changes: number;
  readonly firstStatus: string | null | undefined;
}

/** Which kinds of events the state table keeps for a subject, and which it does not. */
export interface KeptKinds {
  /** Kept on the member's or prospect's snapshot: the last three it published. */
  readonly onSnapshot: readonly string[];
  /** Kept in the payment source's seen set, within its window (10 days and a margin). */
  readonly payments: readonly string[];
  /** Kept by the lifecycle document while they can still matter. */
  readonly lifecycle: readonly string[];
  /** Never kept per subject: filed by a hash of their record; explain cannot list them. */
  readonly notKept: readonly string[];
}

const T = DETAIL_TYPES;
const PAYMENT_KINDS = [T.PaymentSucceeded, T.PaymentFailed, T.PaymentRefunded];

/** What the table keeps, per kind of subject (docs/cli.md, explain). */
export const KEPT: Record<SubjectKind, KeptKinds> = {
  member: {
    onSnapshot: [
      T.MemberJoined,
      T.MemberStatusChanged,
      T.MembershipCancelled,
      T.MemberContactPreferencesChanged,
    ],
    payments: PAYMENT_KINDS,
    lifecycle: [T.MemberFirstVisit, T.MemberInactive, T.MembershipExpiring],
    notKept: [
      T.MemberVisitRecorded,
      T.PosTransactionRecorded,
      T.DisbursementRecorded,
      T.MemberSentToDebtCollection,
      T.ClassAttendanceRecorded,
      T.MemberReturned,
      T.PaymentRecovered,
    ],
  },
  prospect: {
    onSnapshot: [T.ProspectCreated, T.ProspectStatusChanged],
    payments: [],
    lifecycle: [T.ProspectTrialEnding],
    notKept: [T.ClassAttendanceRecorded],
  },
  payment: { onSnapshot: [], payments: PAYMENT_KINDS, lifecycle: [], notKept: [T.PaymentRecovered] },
};

export interface SubjectFacts {
  readonly clubId: string;
  readonly subject: SubjectRef;
  readonly observedAt: string;
  readonly snapshot: SnapshotFacts | null;
  /** States a poll was publishing when it stopped before its commit (published again next poll). */
  readonly intent: Record<string, unknown>[];
  /** Newest first, the last three the polls kept on the snapshot. */
  readonly published: PublishedEntry[];
  /** The payment's Responses, or a member's payments' (within the payment window). */
  readonly payments: PaymentSighting[];
  readonly refunds: RefundSighting[];
  /** Which kinds of events are kept for this kind of subject. */
  readonly kept: KeptKinds;
  readonly quarantined: { readonly at: string; readonly reason: string }[];
  readonly source: SourceFacts;
  readonly pause: ClubPause | null;
  /** Its lifecycle state (docs/lifecycle.md); null for a payment. */
  readonly lifecycle: LifecycleFacts | null;
}

const SOURCE_OF: Record<SubjectKind, SourceName> = {
  member: 'members',
  prospect: 'prospects',
  payment: 'paymentHistory',
};

/** Whether a quarantined record names the subject (its number, member number or id). */
function names(raw: unknown, subject: SubjectRef): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const r = raw as Record<string, unknown>;
  const fields = subject.kind === 'payment' ? [r.Id] : [r.Number, r.MemberNumber];
  if (fields.some((v) => v !== undefined && v !== null && String(v) === subject.id)) return true;
  // A truncated record keeps a preview of its text.
  return typeof r.preview === 'string' && r.preview.includes(JSON.stringify(subject.id));
}

function snapshotFacts(fields: Record<string, unknown>, takenAt: string): SnapshotFacts {
  const { changes, firstStatus, published: _log, ...tracked } = fields;
  return {
    fields: tracked,
    takenAt,
    changes: typeof changes === 'number' ? changes : 0,
    firstStatus: typeof firstStatus === 'string' || firstStatus === null ? firstStatus : undefined,
  };
}

function sourceFacts(club: ClubConfig, cursor: Cursor | undefined, name: SourceName): SourceFacts {
  const source = SOURCES[name];
  return {
    source: name,
    enabled: enabledSources(club).includes(name),
    polled: cursor !== undefined && cursor.version > 0,
    baselineDone: cursor?.baselineDone ?? false,
    watermark: cursor?.watermark ?? null,
    lookbackMs: tailLookbackFor(source, clubContext(club)),
    sweep: source.sweep ?? null,
    health: cursor?.health ?? null,
  };
}

/** Everything the state table holds about the subject, as of `nowMs`. */
export async function subjectFacts(
  store: StateStore,
  club: ClubConfig,
  subject: SubjectRef,
  nowMs: number,
): Promise<SubjectFacts> {
  const sourceName = SOURCE_OF[subject.kind];
  const [cursors, quarantined] = await Promise.all([
    store.view(club.clubId).listCursors(),
    store.view(club.clubId).listQuarantined(sourceName, 1000),
  ]);
  let snapshot: SnapshotFacts | null = null;
  let intent: Record<string, unknown>[] = [];
  let published: PublishedEntry[] = [];
  const sightings =
    subject.kind === 'payment'
      ? await paymentSightings(store, club, subject.id, nowMs)
      : subject.kind === 'member'
        ? await memberPaymentSightings(store, club, subject.id, nowMs)
        : { payments: [], refunds: [] };
  if (subject.kind !== 'payment') {
    const kind = subject.kind === 'member' ? 'MEMBER' : 'PROSPECT';
    const stored = (await store.view(club.clubId).getSnapshots(kind, [subject.id])).get(subject.id);
    const { committed, published: states } = splitIntent(stored);
    if (committed) snapshot = snapshotFacts(committed.fields, committed.updatedAt);
    intent = states.map((s) => snapshotFacts(s.fields, s.updatedAt).fields);
    published = publishedOf(committed);
  }
  const latestFields = subject.kind === 'payment' ? undefined : (intent.at(-1) ?? snapshot?.fields);
  const lifecycle = await lifecycleFacts(store, club, subject, latestFields, nowMs);
  return {
    clubId: club.clubId,
    subject,
    observedAt: new Date(nowMs).toISOString(),
    snapshot,
    intent,
    published,
    payments: sightings.payments,
    refunds: sightings.refunds,
    kept: KEPT[subject.kind],
    quarantined: quarantined
      .filter((q) => names(q.raw, subject))
      .map((q) => ({ at: q.at, reason: q.reason })),
    source: sourceFacts(
      club,
      cursors.find((c) => c.source === sourceName),
      sourceName,
    ),
    pause: activePause(cursors, nowMs) ?? null,
    lifecycle,
  };
}
