/**
 * One named zod schema and type per event, for the consumer module (./consumer.ts): the detail
 * (`PaymentFailedDetail`, type `PaymentFailed`) and the EventBridge event (`PaymentFailedEvent`,
 * schema and type), taken from ./consumer-schemas.ts.
 */
import { DETAIL_TYPES, type EventDetail } from '../lambdas/events/catalog';
import {
  EVENT_SCHEMAS,
  EVENTBRIDGE_EVENT_SCHEMAS,
  type EventBridgeEvent,
  type EventBridgeEventSchemas,
  type EventSchemas,
} from './consumer-schemas';

// ---------------------------------------------------------------------------------------------
// Per event: the detail schema and type, the EventBridge event schema and type

export const MemberVisitRecordedDetail: EventSchemas[typeof DETAIL_TYPES.MemberVisitRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberVisitRecorded];
export type MemberVisitRecorded = EventDetail<typeof DETAIL_TYPES.MemberVisitRecorded>;
export const MemberVisitRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberVisitRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberVisitRecorded];
export type MemberVisitRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberVisitRecorded>;
export const PaymentSucceededDetail: EventSchemas[typeof DETAIL_TYPES.PaymentSucceeded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentSucceeded];
export type PaymentSucceeded = EventDetail<typeof DETAIL_TYPES.PaymentSucceeded>;
export const PaymentSucceededEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentSucceeded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentSucceeded];
export type PaymentSucceededEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentSucceeded>;
export const PaymentFailedDetail: EventSchemas[typeof DETAIL_TYPES.PaymentFailed] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed];
export type PaymentFailed = EventDetail<typeof DETAIL_TYPES.PaymentFailed>;
export const PaymentFailedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentFailed] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentFailed];
export type PaymentFailedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentFailed>;
export const PaymentRefundedDetail: EventSchemas[typeof DETAIL_TYPES.PaymentRefunded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentRefunded];
export type PaymentRefunded = EventDetail<typeof DETAIL_TYPES.PaymentRefunded>;
export const PaymentRefundedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentRefunded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentRefunded];
export type PaymentRefundedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentRefunded>;
export const PosTransactionRecordedDetail: EventSchemas[typeof DETAIL_TYPES.PosTransactionRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.PosTransactionRecorded];
export type PosTransactionRecorded = EventDetail<typeof DETAIL_TYPES.PosTransactionRecorded>;
export const PosTransactionRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PosTransactionRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PosTransactionRecorded];
export type PosTransactionRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.PosTransactionRecorded>;
export const DisbursementRecordedDetail: EventSchemas[typeof DETAIL_TYPES.DisbursementRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.DisbursementRecorded];
export type DisbursementRecorded = EventDetail<typeof DETAIL_TYPES.DisbursementRecorded>;
export const DisbursementRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.DisbursementRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.DisbursementRecorded];
export type DisbursementRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.DisbursementRecorded>;
export const MemberSentToDebtCollectionDetail: EventSchemas[typeof DETAIL_TYPES.MemberSentToDebtCollection] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberSentToDebtCollection];
export type MemberSentToDebtCollection = EventDetail<typeof DETAIL_TYPES.MemberSentToDebtCollection>;
export const MemberSentToDebtCollectionEvent =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberSentToDebtCollection];
export type MemberSentToDebtCollectionEvent = EventBridgeEvent<
  typeof DETAIL_TYPES.MemberSentToDebtCollection
>;
export const MemberJoinedDetail: EventSchemas[typeof DETAIL_TYPES.MemberJoined] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberJoined];
export type MemberJoined = EventDetail<typeof DETAIL_TYPES.MemberJoined>;
export const MemberJoinedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberJoined] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberJoined];
export type MemberJoinedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberJoined>;
export const MemberStatusChangedDetail: EventSchemas[typeof DETAIL_TYPES.MemberStatusChanged] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberStatusChanged];
export type MemberStatusChanged = EventDetail<typeof DETAIL_TYPES.MemberStatusChanged>;
export const MemberStatusChangedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberStatusChanged] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberStatusChanged];
export type MemberStatusChangedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberStatusChanged>;
export const MembershipCancelledDetail: EventSchemas[typeof DETAIL_TYPES.MembershipCancelled] =
  EVENT_SCHEMAS[DETAIL_TYPES.MembershipCancelled];
