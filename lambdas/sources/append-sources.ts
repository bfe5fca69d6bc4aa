/**
 * The append sources: a record (or one facet of it) becomes an event the first time its key is
 * seen. Keys are the record's identity plus the fields whose later change matters. The payment
 * history source is in ./payment-source.ts.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../common/time-units';
import { DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import { DATE_TIME_PATTERN } from '../gym-api/schemas';
import { join, memo, subjectOf, usable } from './append-keys';
import { envelopeFor } from './record-time';
import type { AppendSource, Facet } from './source';

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
  // A check-in at the door: probed every 15 s while the club is active (engine/schedule/fast-lane.ts).
  fastLane: true,
  // A minute's poll asks for the rows past the last whole tail's count and detects those alone; the
  // whole tail every 5 minutes (a visit that lands inside the window, not at its end, waits that long).
  tailProbe: { fullEveryMs: 5 * MINUTE_MS },
  // A visit of nobody (no member number, or a blank one) has no identity: it is quarantined.
  identity: (v) =>
    usable(v.MemberNumber) && v.VisitDateTime ? join(v.MemberNumber, v.VisitDateTime, v.Door) : undefined,
  facets: (v, id): Facet[] => [
    {
      key: id,
      // Who visited: the lifecycle evaluation reads it back with the visit's time.
      ...memo(v.MemberNumber ?? ''),
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
  seenDigest: true,
  // The run comes once a day: a tail asks first whether the window gained rows (one row's request),
  // and reads them whole then, or every 15 minutes (a row replaced in place is found by then).
  tailProbe: { fullEveryMs: 15 * MINUTE_MS },
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
