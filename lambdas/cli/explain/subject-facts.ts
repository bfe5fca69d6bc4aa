/**
 * What the bridge knows of one subject (a member, a prospect or a payment) of one club, read from
 * the state table: the snapshot it compares with and since when, an intent a poll left, the events
 * last published for it and by which poll, quarantined records that name it, and the state of the
 * source that would see its next change. `explain` (../commands/explain.ts) prints it, in words
 * (./subject-words.ts) or as JSON.
 */
import type { ClubConfig } from '../../clubs/club-config';
import { clubContext } from '../../engine/club-poll/club-context';
import { activePause, type ClubPause } from '../../engine/failure-policy';
import { type PublishedEntry, publishedOf } from '../../engine/scan/published-log';
import { seenTag } from '../../engine/scan/seen-window';
import { splitIntent } from '../../engine/scan/snapshot-intent';
import { makeEventId } from '../../events/event-id';
import { enabledSources, SOURCES } from '../../sources';
import { classifyPayment } from '../../sources/payment-classifier';
import { decodePaymentMemo, responseDetailType, responseIdentity } from '../../sources/payment-source';
import { DAY_MS, tailLookbackFor } from '../../sources/source';
import type { Cursor, SourceName, StateStore } from '../../state/store';
import { type LifecycleFacts, lifecycleFacts } from './lifecycle-facts';

export type SubjectKind = 'member' | 'prospect' | 'payment';

export interface SubjectRef {
  readonly kind: SubjectKind;
  readonly id: string;
}

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

/** A payment as the seen set knows it: the Responses it was seen with and the eventIds they gave. */
export interface PaymentSighting {
  /** The payment's time (its PaymentDate read in the club's zone), UTC. */
  readonly at: string;
  readonly response: string;
  readonly detailType: string | null;
  readonly eventId: string | null;
}

export interface SubjectFacts {
  readonly clubId: string;
  readonly subject: SubjectRef;
  readonly observedAt: string;
  readonly snapshot: SnapshotFacts | null;
  /** States a poll was publishing when it stopped before its commit (published again next poll). */
  readonly intent: Record<string, unknown>[];
  /** Newest first, the last three the polls kept on the snapshot. */
  readonly published: PublishedEntry[];
  readonly payments: PaymentSighting[];
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

/** The Responses a payment was seen with, from the seen entries of its source's window. */
async function paymentSightings(store: StateStore, club: ClubConfig, id: string, nowMs: number) {
  const window = SOURCES.paymentHistory.sweep?.windowMs ?? DAY_MS;
  const fromAt = new Date(nowMs - window - 3 * DAY_MS).toISOString();
  const group = seenTag({ group: id, value: '' }).group;
  const entries = await store.seenEntriesSince(
    club.clubId,
    'paymentHistory',
    fromAt,
    Math.floor(nowMs / 1000),
  );
  const ctx = clubContext(club);
  return entries
    .filter((e) => e.group === group && e.value !== undefined)
    .map((e): PaymentSighting => {
      const response = e.value!;
      // The memo (`["<member>","<Id>","<PaymentType>"]`) gives the type the classification reads.
      const type = decodePaymentMemo(e.memo)?.type;
      const record = { Response: response, ...(type === undefined ? {} : { PaymentType: type }) };
      // As the payment source decides it (one function for both).
      const detailType = responseDetailType(classifyPayment(record, ctx.paymentRules).outcome) ?? null;
      const eventId = detailType
        ? makeEventId(club.clubId, 'paymentHistory', detailType, ...responseIdentity(id, response))
        : null;
      return { at: e.at, response, detailType, eventId };
    });
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
    store.listCursors(club.clubId),
    store.listQuarantined(club.clubId, sourceName, 1000),
  ]);
  let snapshot: SnapshotFacts | null = null;
  let intent: Record<string, unknown>[] = [];
  let published: PublishedEntry[] = [];
  let payments: PaymentSighting[] = [];
  if (subject.kind === 'payment') {
    payments = await paymentSightings(store, club, subject.id, nowMs);
  } else {
    const kind = subject.kind === 'member' ? 'MEMBER' : 'PROSPECT';
    const stored = (await store.getSnapshots(club.clubId, kind, [subject.id])).get(subject.id);
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
    payments,
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