export type MembershipCancelled = EventDetail<typeof DETAIL_TYPES.MembershipCancelled>;
export const MembershipCancelledEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MembershipCancelled] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MembershipCancelled];
export type MembershipCancelledEvent = EventBridgeEvent<typeof DETAIL_TYPES.MembershipCancelled>;
export const MemberContactPreferencesChangedDetail =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberContactPreferencesChanged];
export type MemberContactPreferencesChanged = EventDetail<
  typeof DETAIL_TYPES.MemberContactPreferencesChanged
>;
export const MemberContactPreferencesChangedEvent =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberContactPreferencesChanged];
export type MemberContactPreferencesChangedEvent = EventBridgeEvent<
  typeof DETAIL_TYPES.MemberContactPreferencesChanged
>;
export const ProspectCreatedDetail: EventSchemas[typeof DETAIL_TYPES.ProspectCreated] =
  EVENT_SCHEMAS[DETAIL_TYPES.ProspectCreated];
export type ProspectCreated = EventDetail<typeof DETAIL_TYPES.ProspectCreated>;
export const ProspectCreatedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ProspectCreated] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ProspectCreated];
export type ProspectCreatedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ProspectCreated>;
export const ProspectStatusChangedDetail: EventSchemas[typeof DETAIL_TYPES.ProspectStatusChanged] =
  EVENT_SCHEMAS[DETAIL_TYPES.ProspectStatusChanged];
export type ProspectStatusChanged = EventDetail<typeof DETAIL_TYPES.ProspectStatusChanged>;
export const ProspectStatusChangedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ProspectStatusChanged] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ProspectStatusChanged];
export type ProspectStatusChangedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ProspectStatusChanged>;
export const ClassAttendanceRecordedDetail: EventSchemas[typeof DETAIL_TYPES.ClassAttendanceRecorded] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClassAttendanceRecorded];
export type ClassAttendanceRecorded = EventDetail<typeof DETAIL_TYPES.ClassAttendanceRecorded>;
export const ClassAttendanceRecordedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClassAttendanceRecorded] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClassAttendanceRecorded];
export type ClassAttendanceRecordedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClassAttendanceRecorded>;
export const MemberFirstVisitDetail: EventSchemas[typeof DETAIL_TYPES.MemberFirstVisit] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberFirstVisit];
export type MemberFirstVisit = EventDetail<typeof DETAIL_TYPES.MemberFirstVisit>;
export const MemberFirstVisitEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberFirstVisit] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberFirstVisit];
export type MemberFirstVisitEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberFirstVisit>;
export const MemberInactiveDetail: EventSchemas[typeof DETAIL_TYPES.MemberInactive] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberInactive];
export type MemberInactive = EventDetail<typeof DETAIL_TYPES.MemberInactive>;
export const MemberInactiveEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberInactive] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberInactive];
export type MemberInactiveEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberInactive>;
export const MemberReturnedDetail: EventSchemas[typeof DETAIL_TYPES.MemberReturned] =
  EVENT_SCHEMAS[DETAIL_TYPES.MemberReturned];
export type MemberReturned = EventDetail<typeof DETAIL_TYPES.MemberReturned>;
export const MemberReturnedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MemberReturned] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MemberReturned];
export type MemberReturnedEvent = EventBridgeEvent<typeof DETAIL_TYPES.MemberReturned>;
export const MembershipExpiringDetail: EventSchemas[typeof DETAIL_TYPES.MembershipExpiring] =
  EVENT_SCHEMAS[DETAIL_TYPES.MembershipExpiring];
export type MembershipExpiring = EventDetail<typeof DETAIL_TYPES.MembershipExpiring>;
export const MembershipExpiringEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.MembershipExpiring] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.MembershipExpiring];
export type MembershipExpiringEvent = EventBridgeEvent<typeof DETAIL_TYPES.MembershipExpiring>;
export const PaymentRecoveredDetail: EventSchemas[typeof DETAIL_TYPES.PaymentRecovered] =
  EVENT_SCHEMAS[DETAIL_TYPES.PaymentRecovered];
