/**
 * One realistic example per event, built with `createEvent` (so each is valid by construction and
 * its eventId is the real derivation). Used by the generated catalog page and by tests. The
 * records are fictitious (./example-records.ts); they use the `full` PII policy to show every field
 * a record can carry. The lifecycle events' examples are in ./lifecycle-examples.ts.
 */
import { type BridgeEvent, DETAIL_TYPES, type DetailType } from '../lambdas/events/catalog';
import { createEvent } from '../lambdas/events/envelope';
import { base, member, payment, prospect } from './example-records';
import { lifecycleExamples } from './lifecycle-examples';

export function exampleEvents(): Record<DetailType, BridgeEvent> {
  const examples: BridgeEvent[] = [
    ...visitAndPaymentExamples(),
    ...refundAndSaleExamples(),
    ...disbursementAndDebtExamples(),
    ...memberAndProspectExamples(),
    ...lifecycleExamples(),
    ...operationalExamples(),
  ];
  return Object.fromEntries(examples.map((e) => [e.detailType, e])) as Record<DetailType, BridgeEvent>;
}

/** A visit, a payment that succeeded and one that failed. */
function visitAndPaymentExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.MemberVisitRecorded,
      base(['M10042', '2025-03-05T06:02:11'], '2025-03-04T19:02:11.000Z', {
        occurredAtLocal: '2025-03-05T06:02:11',
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: {
          MemberNumber: 'M10042',
          Door: 'Front Door',
          ScanSource: 'Turnstile',
          VisitDateTime: '2025-03-05T06:02:11',
        },
      },
    ),
    createEvent(
      DETAIL_TYPES.PaymentSucceeded,
      base(['9007199254740995', 'Approved'], '2025-03-03T15:00:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: { ...payment, Id: '9007199254740995', Response: 'Approved', PaymentType: 'CC' },
        paymentId: '9007199254740995',
        paymentType: 'CC',
        response: 'Approved',
        amount: 40.4,
        isDishonourFee: false,
      },
    ),
    createEvent(
      DETAIL_TYPES.PaymentFailed,
      base(['9007199254740993', 'Dishonoured - Account Closed'], '2025-03-02T15:00:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: payment,
        paymentId: '9007199254740993',
        paymentType: 'DD',
        response: 'Dishonoured - Account Closed',
        amount: 40.4,
        isDishonourFee: false,
        reason: 'dishonoured',
        previousResponse: 'Approved',
      },
    ),
  ];
}

/** A refunded payment and a point-of-sale transaction. */
function refundAndSaleExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.PaymentRefunded,
      base(['9007199254740997', 'refunded'], '2025-03-04T01:00:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: {
          ...payment,
          Id: '9007199254740997',
          Response: 'Approved',
          Refund: { IsRefunded: true, RefundedPaymentId: '9007199254740999' },
        },
        paymentId: '9007199254740997',
        refundedPaymentId: '9007199254740999',
      },
    ),
    createEvent(
      DETAIL_TYPES.PosTransactionRecorded,
      base(['9007199254741001'], '2025-03-04T08:30:00.000Z', {
        occurredAtLocal: '2025-03-04T19:30:00',
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: {
          PosTransactionId: '9007199254741001',
          TransactionDate: '2025-03-04T19:30:00',
          TransactionType: 'Sale',
          TotalExTax: 5,
          TotalIncTax: 5.5,
          Till: 'Front Desk',
          Items: [
            {
              ItemId: '9007199254741002',
              ProductId: '501',
              ProductName: 'Protein Bar',
              PriceExTax: 5,
              PriceIncTax: 5.5,
              Quantity: 1,
              Tax: 0.5,
              Discount: 0,
              CategoryId: '12',
              CategoryName: 'Snacks',
              IsRefunded: false,
              IsVoided: false,
            },
          ],
        },
        posTransactionId: '9007199254741001',
        totalIncTax: 5.5,
      },
    ),
  ];
}

/** A disbursement and a member sent to debt collection. */
function disbursementAndDebtExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.DisbursementRecorded,
      base(['M10042', '2025-03-03T00:00:00', '39.9'], '2025-03-02T13:00:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: {
          DisbursementDate: '2025-03-05T00:00:00',
          TransactionDate: '2025-03-03T00:00:00',
          Amount: 39.9,
          MemberNumber: 'M10042',
          Department: 'Memberships',
          PaymentType: 'DD',
          Breakdown: { Membership: 39.9 },
        },
        amount: 39.9,
      },
    ),
    createEvent(
      DETAIL_TYPES.MemberSentToDebtCollection,
      base(['M10042', '2025-03-04T00:00:00'], '2025-03-03T13:00:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: {
          Amount: 119.7,
          DebtCollectionDate: '2025-03-04T00:00:00',
          MemberNumber: 'M10042',
          FirstName: 'Alex',
          LastName: 'Example',
          Email: 'alex@example.com',
          Mobile: '0400 000 000',
          Address: '1 Example Street, Surry Hills NSW 2010',
        },
        amount: 119.7,
      },
    ),
  ];
}

