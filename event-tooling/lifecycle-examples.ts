/**
 * One realistic example per lifecycle event (docs/lifecycle.md), for ./examples.ts. Club club-1 is
 * in Australia/Sydney (UTC+11 in March): each `occurredAt` is its `occurredAtLocal` in UTC, and the
 * identity is what the engine names the fact by (member or prospect, the fact, what it is about).
 * The club's settings: inactiveDays 30, expiringDays 14, trialEndingHours 24. Time-based facts
 * are observed by the first hourly evaluation after their moment.
 */
import { type BridgeEvent, DETAIL_TYPES } from '../lambdas/events/catalog';
import { createEvent } from '../lambdas/events/envelope';
import { base } from './example-records';

export function lifecycleExamples(): BridgeEvent[] {
  return [...visitExamples(), ...dueExamples()];
}

/** Facts of a visit or a payment: their moment is the record's. */
function visitExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.MemberFirstVisit,
      base(['M10077', 'firstVisit', '2025-03-05T00:00:00'], '2025-03-04T21:31:45.000Z', {
        occurredAtLocal: '2025-03-05T08:31:45',
        subject: { memberNumber: 'M10077' },
      }),
      { visitedAt: '2025-03-05T08:31:45', membershipStartDate: '2025-03-05T00:00:00' },
    ),
    createEvent(
      DETAIL_TYPES.MemberReturned,
      base(['M10057', 'returned', '2025-01-20T18:20:00'], '2025-03-04T21:58:12.000Z', {
        occurredAtLocal: '2025-03-05T08:58:12',
        subject: { memberNumber: 'M10057' },
      }),
      { visitedAt: '2025-03-05T08:58:12', lastVisitAt: '2025-01-20T18:20:00', inactiveDays: 44 },
    ),
    createEvent(
      DETAIL_TYPES.PaymentRecovered,
      base(['M10042', 'recovered', '9007199254740993'], '2025-03-03T15:00:00.000Z', {
        occurredAtLocal: '2025-03-04T02:00:00',
        subject: { memberNumber: 'M10042' },
      }),
      {
        paymentId: '9007199254740995',
        failedPaymentId: '9007199254740993',
        failedResponse: 'Dishonoured - Account Closed',
        failedAt: '2025-03-03T02:00:00',
        recoveredAt: '2025-03-04T02:00:00',
      },
    ),
  ];
}

/** Time-based facts: their moment is when the threshold was crossed. */
function dueExamples(): BridgeEvent[] {
  return [
    createEvent(
      DETAIL_TYPES.MemberInactive,
      base(['M10031', 'inactive', '2025-02-03T08:47:00'], '2025-03-04T21:47:00.000Z', {
        occurredAtLocal: '2025-03-05T08:47:00',
        subject: { memberNumber: 'M10031' },
      }),
      { lastVisitAt: '2025-02-03T08:47:00', inactiveDays: 30, thresholdDays: 30 },
    ),
    createEvent(
      DETAIL_TYPES.MembershipExpiring,
      base(['M10063', 'expiring', 'expiry', '2025-03-19T00:00:00'], '2025-03-04T13:00:00.000Z', {
        occurredAtLocal: '2025-03-05T00:00:00',
        observedAt: '2025-03-04T13:00:41.000Z',
        subject: { memberNumber: 'M10063' },
      }),
      { kind: 'expiry', date: '2025-03-19T00:00:00', daysLeft: 14 },
    ),
    createEvent(
      DETAIL_TYPES.ProspectTrialEnding,
      base(['P2001', 'trialEnding', '2025-03-11T00:00:00'], '2025-03-09T13:00:00.000Z', {
        occurredAtLocal: '2025-03-10T00:00:00',
        observedAt: '2025-03-09T13:00:38.000Z',
        subject: { prospectNumber: 'P2001' },
      }),
      { trialEndDate: '2025-03-11T00:00:00', hoursLeft: 23 },
    ),
  ];
}
