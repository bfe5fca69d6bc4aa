/**
 * The order a subject's transitions keep on the bus (used by EventBridgeSink): events of one chain
 * (a member's status, a member's contact preferences, a prospect's status, a payment's responses)
 * are sent in waves, one event of a chain per wave, each wave after the one before is delivered.
 */
import type { BridgeEvent } from './catalog';
import { DETAIL_TYPES } from './catalog';
import type { PreparedEntry } from './put-events-batches';

/** Detail-types that describe a subject's transitions, by the chain they belong to. */
const CHAINS: Readonly<Record<string, string>> = {
  [DETAIL_TYPES.MemberStatusChanged]: 'member-status',
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 'member-contact',
  [DETAIL_TYPES.ProspectStatusChanged]: 'prospect-status',
  [DETAIL_TYPES.PaymentSucceeded]: 'payment',
  [DETAIL_TYPES.PaymentFailed]: 'payment',
};

/**
 * What an event's order is kept within: its chain (a member's status, a payment's responses...)
 * for a transition, else the event alone (visits, joins and the like need no order).
 */
export function subjectKey(event: BridgeEvent): string {
  const detail = event.detail as { clubId?: unknown; subject?: unknown; data?: unknown; eventId: string };
  const chain = CHAINS[event.detailType];
  if (chain === undefined) return `event\u0000${detail.eventId}`;
  const data = (typeof detail.data === 'object' && detail.data !== null ? detail.data : {}) as Record<
    string,
    unknown
  >;
  const record = data.Id ?? data.ProspectId ?? data.Number ?? '';
  return `${chain}\u0000${String(detail.clubId)}\u0000${JSON.stringify(detail.subject ?? {})}\u0000${String(record)}`;
}

/**
 * The entries in waves: the n-th wave holds each subject's n-th event, in the order given (the
 * same event again, by eventId, goes with its first copy: a duplicate is no transition).
 */
export function subjectWaves(
  entries: readonly PreparedEntry[],
  keys: ReadonlyMap<PreparedEntry, string>,
): PreparedEntry[][] {
  const waves: PreparedEntry[][] = [];
  const chains = new Map<string, string[]>();
  for (const entry of entries) {
    const key = keys.get(entry)!;
    const ids = chains.get(key) ?? [];
    chains.set(key, ids);
    let n = ids.indexOf(entry.eventId);
    if (n < 0) n = ids.push(entry.eventId) - 1;
    const wave = waves[n] ?? [];
    waves[n] = wave;
    wave.push(entry);
  }
  return waves;
}
