/**
 * What the seen set holds of payments, for `explain`: the Responses a payment was seen with, its
 * refund, and, for a member, every payment of theirs, within the payment source's window (the
 * seen entries of older payments have expired). An eventId is given only for an entry filed as
 * announced, i.e. after every event of it was delivered (state/store.ts `SeenAt.announced`): a
 * Response the silent baseline recorded, one still pending, or one filed by a release before the
 * mark never shows an eventId that may not have been published.
 */

import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { DAY_MS } from '../../lambdas/common/time-units';
import { clubContext } from '../../lambdas/engine/club-poll/club-context';
import { fingerprint } from '../../lambdas/engine/scan/fingerprint';
import { seenTag } from '../../lambdas/engine/scan/seen-window';
import { DETAIL_TYPES } from '../../lambdas/events/catalog';
import { makeEventId } from '../../lambdas/events/event-id';
import { SOURCES } from '../../lambdas/sources';
import { classifyPayment } from '../../lambdas/sources/payment-classifier';
import {
  decodePaymentMemo,
  paymentHistorySource,
  responseDetailType,
  responseIdentity,
} from '../../lambdas/sources/payment-source';
import type { StateStore } from '../../lambdas/state/state-store';
import type { SeenEntry } from '../../lambdas/state/store';

/** How a sighting came to be filed, i.e. whether its event went out. */
export type Announcement =
  /** Every event of it was delivered: its eventId is the published one. */
  | 'published'
  /** Filed without an announcement: the silent baseline, or a release before the mark. */
  | 'not-published'
  /** A pending Response: no event until it settles. */
  | 'pending';

/** A Response a payment was seen with. */
export interface PaymentSighting {
  readonly paymentId: string;
  /** The payment's time (its PaymentDate read in the club's zone), UTC. */
  readonly at: string;
  readonly response: string;
  /** What the Response gives (none while pending). */
  readonly detailType: string | null;
  readonly announcement: Announcement;
  /** The published event's id: only when `announcement` is 'published'. */
  readonly eventId: string | null;
}

/** A payment seen refunded. */
export interface RefundSighting {
  readonly paymentId: string;
  readonly at: string;
  readonly announcement: Exclude<Announcement, 'pending'>;
  /** The Payment Refunded's id: only when published. */
  readonly eventId: string | null;
}

/** How far back the seen set holds a payment: the source's sweep window, plus the entries' margin. */
export const PAYMENT_WINDOW_MS = (SOURCES.paymentHistory.sweep?.windowMs ?? DAY_MS) + 3 * DAY_MS;

/** The seen-set fingerprint of a payment's refund, as the payment source files it. */
function refundFingerprint(paymentId: string): string | undefined {
  const record = { Id: paymentId, Refund: { IsRefunded: true } } as never;
  const facet = paymentHistorySource.facets(record, paymentId).find((f) => f.key.startsWith('REFUND'));
  return facet ? fingerprint(facet.key) : undefined;
}

function announcementOf(entry: SeenEntry): Exclude<Announcement, 'pending'> {
  return entry.announced ? 'published' : 'not-published';
}

/** A Response sighting as the payment source decides it (one classification for both). */
function sightingOf(club: ClubConfig, paymentId: string, entry: SeenEntry): PaymentSighting {
  const response = entry.value ?? '';
  // The memo (`["<member>","<Id>","<PaymentType>"]`) gives the type the classification reads.
  const type = decodePaymentMemo(entry.memo)?.type;
  const record = { Response: response, ...(type === undefined ? {} : { PaymentType: type }) };
  const outcome = classifyPayment(record, clubContext(club).paymentRules).outcome;
  const detailType = responseDetailType(outcome) ?? null;
  const announcement: Announcement = detailType === null ? 'pending' : announcementOf(entry);
  const eventId =
    announcement === 'published' && detailType
      ? makeEventId(club.clubId, 'paymentHistory', detailType, ...responseIdentity(paymentId, response))
      : null;
  return { paymentId, at: entry.at, response, detailType, announcement, eventId };
}

function refundOf(club: ClubConfig, paymentId: string, entries: readonly SeenEntry[]): RefundSighting[] {
  const key = refundFingerprint(paymentId);
  return entries
    .filter((e) => e.fingerprint === key)
    .map((e) => {
      const announcement = announcementOf(e);
      const eventId =
        announcement === 'published'
          ? makeEventId(club.clubId, 'paymentHistory', DETAIL_TYPES.PaymentRefunded, paymentId, 'refunded')
          : null;
      return { paymentId, at: e.at, announcement, eventId };
    });
}

/** The payment source's seen entries of the window (read once for every payment asked about). */
async function windowEntries(store: StateStore, club: ClubConfig, nowMs: number): Promise<SeenEntry[]> {
  const fromAt = new Date(nowMs - PAYMENT_WINDOW_MS).toISOString();
  return store.view(club.clubId).seenEntriesSince('paymentHistory', fromAt, Math.floor(nowMs / 1000));
}

/** One payment's Responses and refund within the window. */
export async function paymentSightings(
  store: StateStore,
  club: ClubConfig,
  paymentId: string,
  nowMs: number,
): Promise<{ payments: PaymentSighting[]; refunds: RefundSighting[] }> {
  const entries = await windowEntries(store, club, nowMs);
  const group = seenTag({ group: paymentId, value: '' }).group;
  return {
    payments: entries
      .filter((e) => e.group === group && e.value !== undefined)
      .map((e) => sightingOf(club, paymentId, e)),
    refunds: refundOf(club, paymentId, entries),
  };
}

/** A member's payments (those whose seen entries name the member) and their refunds, within the window. */
export async function memberPaymentSightings(
  store: StateStore,
  club: ClubConfig,
  memberNumber: string,
  nowMs: number,
): Promise<{ payments: PaymentSighting[]; refunds: RefundSighting[] }> {
  const entries = await windowEntries(store, club, nowMs);
  const payments: PaymentSighting[] = [];
  const ids = new Set<string>();
  for (const e of entries) {
    const memo = decodePaymentMemo(e.memo);
    if (memo?.member !== memberNumber || e.value === undefined) continue;
    ids.add(memo.id);
    payments.push(sightingOf(club, memo.id, e));
  }
  return { payments, refunds: [...ids].flatMap((id) => refundOf(club, id, entries)) };
}
