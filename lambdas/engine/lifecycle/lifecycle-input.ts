/**
 * What one lifecycle evaluation of a club reads (docs/lifecycle.md), gathered from the state
 * table: the members' and prospects' latest known states (their snapshots, an intent's last state
 * first), and the visits and payment outcomes of a window of the seen set, read back from the
 * memos the visits and payment sources file. No API request.
 */
import { utcToLocal } from '../../common/zoned-time';
import type { PaymentOutcome } from '../../sources/lifecycle/folds';
import type { MemberFacts, ProspectFacts } from '../../sources/lifecycle/rules';
import { classifyPayment, type PaymentRuleOverrides } from '../../sources/payment-classifier';
import { decodePaymentMemo } from '../../sources/payment-source';
import type { Snapshot, StateStore } from '../../state/store';
import { splitIntent } from '../scan/snapshot-intent';

export interface LifecycleReads {
  readonly members: Map<string, MemberFacts>;
  readonly prospects: Map<string, ProspectFacts>;
  readonly visits: Map<string, string[]>;
  readonly payments: Map<string, PaymentOutcome[]>;
}

export interface LifecycleWindow {
  /** Seen entries of visits from this instant (UTC ISO, ms) on. */
  readonly visitsFrom: string;
  /** Seen entries of payments from this instant on. */
  readonly paymentsFrom: string;
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/** The latest known state of each subject: what a poll was publishing, else what it committed. */
function latest(stored: Map<string, Snapshot>): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const [id, snapshot] of stored) {
    const { committed, published } = splitIntent(snapshot);
    const state = published.at(-1) ?? committed;
    if (state) out.set(id, state.fields);
  }
  return out;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The evaluation's input, as of `nowMs`. Times come back as the club's local wall clock (the seen
 * set files the instant). A payment Response the rules call neither a success nor a failure
 * (pending, unknown) is not an outcome.
 */
export async function gatherLifecycleInput(
  store: StateStore,
  club: { readonly clubId: string; readonly timeZone: string; readonly paymentRules?: PaymentRuleOverrides },
  nowMs: number,
  window: LifecycleWindow,
): Promise<LifecycleReads> {
  const nowSec = Math.floor(nowMs / 1000);
  // Strongly consistent: the evaluation runs right after the poll's sources wrote these, and must
  // see what they wrote (a visit filed a moment ago closes a lapse; a status changed ends one).
  const consistentRead = true;
  const [members, prospects, visitEntries, paymentEntries] = await Promise.all([
    store.listSnapshots(club.clubId, 'MEMBER', { consistentRead }),
    store.listSnapshots(club.clubId, 'PROSPECT', { consistentRead }),
    store.seenEntriesSince(club.clubId, 'visits', window.visitsFrom, nowSec, { consistentRead }),
    store.seenEntriesSince(club.clubId, 'paymentHistory', window.paymentsFrom, nowSec, { consistentRead }),
  ]);
  const local = (at: string) => utcToLocal(Date.parse(at), club.timeZone);
  const out: LifecycleReads = {
    members: new Map(),
    prospects: new Map(),
    visits: new Map(),
    payments: new Map(),
  };
  for (const [id, f] of latest(members)) {
    out.members.set(id, {
      status: text(f.status),
      startDate: text(f.startDate),
      expiryDate: text(f.expiryDate),
      minimumTermDate: text(f.minimumTermDate),
      cancellationDate: text(f.cancellationDate),
    });
  }
  for (const [id, f] of latest(prospects))
    out.prospects.set(id, { status: text(f.status), trialEndDate: text(f.trialEndDate) });
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
