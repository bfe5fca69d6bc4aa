/**
 * What one lifecycle evaluation of a club reads (docs/lifecycle.md), gathered from the state
 * table: the members' and prospects' latest known states (their snapshots, an intent's last state
 * first: all of them, or the kept view and the subjects noted since), and the visits and payment
 * outcomes of a stretch of the seen set, read back from the memos the visits and payment sources
 * file. No API request.
 */

import { splitIntent } from '../common/snapshot-intent';
import { utcToLocal } from '../common/zoned-time';
import { classifyPayment, type PaymentRuleOverrides } from '../sources/payment-classifier';
import { decodePaymentMemo } from '../sources/payment-source';
import type { LifecycleNotes } from '../state/lifecycle-notes';
import type { ClubSession } from '../state/state-store';
import type { SeenAt, Snapshot, SnapshotKind, SourceName } from '../state/store';
import type { FactChange } from './evaluate';
import type { PaymentOutcome } from './folds';
import type { LifecycleView } from './lifecycle-keep';
import type { MemberFacts, ProspectFacts } from './rules';

export interface LifecycleReads {
  readonly members: Map<string, MemberFacts>;
  readonly prospects: Map<string, ProspectFacts>;
  readonly visits: Map<string, string[]>;
  readonly payments: Map<string, PaymentOutcome[]>;
  /** When the poll that wrote each snapshot read read its record (epoch ms): the subjects read. */
  readonly readAt: { readonly members: Map<string, number>; readonly prospects: Map<string, number> };
}

export interface LifecycleWindow {
  /** Seen entries of visits from this instant (UTC ISO, ms) on. */
  readonly visitsFrom: string;
  /** Seen entries of payments from this instant on; undefined: none filed since the last evaluation. */
  readonly paymentsFrom?: string;
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The latest known state of each subject, what a poll was publishing, else what it committed, and
 * when the poll that wrote it read the record (the state's time; `fallbackMs` when unreadable).
 */
function latest(stored: Map<string, Snapshot>, fallbackMs: number) {
  const out = new Map<string, { fields: Record<string, unknown>; atMs: number }>();
  for (const [id, snapshot] of stored) {
    const { committed, published } = splitIntent(snapshot);
    const state = published.at(-1) ?? committed;
    const atMs = Date.parse(state?.updatedAt ?? '');
    if (state) out.set(id, { fields: state.fields, atMs: Number.isFinite(atMs) ? atMs : fallbackMs });
  }
  return out;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Where an evaluation's subjects come from: every snapshot, or the view and the noted subjects. */
export type SubjectReads =
  | { readonly full: true }
  | {
      readonly full: false;
      readonly view: LifecycleView;
      readonly members: readonly string[];
      readonly prospects: readonly string[];
    };

/** The facts the rules read from a member snapshot's fields (explain reads them the same way). */
export const memberFacts = (f: Record<string, unknown>): MemberFacts => ({
  status: text(f.status),
  startDate: text(f.startDate),
  expiryDate: text(f.expiryDate),
  minimumTermDate: text(f.minimumTermDate),
  cancellationDate: text(f.cancellationDate),
});

/** The facts the rules read from a prospect snapshot's fields. */
export const prospectFacts = (f: Record<string, unknown>): ProspectFacts => ({
  status: text(f.status),
  trialEndDate: text(f.trialEndDate),
});

/**
 * The subjects' facts: every snapshot listed, or the view with the noted subjects read again (a
 * noted subject without a snapshot leaves it). Strongly consistent: the evaluation runs right after
 * the poll's sources wrote these, and must see what they wrote (a status changed ends a lapse).
 */
async function subjectFacts(
  store: ClubSession,
  reads: SubjectReads,
  nowMs: number,
): Promise<Pick<LifecycleReads, 'members' | 'prospects' | 'readAt'>> {
  const consistentRead = true;
  const none = new Map<string, Snapshot>();
  const [members, prospects] = reads.full
    ? await Promise.all([
        store.listSnapshots('MEMBER', { consistentRead }),
        store.listSnapshots('PROSPECT', { consistentRead }),
      ])
    : await Promise.all([
        reads.members.length > 0
          ? store.getSnapshots('MEMBER', [...reads.members], { consistentRead })
          : none,
        reads.prospects.length > 0
          ? store.getSnapshots('PROSPECT', [...reads.prospects], { consistentRead })
          : none,
      ]);
  const fresh = { members: latest(members, nowMs), prospects: latest(prospects, nowMs) };
  const out = {
    members: new Map(reads.full ? [] : Object.entries(reads.view.members)),
    prospects: new Map(reads.full ? [] : Object.entries(reads.view.prospects)),
    readAt: { members: new Map<string, number>(), prospects: new Map<string, number>() },
  };
  const noted = (ids: readonly string[], found: ReadonlyMap<string, unknown>) =>
    reads.full ? [...found.keys()] : ids;
  for (const id of noted(reads.full ? [] : reads.members, fresh.members)) {
    const f = fresh.members.get(id);
    if (!f) out.members.delete(id);
    else {
      out.members.set(id, memberFacts(f.fields));
      out.readAt.members.set(id, f.atMs);
    }
  }
  for (const id of noted(reads.full ? [] : reads.prospects, fresh.prospects)) {
    const f = fresh.prospects.get(id);
    if (!f) out.prospects.delete(id);
    else {
      out.prospects.set(id, prospectFacts(f.fields));
      out.readAt.prospects.set(id, f.atMs);
    }
  }
  return out;
}

/** The facts of `next` that differ from `before`'s (every one when `before` is absent). */
function changedFields<T extends object>(before: T | undefined, next: T): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(next)]);
  const value = (o: T | undefined, k: string) => (o as Record<string, unknown> | undefined)?.[k] ?? null;
  return [...keys].filter((k) => !before || value(before, k) !== value(next, k));
}

