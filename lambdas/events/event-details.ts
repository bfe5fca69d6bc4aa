/**
 * The zod schema of every record and operational event's detail, for the catalog (./catalog.ts):
 * the shared envelope (./detail-envelope.ts: eventId, eventVersion, clubId, source, times, subject)
 * plus the fields of each type. Strict objects, so a producer cannot publish a misspelt field; the
 * API records in `data` stay loose. The lifecycle events' details are in ./lifecycle-details.ts.
 */
import { z } from 'zod';
import { dateTime as localDateTime } from '../gym-api/schemas';
import { detailEnvelope as envelope, utcDateTime } from './detail-envelope';
import {
  ClassAttendanceData,
  DebtCollectionData,
  DisbursementData,
  Int64String,
  MemberData,
  MemberVisitData,
  PaymentData,
  PosTransactionData,
  ProspectData,
} from './event-data';
import { DATA_SOURCES } from './event-names';

export { type Subject, SubjectSchema } from './detail-envelope';

// ---------------------------------------------------------------------------------------------
// Details

const money = z.number().describe('Amount as a number (currency of the club)');
const newStatus = z.string().min(1);

export const MemberVisitRecordedDetail = z.strictObject({
  ...envelope('visits'),
  data: MemberVisitData.describe('The MemberVisit record'),
});

const paymentFields = {
  ...envelope('paymentHistory'),
  data: PaymentData.describe('The MemberPaymentHistory record'),
  paymentId: Int64String.describe('Payment history id (int64 as a string)'),
  paymentType: z.string().optional().describe('DD = direct debit, CC = credit card, other values exist'),
  response: z.string().describe('The Response text of the payment attempt (empty when the API gave none)'),
  amount: money.optional().describe('Sum of the FeeBreakdown amounts, when a breakdown is present'),
  isDishonourFee: z
    .boolean()
    .optional()
    .describe('True when this payment charges a DishonourFee for an earlier dishonour'),
};

export const PaymentSucceededDetail = z.strictObject(paymentFields);

export const PAYMENT_FAILURE_REASONS = ['declined', 'dishonoured', 'unknown-response'] as const;
export type PaymentFailureReason = (typeof PAYMENT_FAILURE_REASONS)[number];

export const PaymentFailedDetail = z.strictObject({
  ...paymentFields,
  reason: z
    .enum(PAYMENT_FAILURE_REASONS)
    .describe('declined (card or account refused), dishonoured (taken, then returned), unknown-response'),
  previousResponse: z
    .string()
    .optional()
    .describe('The earlier Response of the same payment, when a succeeded payment later failed'),
});

export const PaymentRefundedDetail = z.strictObject({
  ...envelope('paymentHistory'),
  data: PaymentData.describe('The MemberPaymentHistory record'),
  paymentId: Int64String.describe('Payment history id of the refunded line'),
  refundedPaymentId: Int64String.optional().describe('Refund.RefundedPaymentId, when the API gives it'),
});

export const PosTransactionRecordedDetail = z.strictObject({
  ...envelope('posTransactions'),
  data: PosTransactionData.describe('The MemberPOSTransaction record'),
  posTransactionId: Int64String.describe('POS transaction id (int64 as a string)'),
  totalIncTax: money.describe('TotalIncTax of the transaction'),
});

export const DisbursementRecordedDetail = z.strictObject({
  ...envelope('disbursements'),
  data: DisbursementData.describe('The Disbursement record'),
  amount: money.describe('Amount disbursed'),
});

export const MemberSentToDebtCollectionDetail = z.strictObject({
  ...envelope('debtCollection'),
  data: DebtCollectionData.describe('The DebtCollection record'),
  amount: money.describe('Amount sent to debt collection'),
});

export const MemberJoinedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record'),
  status: z.string().optional().describe('Member status at joining, when the API gives it'),
  membershipName: z.string().optional().describe('Membership.Name, when the member has a membership'),
});

export const MemberStatusChangedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record after the change'),
  previousStatus: z.string().nullable().describe('Status before the change (null when it had none)'),
  status: newStatus.describe('Status after the change, e.g. PaymentIssue'),
});

export const MembershipCancelledDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record'),
  cancellationDate: localDateTime.describe('Membership.CancellationDate as given (gym local time)'),
});

const ContactPreferences = z.strictObject({
  optOutEmail: z.boolean().nullable().describe('Contact.OptOutEmail (null when the API gave none)'),
  optOutSms: z.boolean().nullable().describe('Contact.OptOutSms (null when the API gave none)'),
});

export const MemberContactPreferencesChangedDetail = z.strictObject({
  ...envelope('members'),
  data: MemberData.describe('The Member record after the change'),
  previous: ContactPreferences.describe('Opt-outs before the change'),
  current: ContactPreferences.describe('Opt-outs after the change'),
});

export const ProspectCreatedDetail = z.strictObject({
  ...envelope('prospects'),
  data: ProspectData.describe('The Prospect record'),
  status: z.string().optional().describe('Prospect status, e.g. Enquiry'),
});

export const ProspectStatusChangedDetail = z.strictObject({
  ...envelope('prospects'),
  data: ProspectData.describe('The Prospect record after the change'),
  previousStatus: z.string().nullable().describe('Status before the change (null when it had none)'),
  status: newStatus.describe('Status after the change, e.g. OnTrial or Sale'),
});

