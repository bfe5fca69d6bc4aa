/**
 * The append sources: identity, facets (seen keys) and the events each facet produces.
 * Times: the Sydney club is AEST (+10) in June and AEDT (+11) in January.
 */
import { describe, expect, it } from 'vitest';
import { type BridgeEvent, DETAIL_TYPES } from '../../../lambdas/events/catalog';
import {
  classAttendanceSource,
  debtCollectionSource,
  disbursementsSource,
  posTransactionsSource,
  stableJson,
  visitsSource,
} from '../../../lambdas/sources/append-sources';
import { paymentHistorySource } from '../../../lambdas/sources/payment-source';
import type { AppendSource, ClubContext } from '../../../lambdas/sources/source';
import {
  classAttendance,
  debtCollection,
  disbursement,
  payment,
  posTransaction,
  sydney,
  sydneyUtc,
  visit,
} from './fixtures';

/** Identity, facets and every facet's events, as the engine computes them for a fresh record. */
function detect<T>(source: AppendSource, item: T, ctx: ClubContext = sydney) {
  const anySource = source as unknown as {
    identity: (i: T) => string | undefined;
    facets: (i: T, id: string) => { key: string; events: (c: ClubContext) => BridgeEvent[] }[];
  };
  const id = anySource.identity(item);
  if (id === undefined) throw new Error('test record has no identity');
  const facets = anySource.facets(item, id);
  return { id, facets, events: facets.flatMap((f) => f.events(ctx)) };
}

/** The record an event carries (every record event has one). */
const dataOf = (event: BridgeEvent) => (event.detail as { data?: unknown }).data;

const only = (events: BridgeEvent[]) => {
  expect(events).toHaveLength(1);
  return events[0]!;
};

describe('visits', () => {
  it('identity: member, time and door; undefined without member number or time', () => {
    const id = visitsSource.identity(visit());
    expect(id).toBeDefined();
    expect(visitsSource.identity(visit({ Door: 'Side' }))).not.toBe(id);
    expect(visitsSource.identity(visit({ VisitDateTime: '2025-06-01T06:00:01' }))).not.toBe(id);
    expect(visitsSource.identity(visit({ ScanSource: 'App' }))).toBe(id);
    expect(visitsSource.identity(visit({ MemberNumber: null }))).toBeUndefined();
    expect(visitsSource.identity(visit({ MemberNumber: '' }))).toBeUndefined();
    expect(visitsSource.identity(visit({ VisitDateTime: undefined }))).toBeUndefined();
  });

  it('recordTime is VisitDateTime', () => {
    expect(visitsSource.recordTime?.(visit({ VisitDateTime: '2025-06-01T07:08:09' }))).toBe(
      '2025-06-01T07:08:09',
    );
  });

  it('one facet keyed by the identity, one Member Visit Recorded in UTC with the local value', () => {
    const { id, facets, events } = detect(visitsSource, visit());
    expect(facets.map((f) => f.key)).toEqual([id]);
    const event = only(events);
    expect(event.detailType).toBe(DETAIL_TYPES.MemberVisitRecorded);
    expect(event.detail).toMatchObject({
      clubId: 'club-syd',
      source: 'visits',
      occurredAt: '2025-05-31T20:00:00.000Z',
      occurredAtLocal: '2025-06-01T06:00:00',
      observedAt: '2025-06-02T00:00:00.000Z',
      subject: { memberNumber: 'M100' },
      data: { MemberNumber: 'M100', Door: 'Front', VisitDateTime: '2025-06-01T06:00:00' },
    });
  });

  it('reads a summer visit with daylight time (+11), whatever unstatedZone says', () => {
    const summer = visit({ VisitDateTime: '2025-01-15T06:00:00' });
    for (const ctx of [sydney, sydneyUtc]) {
      expect(only(detect(visitsSource, summer, ctx).events).detail.occurredAt).toBe(
        '2025-01-14T19:00:00.000Z',
      );
    }
  });

  it('eventId: the same visit always has the same id, another visit another id', () => {
    const first = only(detect(visitsSource, visit()).events).detail.eventId;
    const later = only(
      detect(visitsSource, visit(), { ...sydney, observedAtMs: sydney.observedAtMs + 9e6 }).events,
    ).detail.eventId;
    const otherDoor = only(detect(visitsSource, visit({ Door: 'Side' })).events).detail.eventId;
    const otherClub = only(detect(visitsSource, visit(), { ...sydney, clubId: 'club-2' }).events).detail
      .eventId;
    expect(later).toBe(first);
    expect(new Set([first, otherDoor, otherClub]).size).toBe(3);
  });
});

