/**
 * When each event is emitted, in words: the generated catalog page (docs/events.md), the rule
 * and registry descriptions. Part of the catalog (./catalog.ts).
 */
import { DETAIL_TYPES, type DetailType } from './event-names';

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
  [DETAIL_TYPES.ClubCredentialsRejected]:
    'The API answered 401 for the club (token or API key refused). Polling of the club pauses with back-off until pausedUntil.',
  [DETAIL_TYPES.ClubQuotaLow]:
    "The club's monthly request count crossed the alert threshold of its plan, or the API answered 429 (quota exceeded).",
  [DETAIL_TYPES.ClubDataStale]:
    'A source of the club has not completed a poll for longer than its staleness limit.',
  [DETAIL_TYPES.ClubSourceUnavailable]:
    "A source's endpoint is missing or refused for the club (HTTP 404, or 403 that blames no credential; for an experimental source also 400 or a response that is not a usable page). The source is marked unavailable and re-tried every 6 hours; the club's other sources go on. Emitted once per episode: a source that comes back and goes away again is a new episode.",
};
