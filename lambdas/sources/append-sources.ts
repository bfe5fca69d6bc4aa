/**
 * The append sources: a record (or one facet of it) becomes an event the first time its key is
 * seen. Keys are the record's identity plus the fields whose later change matters.
 */
import { DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { ItemOf } from '../gym-api/operations';
import { DATE_TIME_PATTERN } from '../gym-api/schemas';
import { classifyPayment, paymentAmount } from './payment-classifier';
import { envelopeFor } from './record-time';
import { type AppendSource, type ClubContext, DAY_MS, type Facet, HOUR_MS } from './source';

const join = (...parts: (string | number | boolean | null | undefined)[]) =>
  parts.map((p) => p ?? '').join('|');

/** A member number that names someone: not empty, not blank (a blank one names nobody). */
const usable = (memberNumber: string | null | undefined): memberNumber is string =>
  typeof memberNumber === 'string' && memberNumber.trim() !== '';

const subjectOf = (memberNumber: string | null | undefined) => (usable(memberNumber) ? { memberNumber } : {});

export const visitsSource: AppendSource<'visits'> = {
  kind: 'append',
  name: 'visits',
  operation: 'visits',
  filterParam: 'fromdate',
  filterZone: 'local',
  recordTime: (v) => v.VisitDateTime,
  // Door scanners that were offline upload late: re-read the last hour on every poll.
  tailLookbackMs: HOUR_MS,
  sweep: { windowMs: DAY_MS, everyMs: 6 * HOUR_MS },
  // A visit of nobody (no member number, or a blank one) has no identity: it is quarantined.
  identity: (v) =>
    usable(v.MemberNumber) && v.VisitDateTime ? join(v.MemberNumber, v.VisitDateTime, v.Door) : undefined,
  facets: (v, id): Facet[] => [
    {
      key: id,
      events: (ctx) => [
        createEvent(
          DETAIL_TYPES.MemberVisitRecorded,
          envelopeFor(ctx, [id], { value: v.VisitDateTime, zone: 'local' }, subjectOf(v.MemberNumber)),
          { data: v },
        ),
      ],
    },
  ],
};

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
  // 10 days hourly.
  tailLookbackMs: HOUR_MS,
  unconfirmedZoneLookbackMs: 15 * HOUR_MS,
  sweep: { windowMs: 10 * DAY_MS, everyMs: HOUR_MS },
  identity: (p) => (p.Id ? p.Id : undefined),
  facets: (p, id): Facet[] => {
    const response = p.Response ?? '';
    const facets: Facet[] = [
      {
        key: join('R', id, response),
        track: { group: id, value: response },
        events: (ctx, earlier) => {
          const outcome = classifyPayment(p, ctx.paymentRules);
          if (outcome.outcome === 'pending') return [];
          const base = envelopeFor(
            ctx,
            [id, 'response', response],
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
          if (outcome.outcome === 'succeeded')
            return [createEvent(DETAIL_TYPES.PaymentSucceeded, base, fields)];
          const previousResponse = earlierSuccess(p, earlier, ctx);
          return [
            createEvent(DETAIL_TYPES.PaymentFailed, base, {
              ...fields,
              reason: outcome.reason ?? 'unknown-response',
              ...(previousResponse === undefined ? {} : { previousResponse }),
            }),
          ];
        },
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

export const posTransactionsSource: AppendSource<'posTransactions'> = {
  kind: 'append',
  name: 'posTransactions',
  operation: 'posTransactions',
  filterParam: 'fromdate',
  filterZone: 'unstated',
  recordTime: (t) => t.TransactionDate,
  // An hour for late posting; 15 h while the club's reading of the unstated zone is not confirmed.
  tailLookbackMs: HOUR_MS,
  unconfirmedZoneLookbackMs: 15 * HOUR_MS,
  identity: (t) => t.PosTransactionId ?? undefined,
  facets: (t, id): Facet[] => [
    {
      key: id,
      events: (ctx) => [
        createEvent(
          DETAIL_TYPES.PosTransactionRecorded,
          envelopeFor(
            ctx,
            [id],
            { value: t.TransactionDate, zone: 'unstated' },
            subjectOf(typeof t.MemberNumber === 'string' ? t.MemberNumber : undefined),
          ),
          { data: t, posTransactionId: id, totalIncTax: t.TotalIncTax ?? 0 },
        ),
      ],
    },
  ],
};

export const disbursementsSource: AppendSource<'disbursements'> = {
  kind: 'append',
  name: 'disbursements',
  operation: 'disbursements',
  filterParam: 'fromdate',
  filterZone: 'unstated',
  recordTime: (d) => d.TransactionDate ?? d.DisbursementDate,
  // Disbursements are settled in a daily run, up to about 31 hours after the payment they belong to:
  // the tail re-reads 32 hours, and 36 while the club's reading of their unstated zone is not confirmed.
  tailLookbackMs: 32 * HOUR_MS,
  unconfirmedZoneLookbackMs: 36 * HOUR_MS,
  sweep: { windowMs: 7 * DAY_MS, everyMs: 6 * HOUR_MS },
  // No id in the API: two disbursements identical in every one of these fields are one event.
  identity: (d) =>
    d.TransactionDate || d.DisbursementDate
      ? join(d.MemberNumber, d.TransactionDate, d.DisbursementDate, d.Amount, d.PaymentType, d.Department)
      : undefined,
  facets: (d, id): Facet[] => [
    {
      key: id,
      events: (ctx) => [
        createEvent(
          DETAIL_TYPES.DisbursementRecorded,
          envelopeFor(
            ctx,
            [id],
            { value: d.TransactionDate ?? d.DisbursementDate, zone: 'unstated' },
            subjectOf(d.MemberNumber),
          ),
          { data: d, amount: d.Amount ?? 0 },
        ),
      ],
    },
  ],
};

export const debtCollectionSource: AppendSource<'debtCollection'> = {
  kind: 'append',
  name: 'debtCollection',
  operation: 'debtCollection',
  filterParam: 'fromdate',
  filterZone: 'unstated',
  recordTime: (d) => d.DebtCollectionDate,
  // An hour for late posting; 15 h while the club's reading of the unstated zone is not confirmed.
  tailLookbackMs: HOUR_MS,
  unconfirmedZoneLookbackMs: 15 * HOUR_MS,
  sweep: { windowMs: 7 * DAY_MS, everyMs: 6 * HOUR_MS },
  identity: (d) =>
    usable(d.MemberNumber) && d.DebtCollectionDate ? join(d.MemberNumber, d.DebtCollectionDate) : undefined,
  facets: (d, id): Facet[] => [
    {
      key: id,
      events: (ctx) => [
        createEvent(
          DETAIL_TYPES.MemberSentToDebtCollection,
          envelopeFor(
            ctx,
            [id],
            { value: d.DebtCollectionDate, zone: 'unstated' },
            subjectOf(d.MemberNumber),
          ),
          { data: d, amount: d.Amount ?? 0 },
        ),
      ],
    },
  ],
};

/** Deterministic JSON with sorted keys: the identity of a record whose shape is unknown. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const firstString = (record: Record<string, unknown>, keys: string[]) => {
  for (const k of keys) if (typeof record[k] === 'string') return record[k] as string;
  return undefined;
};

const CLASS_TIME_FIELDS = ['ClassDateTime', 'ClassDate', 'StartDateTime', 'AttendanceDateTime'];

/**
 * The first of the likely time fields that holds an API date-time. Raw records are not validated,
 * so a value in another format (a date only, free text) is skipped: read as a record time, it
 * would throw in the engine's watermark code and fail every scan of the source.
 */
const classTime = (c: Record<string, unknown>) =>
  firstString(
    c,
    CLASS_TIME_FIELDS.filter((k) => typeof c[k] === 'string' && DATE_TIME_PATTERN.test(c[k])),
  );

/** Experimental: the seed does not show this operation's shape, so records are carried raw. */
export const classAttendanceSource: AppendSource<'classAttendance'> = {
  kind: 'append',
  name: 'classAttendance',
  operation: 'classAttendance',
  filterParam: 'fromdate',
  filterZone: 'unstated',
  recordTime: (c) => classTime(c),
  tailLookbackMs: DAY_MS,
  experimental: true,
  identity: (c) => stableJson(c),
  facets: (c, id): Facet[] => [
    {
      key: id,
      events: (ctx) => {
        const memberNumber = firstString(c, ['MemberNumber', 'Number']);
        return [
          createEvent(
            DETAIL_TYPES.ClassAttendanceRecorded,
            envelopeFor(ctx, [id], { value: classTime(c), zone: 'unstated' }, subjectOf(memberNumber)),
            { data: c, experimental: true },
          ),
        ];
      },
    },
  ],
};