describe('paymentHistory', () => {
  it('identity is the payment Id; undefined without one', () => {
    expect(paymentHistorySource.identity(payment())).toBe('9007199254740993');
    expect(paymentHistorySource.identity(payment({ Id: null }))).toBeUndefined();
    expect(paymentHistorySource.identity(payment({ Id: undefined }))).toBeUndefined();
  });

  it('recordTime is PaymentDate', () => {
    expect(paymentHistorySource.recordTime?.(payment({ PaymentDate: '2025-06-09T10:00:00' }))).toBe(
      '2025-06-09T10:00:00',
    );
  });

  it("files the member and the Id with the Response's seen entry, a visit its member (when they fit)", () => {
    // Act
    const paid = paymentHistorySource.facets(payment({ Number: '100042' }), '9007199254740993');
    const visited = visitsSource.facets(visit({ MemberNumber: '100042' }), 'k');
    const huge = visitsSource.facets(visit({ MemberNumber: '9'.repeat(300) }), 'k');
    // Assess
    expect(paid[0]!.memo).toBe(
      `["100042","9007199254740993",${JSON.stringify(payment().PaymentType ?? null)}]`,
    );
    expect(visited[0]!.memo).toBe('100042');
    expect(huge[0]!.memo).toBeUndefined();
  });

  it('a changed Response is a new facet key (a dishonour after an approval is seen again)', () => {
    const approved = detect(paymentHistorySource, payment({ Response: 'Approved' }));
    const dishonoured = detect(paymentHistorySource, payment({ Response: 'Dishonoured - Account Closed' }));
    const again = detect(paymentHistorySource, payment({ Response: 'Approved', PaymentDescription: 'x' }));
    expect(approved.facets).toHaveLength(1);
    expect(dishonoured.facets[0]!.key).not.toBe(approved.facets[0]!.key);
    expect(again.facets[0]!.key).toBe(approved.facets[0]!.key);
  });

  it('Approved -> Payment Succeeded with id, type, response and amount', () => {
    const event = only(detect(paymentHistorySource, payment()).events);
    expect(event.detailType).toBe(DETAIL_TYPES.PaymentSucceeded);
    expect(event.detail).toMatchObject({
      source: 'paymentHistory',
      paymentId: '9007199254740993',
      paymentType: 'DD',
      response: 'Approved',
      amount: 30.45,
      occurredAt: '2025-05-31T20:00:00.000Z',
      occurredAtLocal: '2025-06-01T06:00:00',
      subject: { memberNumber: 'M100' },
    });
    expect(event.detail).not.toHaveProperty('isDishonourFee');
  });

  it.each([
    ['Declined - Insufficient Funds', 'declined'],
    ['Dishonoured - Refer to Customer', 'dishonoured'],
    ['Gremlins ate it', 'unknown-response'],
  ])('%s -> Payment Failed, reason %s', (response, reason) => {
    const event = only(detect(paymentHistorySource, payment({ Response: response })).events);
    expect(event.detailType).toBe(DETAIL_TYPES.PaymentFailed);
    expect(event.detail).toMatchObject({ response, reason, paymentId: '9007199254740993' });
  });

  it('a missing Response is an unknown-response failure with response ""', () => {
    const event = only(detect(paymentHistorySource, payment({ Response: null })).events);
    expect(event.detailType).toBe(DETAIL_TYPES.PaymentFailed);
    expect(event.detail).toMatchObject({ response: '', reason: 'unknown-response' });
  });

  it('Pending gives no event (its key is still a facet, so a later outcome is new)', () => {
    const pending = detect(paymentHistorySource, payment({ Response: 'Pending' }));
    expect(pending.facets).toHaveLength(1);
    expect(pending.events).toEqual([]);
    const settled = detect(paymentHistorySource, payment({ Response: 'Approved' }));
    expect(settled.facets[0]!.key).not.toBe(pending.facets[0]!.key);
    expect(settled.events).toHaveLength(1);
  });

  it('an approval and a later dishonour of the same payment have different eventIds', () => {
    const approved = only(detect(paymentHistorySource, payment()).events);
    const dishonoured = only(detect(paymentHistorySource, payment({ Response: 'Dishonoured' })).events);
    const replay = only(detect(paymentHistorySource, payment()).events);
    expect(dishonoured.detail.eventId).not.toBe(approved.detail.eventId);
    expect(replay.detail.eventId).toBe(approved.detail.eventId);
  });

  it('a dishonour fee line is flagged', () => {
    const event = only(
      detect(paymentHistorySource, payment({ FeeBreakdown: [{ DishonourFee: 15 }, { ArrearsFee: 30 }] }))
        .events,
    );
    expect(event.detail).toMatchObject({ isDishonourFee: true, amount: 45 });
  });

  it("the club's payment rules are applied", () => {
    const ctx = { ...sydney, paymentRules: { succeeded: ['^OK$'] } };
    expect(only(detect(paymentHistorySource, payment({ Response: 'OK' }), ctx).events).detailType).toBe(
      DETAIL_TYPES.PaymentSucceeded,
    );
    expect(only(detect(paymentHistorySource, payment({ Response: 'OK' })).events).detailType).toBe(
      DETAIL_TYPES.PaymentFailed,
    );
  });

  it('a refund is an extra facet with its own key, stable when the Response changes', () => {
    const refund = { IsRefunded: true, RefundedPaymentId: '77' };
    const refunded = detect(paymentHistorySource, payment({ Refund: refund }));
    expect(refunded.facets).toHaveLength(2);
    const [responseFacet, refundFacet] = refunded.facets;
    expect(refundFacet!.key).not.toBe(responseFacet!.key);
    const reversed = detect(paymentHistorySource, payment({ Refund: refund, Response: 'Reversed' }));
    expect(reversed.facets[1]!.key).toBe(refundFacet!.key);
    expect(reversed.facets[0]!.key).not.toBe(responseFacet!.key);

    expect(refunded.events.map((e) => e.detailType)).toEqual([
      DETAIL_TYPES.PaymentSucceeded,
      DETAIL_TYPES.PaymentRefunded,
    ]);
    expect(refunded.events[1]!.detail).toMatchObject({
      paymentId: '9007199254740993',
      refundedPaymentId: '77',
      occurredAt: '2025-05-31T20:00:00.000Z',
    });
  });

  it('no refund facet unless IsRefunded is true', () => {
    expect(detect(paymentHistorySource, payment({ Refund: { IsRefunded: false } })).facets).toHaveLength(1);
    expect(detect(paymentHistorySource, payment({ Refund: null })).facets).toHaveLength(1);
  });
});