/**
 * The subjects read whose facts differ from those the last evaluation read (its view), with the time
 * the poll that wrote their snapshot read the change: when each came to qualify (docs/lifecycle.md,
 * "Baseline and late qualifiers"). None without a view (a first evaluation, whose facts are all
 * baseline).
 */
export function factChanges(
  view: LifecycleView | undefined,
  reads: Pick<LifecycleReads, 'members' | 'prospects' | 'readAt'>,
): { members: Map<string, FactChange>; prospects: Map<string, FactChange> } {
  const out = { members: new Map<string, FactChange>(), prospects: new Map<string, FactChange>() };
  if (!view) return out;
  for (const [id, atMs] of reads.readAt.members) {
    const fields = changedFields(view.members[id], reads.members.get(id)!);
    if (fields.length > 0) out.members.set(id, { atMs, fields });
  }
  for (const [id, atMs] of reads.readAt.prospects) {
    const fields = changedFields(view.prospects[id], reads.prospects.get(id)!);
    if (fields.length > 0) out.prospects.set(id, { atMs, fields });
  }
  return out;
}

/**
 * The evaluation's input, as of `nowMs`. Times come back as the club's local wall clock (the seen
 * set files the instant). A payment Response the rules call neither a success nor a failure
 * (pending, unknown) is not an outcome.
 */
export async function gatherLifecycleInput(
  store: ClubSession,
  club: { readonly clubId: string; readonly timeZone: string; readonly paymentRules?: PaymentRuleOverrides },
  nowMs: number,
  subjects: SubjectReads,
  window: LifecycleWindow,
): Promise<LifecycleReads> {
  const nowSec = Math.floor(nowMs / 1000);
  // Strongly consistent, as the subjects: a visit filed a moment ago closes a lapse.
  const consistentRead = true;
  const [facts, visitEntries, paymentEntries] = await Promise.all([
    subjectFacts(store, subjects, nowMs),
    store.seenEntriesSince('visits', window.visitsFrom, nowSec, { consistentRead }),
    window.paymentsFrom === undefined
      ? []
      : store.seenEntriesSince('paymentHistory', window.paymentsFrom, nowSec, {
          consistentRead,
        }),
  ]);
  const local = (at: string) => utcToLocal(Date.parse(at), club.timeZone);
  const out: LifecycleReads = { ...facts, visits: new Map(), payments: new Map() };
  for (const entry of visitEntries) if (entry.memo) push(out.visits, entry.memo, local(entry.at));
  for (const entry of paymentEntries) {
    const memo = decodePaymentMemo(entry.memo);
    if (!memo || entry.value === undefined) continue;
    const record = { Response: entry.value, ...(memo.type === undefined ? {} : { PaymentType: memo.type }) };
    const { outcome } = classifyPayment(record, club.paymentRules);
    if (outcome !== 'succeeded' && outcome !== 'failed') continue;
    push(out.payments, memo.member, {
      paymentId: memo.id,
      at: local(entry.at),
      outcome,
      response: entry.value,
    });
  }
  return out;
}

/**
 * What a poll notes for the next evaluation as it writes (lifecycle-notes.ts), so that evaluation
 * reads those subjects and that stretch of the seen set, not everything: the members and prospects
 * whose snapshots it writes, and the earliest visit or payment it files. Undefined: nothing to note.
 */
export function notesOfSnapshots(
  kind: SnapshotKind,
  snapshots: readonly Snapshot[],
): LifecycleNotes | undefined {
  const ids = snapshots.map((s) => s.id);
  if (ids.length === 0) return undefined;
  return kind === 'MEMBER' ? { members: ids } : { prospects: ids };
}

export function notesOfSeenAt(source: SourceName, entries: readonly SeenAt[]): LifecycleNotes | undefined {
  if (source !== 'visits' && source !== 'paymentHistory') return undefined;
  let fromMs = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    const ms = Date.parse(entry.at);
    if (ms < fromMs) fromMs = ms;
  }
  if (!Number.isFinite(fromMs)) return undefined;
  return source === 'visits' ? { visitsFromMs: fromMs } : { paymentsFromMs: fromMs };
}