/** Member and prospect changes, and a class attendance. */
function memberAndProspectExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.MemberJoined,
      base(['M10042', 'joined'], '2025-03-04T22:10:00.000Z', { subject: { memberNumber: 'M10042' } }),
      { data: { ...member, Status: 'Active' }, status: 'Active', membershipName: 'Direct Debit Fortnightly' },
    ),
    createEvent(
      DETAIL_TYPES.MemberStatusChanged,
      base(['M10042', 'PaymentIssue', '2025-03-04T22:10:00'], '2025-03-04T22:10:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      { data: member, previousStatus: 'Active', status: 'PaymentIssue' },
    ),
    createEvent(
      DETAIL_TYPES.MembershipCancelled,
      base(['M10042', '2025-03-31T00:00:00'], '2025-03-04T22:10:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: { ...member, Membership: { ...member.Membership, CancellationDate: '2025-03-31T00:00:00' } },
        cancellationDate: '2025-03-31T00:00:00',
      },
    ),
    createEvent(
      DETAIL_TYPES.MemberContactPreferencesChanged,
      base(['M10042', 'email:false', 'sms:true'], '2025-03-04T22:10:00.000Z', {
        subject: { memberNumber: 'M10042' },
      }),
      {
        data: member,
        previous: { optOutEmail: false, optOutSms: false },
        current: { optOutEmail: false, optOutSms: true },
      },
    ),
    createEvent(
      DETAIL_TYPES.ProspectCreated,
      base(['P2001', 'created'], '2025-03-01T04:30:00.000Z', { subject: { prospectNumber: 'P2001' } }),
      { data: { ...prospect, Status: 'Enquiry' }, status: 'Enquiry' },
    ),
    createEvent(
      DETAIL_TYPES.ProspectStatusChanged,
      base(['P2001', 'OnTrial', '2025-03-04T09:00:00'], '2025-03-03T22:00:00.000Z', {
        occurredAtLocal: '2025-03-04T09:00:00',
        subject: { prospectNumber: 'P2001' },
      }),
      { data: prospect, previousStatus: 'Tour', status: 'OnTrial' },
    ),
    createEvent(
      DETAIL_TYPES.ClassAttendanceRecorded,
      base(['{"BookingId":88231}'], '2025-03-04T07:00:00.000Z', { subject: { memberNumber: 'M10042' } }),
      {
        data: { BookingId: 88231, MemberNumber: 'M10042', ClassName: 'Spin 45', Attended: true },
        experimental: true,
      },
    ),
  ];
}

/** The bridge's own events about a club. */
function operationalExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.ClubCredentialsRejected,
      base(['credentials', '3'], '2025-03-04T22:00:00.000Z'),
      {
        reason: 'apiKey',
        consecutiveFailures: 3,
        pausedUntil: '2025-03-04T22:30:00.000Z',
      },
    ),
    createEvent(
      DETAIL_TYPES.ClubQuotaLow,
      base(['2025-03', 'threshold', '0.9'], '2025-03-04T22:00:00.000Z'),
      {
        month: '2025-03',
        used: 905_112,
        limit: 1_000_000,
        share: 0.905112,
        reason: 'threshold',
      },
    ),
    createEvent(
      DETAIL_TYPES.ClubDataStale,
      base(['visits', '2025-03-04T20:00:00.000Z'], '2025-03-04T22:00:00.000Z'),
      {
        staleSource: 'visits',
        lastSuccessAt: '2025-03-04T20:00:00.000Z',
        ageSeconds: 7200,
      },
    ),
    createEvent(
      DETAIL_TYPES.ClubSourceUnavailable,
      base(['unavailable', 'classAttendance', '2025-03-04T22:00:00.000Z'], '2025-03-04T22:00:00.000Z'),
      {
        unavailableSource: 'classAttendance',
        kind: 'not-found',
        httpStatus: 404,
        error: 'classAttendance: HTTP 404 not found: Not Found',
        experimental: true,
        since: '2025-03-04T22:00:00.000Z',
        retryAt: '2025-03-05T04:00:00.000Z',
      },
    ),
    ...webhookExamples(),
  ];
}

/** The webhook delivery's events about an endpoint (docs/webhooks.md). */
function webhookExamples(): BridgeEvent[] {
  const endpoint = { endpointId: 'ep-3f9a0c1d2e4b5a69', endpointHost: 'hooks.example.com' };
  return [
    createEvent(
      DETAIL_TYPES.WebhookDeliveryFailed,
      base(['ep-3f9a0c1d2e4b5a69', '5b0e4c7d1a2f3e6b8c9d0a1b2c3d4e5f'], '2025-03-07T23:35:05.000Z'),
      {
        ...endpoint,
        reason: 'schedule-exhausted',
        webhookId: '5b0e4c7d1a2f3e6b8c9d0a1b2c3d4e5f',
        webhookType: DETAIL_TYPES.MemberStatusChanged,
        attempts: 10,
        firstQueuedAt: '2025-03-04T20:00:00.000Z',
        lastAttemptAt: '2025-03-07T23:35:05.000Z',
        lastStatus: 503,
        lastError: 'HTTP 503',
      },
    ),
    createEvent(
      DETAIL_TYPES.WebhookEndpointDisabled,
      base(['ep-3f9a0c1d2e4b5a69', 'gone', '2025-03-01T00:00:00.000Z'], '2025-03-04T22:00:00.000Z'),
      { ...endpoint, reason: 'gone', lastStatus: 410, lastError: 'HTTP 410 Gone' },
    ),
  ];
}