describe('posTransactions', () => {
  it('identity is PosTransactionId; undefined without one', () => {
    expect(posTransactionsSource.identity(posTransaction())).toBe('4001');
    expect(posTransactionsSource.identity(posTransaction({ PosTransactionId: null }))).toBeUndefined();
  });

  it('POS Transaction Recorded with the id, total and member', () => {
    const { id, facets, events } = detect(posTransactionsSource, posTransaction());
    expect(facets.map((f) => f.key)).toEqual([id]);
    const event = only(events);
    expect(event.detailType).toBe(DETAIL_TYPES.PosTransactionRecorded);
    expect(event.detail).toMatchObject({
      posTransactionId: '4001',
      totalIncTax: 11,
      subject: { memberNumber: 'M100' },
      occurredAt: '2025-05-31T20:00:00.000Z',
    });
    expect(posTransactionsSource.recordTime?.(posTransaction())).toBe('2025-06-01T06:00:00');
  });

  it('a sale without a member has an empty subject', () => {
    const event = only(detect(posTransactionsSource, posTransaction({ MemberNumber: undefined })).events);
    expect(event.detail.subject).toEqual({});
  });
});

describe('disbursements', () => {
  it('identity needs a TransactionDate or a DisbursementDate and covers amount and department', () => {
    const id = disbursementsSource.identity(disbursement());
    expect(id).toBeDefined();
    expect(disbursementsSource.identity(disbursement({ Amount: 30 }))).not.toBe(id);
    expect(disbursementsSource.identity(disbursement({ Department: 'POS' }))).not.toBe(id);
    expect(disbursementsSource.identity(disbursement({ TransactionDate: null }))).toBeDefined();
    expect(disbursementsSource.identity(disbursement({ DisbursementDate: null }))).toBeDefined();
    expect(
      disbursementsSource.identity(disbursement({ TransactionDate: null, DisbursementDate: undefined })),
    ).toBeUndefined();
  });

  it('recordTime is TransactionDate, else DisbursementDate', () => {
    expect(disbursementsSource.recordTime?.(disbursement())).toBe('2025-06-01T06:00:00');
    expect(disbursementsSource.recordTime?.(disbursement({ TransactionDate: null }))).toBe(
      '2025-06-03T00:00:00',
    );
  });

  it('Disbursement Recorded with the amount, at the transaction date', () => {
    const event = only(detect(disbursementsSource, disbursement()).events);
    expect(event.detailType).toBe(DETAIL_TYPES.DisbursementRecorded);
    expect(event.detail).toMatchObject({ amount: 29.95, occurredAt: '2025-05-31T20:00:00.000Z' });
    const settledOnly = only(detect(disbursementsSource, disbursement({ TransactionDate: null })).events);
    expect(settledOnly.detail.occurredAt).toBe('2025-06-02T14:00:00.000Z');
  });
});

