/**
 * The names of the event catalog (./catalog.ts): the default EventBridge `source`, the detail
 * layout version, the detail-types and the data sources. Constants only, imported by the detail
 * schemas (./event-details.ts, ./lifecycle-details.ts), the descriptions (./event-descriptions.ts)
 * and the catalog.
 */
import { SOURCE_NAMES } from '../common/source-names';

/** The EventBridge `source` of every event unless a deployment configures its own. */
export const DEFAULT_EVENT_SOURCE = 'gym-bridge';

/** Version of the detail layout; bumped only for incompatible changes. */
export const EVENT_VERSION = 1;

export const DETAIL_TYPES = {
  MemberVisitRecorded: 'Member Visit Recorded',
  PaymentSucceeded: 'Payment Succeeded',
  PaymentFailed: 'Payment Failed',
  PaymentRefunded: 'Payment Refunded',
  PosTransactionRecorded: 'POS Transaction Recorded',
  DisbursementRecorded: 'Disbursement Recorded',
  MemberSentToDebtCollection: 'Member Sent To Debt Collection',
  MemberJoined: 'Member Joined',
  MemberStatusChanged: 'Member Status Changed',
  MembershipCancelled: 'Membership Cancelled',
  MemberContactPreferencesChanged: 'Member Contact Preferences Changed',
  ProspectCreated: 'Prospect Created',
  ProspectStatusChanged: 'Prospect Status Changed',
  ClassAttendanceRecorded: 'Class Attendance Recorded',
  MemberFirstVisit: 'Member First Visit',
  MemberInactive: 'Member Inactive',
  MemberReturned: 'Member Returned',
  MembershipExpiring: 'Membership Expiring',
  PaymentRecovered: 'Payment Recovered',
  ProspectTrialEnding: 'Prospect Trial Ending',
  ClubCredentialsRejected: 'Club Credentials Rejected',
  ClubQuotaLow: 'Club Quota Low',
  ClubDataStale: 'Club Data Stale',
  ClubSourceUnavailable: 'Club Source Unavailable',
  WebhookDeliveryFailed: 'Webhook Delivery Failed',
  WebhookEndpointDisabled: 'Webhook Endpoint Disabled',
} as const;

export type DetailTypeKey = keyof typeof DETAIL_TYPES;
export type DetailType = (typeof DETAIL_TYPES)[DetailTypeKey];

export const ALL_DETAIL_TYPES = Object.values(DETAIL_TYPES) as DetailType[];

/** The bridge's data sources (one per API list operation) that produce events. */
export const DATA_SOURCES = SOURCE_NAMES;
export type DataSource = (typeof DATA_SOURCES)[number];

/**
 * `detail.source`: the data source of a record event, 'bridge' for operational events, or
 * 'lifecycle' for the lifecycle events the bridge derives from what it reads (docs/lifecycle.md).
 */
export const BRIDGE_SOURCES = [...DATA_SOURCES, 'bridge', 'lifecycle'] as const;
export type BridgeSource = (typeof BRIDGE_SOURCES)[number];
