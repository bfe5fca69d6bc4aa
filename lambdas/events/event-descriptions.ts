/**
 * When each event is emitted, in words: the generated catalog page (docs/events.md), the rule
 * and registry descriptions. Part of the catalog (./catalog.ts).
 */
import { DETAIL_TYPES, type DetailType } from './event-names';

/** What the six lifecycle events (docs/lifecycle.md) have in common, said after each one's rule. */
const LIFECYCLE =
  "A lifecycle event (docs/lifecycle.md): derived from what the bridge already reads (no API request in a normal hour; the club's first evaluation reads the visit history once), evaluated once an hour, at a minute of the hour set per club, so it lands within an hour of its moment. Once per fact (a stable eventId). One rule for all six: a fact the club's first evaluation found is its silent baseline; a subject that comes to qualify later (a new member or prospect, a status change, a date set or moved, a re-activation) is announced by the first evaluation that sees it, and occurredAt is then never before the poll that read the change, nor ever before the start of tracking. Lifecycle events are never backfilled.";

/** occurredAt of a time-based lifecycle fact: the one rule (docs/lifecycle.md, "Baseline and late qualifiers"). */
const LATEST_OF = (moment: string) =>
  `occurredAt is the latest of ${moment}, the poll that read the change that made the subject qualify (when that came after it), and the start of tracking (UTC); occurredAtLocal the same in gym local time.`;
/** occurredAt of a record-based lifecycle fact. */
const RECORD_TIME = (record: string) =>
  `occurredAt is ${record} (UTC; the start of tracking if earlier), occurredAtLocal the same in gym local time as the API wrote it.`;