export type PaymentRecovered = EventDetail<typeof DETAIL_TYPES.PaymentRecovered>;
export const PaymentRecoveredEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.PaymentRecovered] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.PaymentRecovered];
export type PaymentRecoveredEvent = EventBridgeEvent<typeof DETAIL_TYPES.PaymentRecovered>;
export const ProspectTrialEndingDetail: EventSchemas[typeof DETAIL_TYPES.ProspectTrialEnding] =
  EVENT_SCHEMAS[DETAIL_TYPES.ProspectTrialEnding];
export type ProspectTrialEnding = EventDetail<typeof DETAIL_TYPES.ProspectTrialEnding>;
export const ProspectTrialEndingEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ProspectTrialEnding] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ProspectTrialEnding];
export type ProspectTrialEndingEvent = EventBridgeEvent<typeof DETAIL_TYPES.ProspectTrialEnding>;
export const ClubCredentialsRejectedDetail: EventSchemas[typeof DETAIL_TYPES.ClubCredentialsRejected] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubCredentialsRejected];
export type ClubCredentialsRejected = EventDetail<typeof DETAIL_TYPES.ClubCredentialsRejected>;
export const ClubCredentialsRejectedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubCredentialsRejected] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubCredentialsRejected];
export type ClubCredentialsRejectedEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubCredentialsRejected>;
export const ClubQuotaLowDetail: EventSchemas[typeof DETAIL_TYPES.ClubQuotaLow] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubQuotaLow];
export type ClubQuotaLow = EventDetail<typeof DETAIL_TYPES.ClubQuotaLow>;
export const ClubQuotaLowEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubQuotaLow] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubQuotaLow];
export type ClubQuotaLowEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubQuotaLow>;
export const ClubDataStaleDetail: EventSchemas[typeof DETAIL_TYPES.ClubDataStale] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubDataStale];
export type ClubDataStale = EventDetail<typeof DETAIL_TYPES.ClubDataStale>;
export const ClubDataStaleEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubDataStale] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubDataStale];
export type ClubDataStaleEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubDataStale>;
export const ClubSourceUnavailableDetail: EventSchemas[typeof DETAIL_TYPES.ClubSourceUnavailable] =
  EVENT_SCHEMAS[DETAIL_TYPES.ClubSourceUnavailable];
export type ClubSourceUnavailable = EventDetail<typeof DETAIL_TYPES.ClubSourceUnavailable>;
export const ClubSourceUnavailableEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.ClubSourceUnavailable] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.ClubSourceUnavailable];
export type ClubSourceUnavailableEvent = EventBridgeEvent<typeof DETAIL_TYPES.ClubSourceUnavailable>;
export const WebhookDeliveryFailedDetail: EventSchemas[typeof DETAIL_TYPES.WebhookDeliveryFailed] =
  EVENT_SCHEMAS[DETAIL_TYPES.WebhookDeliveryFailed];
export type WebhookDeliveryFailed = EventDetail<typeof DETAIL_TYPES.WebhookDeliveryFailed>;
export const WebhookDeliveryFailedEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.WebhookDeliveryFailed] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.WebhookDeliveryFailed];
export type WebhookDeliveryFailedEvent = EventBridgeEvent<typeof DETAIL_TYPES.WebhookDeliveryFailed>;
export const WebhookEndpointDisabledDetail: EventSchemas[typeof DETAIL_TYPES.WebhookEndpointDisabled] =
  EVENT_SCHEMAS[DETAIL_TYPES.WebhookEndpointDisabled];
export type WebhookEndpointDisabled = EventDetail<typeof DETAIL_TYPES.WebhookEndpointDisabled>;
export const WebhookEndpointDisabledEvent: EventBridgeEventSchemas[typeof DETAIL_TYPES.WebhookEndpointDisabled] =
  EVENTBRIDGE_EVENT_SCHEMAS[DETAIL_TYPES.WebhookEndpointDisabled];
export type WebhookEndpointDisabledEvent = EventBridgeEvent<typeof DETAIL_TYPES.WebhookEndpointDisabled>;