describe('debtCollection', () => {
  it('identity: member and date; undefined without either', () => {
    expect(debtCollectionSource.identity(debtCollection())).toBeDefined();
    expect(debtCollectionSource.identity(debtCollection({ MemberNumber: null }))).toBeUndefined();
    expect(debtCollectionSource.identity(debtCollection({ DebtCollectionDate: null }))).toBeUndefined();
  });

  it('Member Sent To Debt Collection with the amount; minimal PII strips contact details', () => {
    const event = only(detect(debtCollectionSource, debtCollection()).events);
    expect(event.detailType).toBe(DETAIL_TYPES.MemberSentToDebtCollection);
    expect(event.detail).toMatchObject({ amount: 120, subject: { memberNumber: 'M100' } });
    expect(dataOf(event)).toEqual({
      Amount: 120,
      DebtCollectionDate: '2025-06-01T06:00:00',
      MemberNumber: 'M100',
      FirstName: 'Alex',
    });
    expect(JSON.stringify(event)).not.toMatch(/alex@example\.com|0400|Example Street|"Example"/);
  });

  it("a club on the 'full' policy gets the record as the API gave it", () => {
    const event = only(
      detect(debtCollectionSource, debtCollection(), { ...sydney, piiPolicy: 'full' }).events,
    );
    expect(dataOf(event)).toEqual(debtCollection());
  });
});