/** When each event is emitted: used by the generated catalog page and as rule descriptions. */
export const EVENT_DESCRIPTIONS: Record<DetailType, string> = {
  [DETAIL_TYPES.MemberVisitRecorded]:
    'A member scanned in at a door (GET /members/attendance/visits). One event per visit record, the first time the bridge sees it. Creche, personal-training and class visits are not in this resource.',
  [DETAIL_TYPES.PaymentSucceeded]:
    'A payment-history record whose Response the payment classifier reads as a success (for example "Approved"). One event per payment id and Response.',
  [DETAIL_TYPES.PaymentFailed]:
    'A payment was declined, a direct debit that had been approved was dishonoured later (the same payment id with a new Response; previousResponse holds the earlier one), or the Response was not recognised (reason unknown-response: an unrecognised Response is never treated as a success).',
  [DETAIL_TYPES.PaymentRefunded]:
    'A payment-history line was marked refunded (Refund.IsRefunded became true).',
  [DETAIL_TYPES.PosTransactionRecorded]:
    'A point-of-sale transaction was recorded (GET /members/pos/transactions).',
  [DETAIL_TYPES.DisbursementRecorded]:
    'A disbursement to the club was recorded (GET /financial/disbursements).',
  [DETAIL_TYPES.MemberSentToDebtCollection]:
    'A member was referred to debt collection (GET /financial/debtcollection).',
  [DETAIL_TYPES.MemberJoined]:
    "A member the bridge had not seen before appeared in GET /members (after the club's silent first baseline).",
  [DETAIL_TYPES.MemberStatusChanged]:
    "A member's Status differs from the stored snapshot, for example Active -> PaymentIssue.",
  [DETAIL_TYPES.MembershipCancelled]: "A member's Membership.CancellationDate was set or changed.",
  [DETAIL_TYPES.MemberContactPreferencesChanged]:
    "A member's Contact.OptOutEmail or Contact.OptOutSms changed.",
  [DETAIL_TYPES.ProspectCreated]:
    "A prospect the bridge had not seen before appeared in GET /prospects (after the club's silent first baseline).",
  [DETAIL_TYPES.ProspectStatusChanged]:
    "A prospect's Status differs from the stored snapshot, for example Tour -> OnTrial.",
  [DETAIL_TYPES.ClassAttendanceRecorded]:
    'A group-class attendance record appeared (GET /members/attendance/classes). Experimental: the API document does not show the shape of these records, so `data` is carried as given (under the minimal PII policy: only fields that name no person) and may change.',
  [DETAIL_TYPES.MemberFirstVisit]: `A member made the first visit of a new membership (at or after its StartDate). Only for a membership that started at or after the start of the visit history the club's first evaluation read: earlier memberships' first visits are history the bridge never saw. Once per membership start; visitedAt is the earliest such visit seen when it announces. ${RECORD_TIME('the visit')} ${LIFECYCLE}`,
  [DETAIL_TYPES.MemberInactive]: `An Active member has not visited for the club's lifecycle.inactiveDays setting (default 14). Counted from the member's real last visit: the latest the bridge has seen (its first evaluation read inactiveDays of visit history), or the membership start when later; with no visit seen, from the start of that history (lastVisitAt is then null). Once per lapse; not for a member whose status is anything but Active. ${LATEST_OF('the moment the threshold was crossed')} ${LIFECYCLE}`,
  [DETAIL_TYPES.MemberReturned]: `A member visited after an announced Member Inactive. inactiveDays is the whole days between lastVisitAt and visitedAt. A visit that reaches the bridge late, dated before the moment of the announced Inactive, shows the lapse was not one: it is published as Member Returned all the same, with inactiveDays below the threshold (how a consumer tells a correction from a return). ${RECORD_TIME('the visit')} ${LIFECYCLE}`,
  [DETAIL_TYPES.MembershipExpiring]: `An Active member's Membership.ExpiryDate (kind expiry) or Membership.MinimumTermDate (kind minimumTerm) is within the club's lifecycle.expiringDays setting (default 14). Once per kind and date (a date that moves is a new fact); not for a membership with a CancellationDate, nor for a member whose status is not Active. ${LATEST_OF('the moment the window opened (expiringDays before the date)')} ${LIFECYCLE}`,
  [DETAIL_TYPES.PaymentRecovered]: `A payment succeeded for a member whose previous payment outcome (by PaymentDate) was a failure (declined or dishonoured). An unrecognised Response is not an outcome. Once per failed payment: failedPaymentId is the latest failure before the success; a failure that arrives late, dated before a success that already recovered the member, opens nothing. ${RECORD_TIME('the successful payment')} ${LIFECYCLE}`,
  [DETAIL_TYPES.ProspectTrialEnding]: `An OnTrial prospect's TrialEndDate is within the club's lifecycle.trialEndingHours setting (default 24, real hours). Once per trial end (a trial end that moves is a new fact); not once the prospect is in any other status. ${LATEST_OF('the moment the window opened (trialEndingHours before the end)')} ${LIFECYCLE}`,
  [DETAIL_TYPES.ClubCredentialsRejected]:
    'The API answered 401 for the club (token or API key refused). Polling of the club pauses with back-off until pausedUntil.',
  [DETAIL_TYPES.ClubQuotaLow]:
    "The club's monthly request count crossed the alert threshold of its plan, or the API answered 429 (quota exceeded).",
  [DETAIL_TYPES.ClubDataStale]:
    'A source of the club has not completed a poll for longer than its staleness limit.',
  [DETAIL_TYPES.ClubSourceUnavailable]:
    "A source's endpoint is missing or refused for the club (HTTP 404, or 403 that blames no credential; for an experimental source also 400 or a response that is not a usable page). The source is marked unavailable and re-tried every 6 hours; the club's other sources go on. Emitted once per episode: a source that comes back and goes away again is a new episode.",
  [DETAIL_TYPES.WebhookDeliveryFailed]:
    "A webhook delivery (docs/webhooks.md) ran out of its retry schedule (10 attempts over about 3 days, or 3 days of an endpoint that kept failing): the event is in the endpoint's dead letters, where `webhooks redrive` delivers it again. Once per dead letter (a redriven delivery that fails again is a new one). clubId is the club of the undelivered event; the endpoint's URL is never in the event (its path or query may hold a token), only its host.",
  [DETAIL_TYPES.WebhookEndpointDisabled]:
    'A webhook endpoint was disabled by the bridge: it answered 410 Gone (the Standard Webhooks signal to stop), or every attempt to it failed for 5 days. Nothing more is queued for it; its pending deliveries go to its dead letters. `webhooks enable` turns it back on, `webhooks replay` and `webhooks redrive` deliver what it missed. clubId is the club of the event whose delivery decided it.',
};