export const ClassAttendanceRecordedDetail = z.strictObject({
  ...envelope('classAttendance'),
  data: ClassAttendanceData.describe(
    'The class attendance record (shape not shown by the API): as given under the full PII policy, only fields that name no person under minimal',
  ),
  experimental: z.literal(true).describe('Always true: the shape of data may change'),
});

export const CREDENTIALS_REJECTION_REASONS = ['credentials', 'apiKey', 'unknown'] as const;

export const ClubCredentialsRejectedDetail = z.strictObject({
  ...envelope('bridge'),
  reason: z
    .enum(CREDENTIALS_REJECTION_REASONS)
    .describe('credentials (token call refused), apiKey (data call refused with a valid token), unknown'),
  consecutiveFailures: z.number().int().min(1).describe('Rejections in a row'),
  pausedUntil: utcDateTime.describe('Polling of the club is paused until then, UTC'),
});

export const QUOTA_LOW_REASONS = ['threshold', 'rate-limited'] as const;

export const ClubQuotaLowDetail = z.strictObject({
  ...envelope('bridge'),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/)
    .describe('Quota month, yyyy-mm'),
  used: z.number().int().min(0).describe('Requests counted this month'),
  limit: z.number().int().min(1).describe('Monthly request quota of the club plan'),
  share: z.number().min(0).max(1).describe('used / limit, capped at 1'),
  reason: z
    .enum(QUOTA_LOW_REASONS)
    .describe('threshold (share crossed the alert level) or rate-limited (the API answered 429)'),
});

export const ClubDataStaleDetail = z.strictObject({
  ...envelope('bridge'),
  staleSource: z.enum(DATA_SOURCES).describe('The data source that has not completed a poll lately'),
  lastSuccessAt: utcDateTime.optional().describe('Last successful poll of that source, UTC'),
  ageSeconds: z.number().min(0).describe('Seconds since the last success (or since tracking began)'),
});

export const SOURCE_UNAVAILABLE_KINDS = [
  'not-found',
  'forbidden',
  'bad-request',
  'unusable-response',
] as const;

export const ClubSourceUnavailableDetail = z.strictObject({
  ...envelope('bridge'),
  unavailableSource: z.enum(DATA_SOURCES).describe('The data source whose endpoint is missing or unusable'),
  kind: z
    .enum(SOURCE_UNAVAILABLE_KINDS)
    .describe(
      'not-found (HTTP 404), forbidden (HTTP 403 that blames no credential), bad-request (HTTP 400, experimental sources only), unusable-response (not a usable page envelope, experimental sources only)',
    ),
  httpStatus: z.number().int().min(100).max(599).optional().describe('The HTTP status, when there was one'),
  error: z.string().max(500).describe('The error as the bridge saw it (credentials and tokens redacted)'),
  experimental: z
    .boolean()
    .describe('True when the source is experimental (its shape is not in the API document)'),
  since: utcDateTime.describe('When the source was first found unavailable, UTC'),
  retryAt: utcDateTime.describe('The source is not polled again before this time, UTC'),
});

// ---------------------------------------------------------------------------------------------
// Webhook delivery (docs/webhooks.md): operational events about endpoints, never their URL or secret

/** A webhook endpoint's id: `ep-` and 16 lowercase hex characters. */
export const WEBHOOK_ENDPOINT_ID_PATTERN = /^ep-[0-9a-f]{16}$/;

const webhookEndpoint = {
  endpointId: z.string().regex(WEBHOOK_ENDPOINT_ID_PATTERN).describe('The webhook endpoint'),
  endpointHost: z
    .string()
    .min(1)
    .max(253)
    .describe("The endpoint URL's host only: its path and query may hold a token and never travel"),
};

const httpStatus = z.number().int().min(100).max(599);

export const WEBHOOK_DELIVERY_FAILURE_REASONS = ['schedule-exhausted'] as const;

export const WebhookDeliveryFailedDetail = z.strictObject({
  ...envelope('bridge'),
  ...webhookEndpoint,
  reason: z
    .enum(WEBHOOK_DELIVERY_FAILURE_REASONS)
    .describe('schedule-exhausted: the retry schedule ran out (attempts, or about 3 days)'),
  webhookId: z
    .string()
    .min(1)
    .describe('The undelivered event: its eventId, the webhook-id header of every attempt'),
  webhookType: z.string().min(1).describe('The detail-type of the undelivered event'),
  attempts: z
    .number()
    .int()
    .min(0)
    .describe('HTTP attempts made (holds while the endpoint failed not counted)'),
  firstQueuedAt: utcDateTime.describe('When the delivery was first queued, UTC'),
  lastAttemptAt: utcDateTime.optional().describe('The last attempt, UTC'),
  lastStatus: httpStatus.nullable().describe('HTTP status of the last answer (null: none, e.g. a timeout)'),
  lastError: z.string().max(300).describe('Why the last attempt failed (e.g. HTTP 500, timeout after 15 s)'),
});

export const WEBHOOK_DISABLE_REASONS = ['gone', 'failing'] as const;

export const WebhookEndpointDisabledDetail = z.strictObject({
  ...envelope('bridge'),
  ...webhookEndpoint,
  reason: z
    .enum(WEBHOOK_DISABLE_REASONS)
    .describe('gone (the endpoint answered 410) or failing (every attempt failed for 5 days)'),
  lastStatus: httpStatus.nullable().describe('HTTP status of the last answer (null: none)'),
  lastError: z.string().max(300).describe('The last attempt as the bridge saw it'),
  failingSince: utcDateTime.optional().describe('First failure of the run of failures, UTC'),
});