describe('classAttendance (experimental)', () => {
  it('identity is the whole record, independent of key order, and always defined', () => {
    const a = { ClassName: 'Spin', MemberNumber: 'M1', Nested: { b: 1, a: [2, { d: 3, c: 4 }] } };
    const b = { Nested: { a: [2, { c: 4, d: 3 }], b: 1 }, MemberNumber: 'M1', ClassName: 'Spin' };
    expect(classAttendanceSource.identity(a)).toBe(classAttendanceSource.identity(b));
    expect(classAttendanceSource.identity({ ...a, ClassName: 'Yoga' })).not.toBe(
      classAttendanceSource.identity(a),
    );
    expect(classAttendanceSource.identity({})).toBe('{}');
    expect(stableJson({ b: null, a: 'x' })).toBe('{"a":"x","b":null}');
  });

  it.each([
    [{ ClassDateTime: '2025-06-01T06:00:00' }, '2025-06-01T06:00:00'],
    [{ StartDateTime: '2025-06-01T07:00:00' }, '2025-06-01T07:00:00'],
    [{ AttendanceDateTime: '2025-06-01T08:00:00', ClassDate: '2025-06-01T00:00:00' }, '2025-06-01T00:00:00'],
    [{ ClassName: 'Spin' }, undefined],
    // Not the API's date-time pattern: ignored rather than failing the whole scan.
    [{ ClassDate: '2025-06-01', StartDateTime: '2025-06-01T07:00:00' }, '2025-06-01T07:00:00'],
    [{ ClassDateTime: 'Monday 6am' }, undefined],
    [{ ClassDateTime: 20250601 }, undefined],
  ])('recordTime of %j is %s', (record, expected) => {
    expect(classAttendanceSource.recordTime?.(record)).toBe(expected);
  });

  it('Class Attendance Recorded carries the raw record, marked experimental', () => {
    const event = only(detect(classAttendanceSource, classAttendance()).events);
    expect(event.detailType).toBe(DETAIL_TYPES.ClassAttendanceRecorded);
    expect(event.detail).toMatchObject({
      experimental: true,
      subject: { memberNumber: 'M100' },
      occurredAt: '2025-05-31T20:00:00.000Z',
      data: { ClassName: 'Spin' },
    });
  });

  it('a record without a usable time occurred when it was observed', () => {
    for (const record of [{ ClassName: 'Spin' }, { ClassDate: '2025-06-01' }]) {
      const event = only(detect(classAttendanceSource, record).events);
      expect(event.detail.occurredAt).toBe('2025-06-02T00:00:00.000Z');
      expect(event.detail).not.toHaveProperty('occurredAtLocal');
    }
  });
});

describe("unstatedZone: 'local' vs 'utc' for the sources whose zone the API does not state", () => {
  const cases: [string, AppendSource, unknown][] = [
    ['paymentHistory', paymentHistorySource as AppendSource, payment()],
    ['posTransactions', posTransactionsSource as AppendSource, posTransaction()],
    ['disbursements', disbursementsSource as AppendSource, disbursement()],
    ['debtCollection', debtCollectionSource as AppendSource, debtCollection()],
    ['classAttendance', classAttendanceSource as AppendSource, classAttendance()],
  ];

  it.each(cases)('%s: 06:00 is 20:00Z the day before (local, +10) or 06:00Z (utc)', (_name, source, item) => {
    const local = only(detect(source, item, sydney).events).detail;
    const asUtc = only(detect(source, item, sydneyUtc).events).detail;
    expect(local.occurredAt).toBe('2025-05-31T20:00:00.000Z');
    expect(local.occurredAtLocal).toBe('2025-06-01T06:00:00');
    expect(asUtc.occurredAt).toBe('2025-06-01T06:00:00.000Z');
    expect(asUtc).not.toHaveProperty('occurredAtLocal');
    // The reading changes when it happened, not which event it is.
    expect(asUtc.eventId).toBe(local.eventId);
  });

  it('a summer payment read as local uses daylight time (+11)', () => {
    const event = only(detect(paymentHistorySource, payment({ PaymentDate: '2025-01-15T06:00:00' })).events);
    expect(event.detail.occurredAt).toBe('2025-01-14T19:00:00.000Z');
  });
});
