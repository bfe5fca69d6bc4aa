/**
 * The payment history source: each Response a payment is seen with is a facet (Approved, later
 * Dishonoured: two events), a refund another; the classification is ./payment-classifier.ts.
 */
import { DAY_MS, HOUR_MS } from '../common/time-units';
import { type BridgeEvent, DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { ItemOf } from '../gym-api/operations';
import { join, memo, subjectOf } from './append-keys';
import { classifyPayment, paymentAmount } from './payment-classifier';
import { envelopeFor } from './record-time';
import type { AppendSource, ClubContext, Facet } from './source';

/**
 * The earlier Response of the same payment that was a success (Approved, later Dishonoured), from
 * the Responses the bridge saw before for this payment Id; undefined when none was a success (a
 * payment first seen as declined, or seen before the bridge kept Responses). Several: the first
 * in sort order, so a re-publication carries the same one.
 */
function earlierSuccess(
  p: Pick<ItemOf<'paymentHistory'>, 'Response' | 'PaymentType' | 'FeeBreakdown'>,
  earlier: readonly string[] | undefined,
  ctx: ClubContext,
): string | undefined {
  const current = p.Response ?? '';
  return [...(earlier ?? [])]
    .filter(
      (r) =>
        r !== current && classifyPayment({ ...p, Response: r }, ctx.paymentRules).outcome === 'succeeded',
    )
    .sort()[0];
}

/** The identity of a payment's Response event (its eventId's parts): also what `explain` recomputes. */
export const responseIdentity = (id: string, response: string): string[] => [id, 'response', response];

/** The memo a payment's seen entry carries: `["<member>","<Id>","<PaymentType>"]` (JSON). */
export const encodePaymentMemo = (member: string | null, id: string, type: string | null): string =>
  JSON.stringify([member, id, type]);

/** A payment entry's memo read back; undefined for none, or one not written this way. */
export function decodePaymentMemo(
  memo: string | undefined,
): { member: string; id: string; type?: string } | undefined {
  try {
    const parsed = JSON.parse(memo ?? '') as unknown;
    if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string')
      return {
        member: parsed[0],
        id: parsed[1],
        ...(typeof parsed[2] === 'string' ? { type: parsed[2] } : {}),
      };
  } catch {
    // not a memo this release wrote
  }
  return undefined;
}

/**
 * The detail-type a Response's outcome publishes: none while pending, Payment Succeeded for a
 * success, Payment Failed for anything else (an unknown Response too: never taken for a success).
 */
export function responseDetailType(
  outcome: ReturnType<typeof classifyPayment>['outcome'],
): typeof DETAIL_TYPES.PaymentSucceeded | typeof DETAIL_TYPES.PaymentFailed | undefined {
  if (outcome === 'pending') return undefined;
  return outcome === 'succeeded' ? DETAIL_TYPES.PaymentSucceeded : DETAIL_TYPES.PaymentFailed;
}

/** Payment Succeeded or Failed for the Response a payment is seen with (none while pending). */
function responseEvents(
  p: ItemOf<'paymentHistory'>,
  id: string,
  ctx: ClubContext,
  earlier: readonly string[] | undefined,
): BridgeEvent[] {
  const response = p.Response ?? '';
  const outcome = classifyPayment(p, ctx.paymentRules);
  const detailType = responseDetailType(outcome.outcome);
  if (!detailType) return [];
  const base = envelopeFor(
    ctx,
    responseIdentity(id, response),
    { value: p.PaymentDate, zone: 'unstated' },
    subjectOf(p.Number),
  );
  const amount = paymentAmount(p);
  const fields = {
    data: p,
    paymentId: id,
    ...(p.PaymentType ? { paymentType: p.PaymentType } : {}),
    response,
    ...(amount === undefined ? {} : { amount }),
    ...(outcome.isDishonourFee ? { isDishonourFee: true } : {}),
  };
  if (detailType === DETAIL_TYPES.PaymentSucceeded) return [createEvent(detailType, base, fields)];
  const previousResponse = earlierSuccess(p, earlier, ctx);
  return [
    createEvent(DETAIL_TYPES.PaymentFailed, base, {
      ...fields,
      reason: outcome.reason ?? 'unknown-response',
      ...(previousResponse === undefined ? {} : { previousResponse }),
    }),
  ];
}

export const paymentHistorySource: AppendSource<'paymentHistory'> = {
  kind: 'append',
  name: 'paymentHistory',
  operation: 'paymentHistory',
  filterParam: 'fromdate',
  filterZone: 'unstated',
  recordTime: (p) => p.PaymentDate,
  // Payments are posted when they happen: the last hour absorbs late posting and clock skew. The zone
  // of PaymentDate is not stated: until the club's reading is confirmed, 15 h absorbs either one.
  // A direct debit can come back dishonoured days later and a refund can follow: the sweep re-reads
  // 10 days hourly. The extra sweeps the unused quota pays for (every few minutes) re-read 6 days:
  // a dishonour comes back within 3 business days (BECS, BACS), 6 days over a four-day weekend;
  // those sweeps were 40% of the poll's CPU over 10 days (docs/operations.md).
  tailLookbackMs: HOUR_MS,
  unconfirmedZoneLookbackMs: 15 * HOUR_MS,
  sweep: { windowMs: 10 * DAY_MS, everyMs: HOUR_MS, paidWindowMs: 6 * DAY_MS },
  seenDigest: true,
  identity: (p) => (p.Id ? p.Id : undefined),
  facets: (p, id): Facet[] => {
    const response = p.Response ?? '';
    const facets: Facet[] = [
      {
        key: join('R', id, response),
        track: { group: id, value: response },
        // Whose payment, its Id (the entry's group is a hash of it) and type (the classification reads
        // it): what the lifecycle evaluation needs for Payment Recovered.
        ...memo(encodePaymentMemo(p.Number ?? null, id, p.PaymentType ?? null)),
        events: (ctx, earlier) => responseEvents(p, id, ctx, earlier),
      },
    ];
    if (p.Refund?.IsRefunded) {
      facets.push({
        key: join('REFUND', id),
        events: (ctx) => [
          createEvent(
            DETAIL_TYPES.PaymentRefunded,
            envelopeFor(
              ctx,
              [id, 'refunded'],
              { value: p.PaymentDate, zone: 'unstated' },
              subjectOf(p.Number),
            ),
            {
              data: p,
              paymentId: id,
              ...(p.Refund?.RefundedPaymentId ? { refundedPaymentId: p.Refund.RefundedPaymentId } : {}),
            },
          ),
        ],
      });
    }
    return facets;
  },
};
