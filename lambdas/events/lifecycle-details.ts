/**
 * The zod schemas of the lifecycle events' details (docs/lifecycle.md), for the catalog
 * (./catalog.ts): facts the bridge derives from the member and prospect snapshots, visits and
 * payments it already reads. `source` is 'lifecycle'. No `data`: these events carry no API record,
 * only the member or prospect number, local dates and counts. The subject is stricter than the
 * shared one: its number is required. Times of the facts are gym local (zone-less, as the API
 * gives them); `occurredAt` is the fact's moment in UTC, `occurredAtLocal` the same in gym local.
 */
import { z } from 'zod';
import { dateTime as localDateTime } from '../gym-api/schemas';
import { detailEnvelope, SubjectSchema, utcDateTime } from './detail-envelope';
import { Int64String } from './event-data';

const ABOUT = 'Who the event is about';

const lifecycleEnvelope = {
  ...detailEnvelope('lifecycle'),
  occurredAt: utcDateTime.describe(
    "The fact's moment, UTC: the visit or payment time; for a threshold, the latest of the moment it was crossed, the poll that read the change that made the subject qualify, and the start of tracking",
  ),
  occurredAtLocal: localDateTime.optional().describe("The fact's moment in gym local time"),
};

/*
 * The subject: the shared strict one with the number required. The other number stays an optional
 * key the bridge never sets, so that the subject of any event keeps one shape in TypeScript: code
 * that reads `detail.subject.memberNumber` of any event compiles as it did before these events.
 */
const memberEnvelope = {
  ...lifecycleEnvelope,
  subject: SubjectSchema.extend({
    memberNumber: z.string().min(1).describe('Member number (always set)'),
    prospectNumber: z.string().optional().describe('Never set: the event is about a member'),
  }).describe(ABOUT),
};

const prospectEnvelope = {
  ...lifecycleEnvelope,
  subject: SubjectSchema.extend({
    memberNumber: z.string().optional().describe('Never set: the event is about a prospect'),
    prospectNumber: z.string().min(1).describe('Prospect number (always set)'),
  }).describe(ABOUT),
};

/** A count of whole days or hours: an integer, 0 or more. */
const count = (description: string) => z.number().int().min(0).describe(description);

export const MemberFirstVisitDetail = z.strictObject({
  ...memberEnvelope,
  visitedAt: localDateTime.describe(
    'The first visit at or after the membership start that the bridge has seen (gym local time)',
  ),
  membershipStartDate: localDateTime.describe('Membership.StartDate of the membership (gym local time)'),
});

export const MemberInactiveDetail = z.strictObject({
  ...memberEnvelope,
  lastVisitAt: localDateTime
    .nullable()
    .describe(
      'The last visit the bridge has seen (gym local time); null when it has seen no visit of the member',
    ),
  inactiveDays: count(
    'Whole days since lastVisitAt, or since the membership start or the start of tracking when lastVisitAt is null',
  ),
  thresholdDays: z.number().int().min(1).describe("The club's lifecycle.inactiveDays setting (default 14)"),
});

export const MemberReturnedDetail = z.strictObject({
  ...memberEnvelope,
  visitedAt: localDateTime.describe('The visit after the lapse (gym local time)'),
  lastVisitAt: localDateTime
    .nullable()
    .describe('The last visit before the lapse (gym local time); null when the bridge had seen none'),
  inactiveDays: count(
    'Whole days between lastVisitAt (or the start of the lapse) and visitedAt; below the threshold when a late visit corrects an announced lapse',
  ),
});

export const MEMBERSHIP_EXPIRING_KINDS = ['expiry', 'minimumTerm'] as const;
export type MembershipExpiringKind = (typeof MEMBERSHIP_EXPIRING_KINDS)[number];

export const MembershipExpiringDetail = z.strictObject({
  ...memberEnvelope,
  kind: z
    .enum(MEMBERSHIP_EXPIRING_KINDS)
    .describe('expiry (Membership.ExpiryDate) or minimumTerm (Membership.MinimumTermDate)'),
  date: localDateTime.describe('The ExpiryDate or MinimumTermDate (gym local time)'),
  daysLeft: count('Whole local calendar days from today to the date: 0 on the day itself'),
});

export const PaymentRecoveredDetail = z.strictObject({
  ...memberEnvelope,
  paymentId: Int64String.describe('Payment history id of the successful payment (int64 as a string)'),
  failedPaymentId: Int64String.describe(
    'Payment history id of the latest failure before the success (int64 as a string)',
  ),
  failedResponse: z
    .string()
    .describe('The Response of the failed payment, e.g. "Dishonoured - Account Closed"'),
  failedAt: localDateTime.describe('PaymentDate of the failed payment (gym local time)'),
  recoveredAt: localDateTime.describe('PaymentDate of the successful payment (gym local time)'),
});

export const ProspectTrialEndingDetail = z.strictObject({
  ...prospectEnvelope,
  trialEndDate: localDateTime.describe("The prospect's TrialEndDate (gym local time)"),
  hoursLeft: count('Whole hours until the trial end, rounded down'),
});
