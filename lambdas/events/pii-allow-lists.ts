/**
 * What of each API record travels in an event's `data` under the `minimal` PII policy: one
 * allow-list per kind of record, and the detail-types that carry each kind. Anything an allow-list
 * does not name is dropped, at any depth: a field the API adds later (`FullName`, `DOB`, `Cell`)
 * does not travel until someone adds it here. The generated catalog page (docs/events.md, "PII
 * policy") prints these lists, and a test checks that every field the API document gives for a
 * record is either allowed or in `MINIMAL_DROPPED`: each documented field has been decided.
 *
 * An allow-list maps a field name to what may travel in it:
 * - `'value'`: a string, number, boolean or null (anything else in it is dropped);
 * - `'url'`: the same, a string cut to the page it names (pii.ts `pageOfUrl`): no userinfo, path
 *   parameters, query or fragment, where web forms and mail campaigns put e-mail addresses and
 *   names; dropped when what is left still holds an `@`;
 * - a nested allow-list: an object, itself minimised with that list (or null);
 * - `[list]`: an array of objects, each minimised with `list` (or null).
 * The nesting of these lists is the only depth `minimise` ever descends to.
 *
 * Decisions beyond "drop what identifies or contacts a person":
 * - `FirstName` (member, prospect, debt referral) stays for personalised messages; a first name
 *   alone rarely identifies a person, the full name does. The sales person's `FirstName` stays for
 *   the same reason (a prospect is told who will call), with the sales person's `Id` for routing.
 * - `Contact.State` stays: a state or territory (NSW) is shared by millions and is what regional
 *   rules (consumer law, campaigns) need; `Suburb` and `Postcode` go.
 * - `Gender` stays (personalisation); `SourcePage` stays (lead attribution: marketing needs it) as
 *   a `'url'`: the page, without its query (`?email=pat%40...&name=...` from a form or a mail link).
 * - Payment, POS, disbursement and visit records name no person: every documented field stays.
 *   The free-text ones were checked for the same risk as SourcePage: `PaymentDescription` and an
 *   item's `Description` describe the fee or product (the club's catalogue: "Fortnightly
 *   membership", "Guest pass"), like `ProductName` and `Membership.Name`; `Response` is the bank's
 *   result text; `Door`, `ScanSource` and `Till` name devices. They stay as values.
 * - Class attendance's shape is not in the API document: only fields with the names listed in
 *   `CLASS_ATTENDANCE_ALLOWED` travel (ids, class, times, status, member/prospect number), and only
 *   with a scalar value; an instructor's or attendee's name never does.
 */
import { DISBURSEMENT_BREAKDOWN_FIELDS, FEE_BREAKDOWN_FIELDS } from '../gym-api/schemas';
import { DETAIL_TYPES, type DetailType, type EventDetail } from './catalog';

/** What may travel in one field: a scalar, a URL's page, an object (its own list) or an array of objects. */
export type FieldRule = 'value' | 'url' | AllowList | readonly [AllowList];
/** The fields of a record, or of a nested object, that travel under `minimal`. */
export type AllowList = { readonly [field: string]: FieldRule };

const values = (...fields: readonly string[]): AllowList =>
  Object.fromEntries(fields.map((field) => [field, 'value' as const]));

const CONTACT: AllowList = values('OptOutEmail', 'OptOutSms', 'State');
const ID_NAME: AllowList = values('Id', 'Name');
const MEMBERSHIP: AllowList = values(
  'Id',
  'Name',
  'StartDate',
  'SaleDate',
  'CancellationDate',
  'MinimumTermDate',
  'ExpiryDate',
  'Type',
);

/**
 * Class attendance: the names of fields that name no person, kept when their value is a scalar.
 * Exact names (the API's PascalCase); anything else, nested objects and arrays included, is dropped.
 */
export const CLASS_ATTENDANCE_ALLOWED = {
  ids: ['Id', 'AttendanceId', 'BookingId', 'ClassId', 'ClassInstanceId', 'ClassScheduleId', 'SessionId'],
  class: ['ClassName', 'ClassType', 'ClassCategory'],
  'dates and times': [
    'ClassDateTime',
    'ClassDate',
    'StartDateTime',
    'EndDateTime',
    'AttendanceDateTime',
    'BookingDateTime',
    'CheckInDateTime',
    'DurationMinutes',
  ],
  status: [
    'Status',
    'AttendanceStatus',
    'BookingStatus',
    'Booked',
    'Attended',
    'WalkIn',
    'NoShow',
    'Cancelled',
  ],
  'who attended': ['MemberNumber', 'ProspectNumber'],
} as const satisfies Record<string, readonly string[]>;

/** The kinds of API record an event's `data` carries. */
export const RECORD_KINDS = [
  'member',
  'prospect',
  'visit',
  'paymentHistory',
  'posTransaction',
  'disbursement',
  'debtCollection',
  'classAttendance',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

/** The allow-list of each kind of record. */
export const MINIMAL_ALLOW_LISTS: Readonly<Record<RecordKind, AllowList>> = {
  member: {
    ...values('Number', 'FirstName', 'Status', 'Gender', 'LastUpdatedUtcDateTime'),
    Contact: CONTACT,
    Membership: MEMBERSHIP,
  },
  prospect: {
    ...values('Number', 'FirstName', 'Status', 'Gender', 'TrialStartDate', 'TrialEndDate', 'CreatedDateUtc'),
    SourcePage: 'url',
    ContactMethod: ID_NAME,
    Source: ID_NAME,
    SalesPerson: values('Id', 'FirstName'),
    Contact: CONTACT,
  },
  visit: values('MemberNumber', 'Door', 'ScanSource', 'VisitDateTime'),
  paymentHistory: {
    ...values('Id', 'Number', 'PaymentDate', 'PaymentType', 'Response', 'PaymentDescription'),
    PaymentForReference: ID_NAME,
    FeeBreakdown: [values(...FEE_BREAKDOWN_FIELDS)],
    Refund: values('IsRefunded', 'RefundedPaymentId'),
  },
  posTransaction: {
    ...values('PosTransactionId', 'TransactionDate', 'TransactionType', 'TotalExTax', 'TotalIncTax', 'Till'),
    Items: [
      values(
        'ItemId',
        'ProductId',
        'ProductName',
        'Description',
        'PriceExTax',
        'PriceIncTax',
        'Quantity',
        'Tax',
        'Discount',
        'CategoryId',
        'CategoryName',
        'SubCategoryId',
        'SubCategoryName',
        'IsRefunded',
        'IsVoided',
      ),
    ],
  },
  disbursement: {
    ...values('DisbursementDate', 'TransactionDate', 'Amount', 'MemberNumber', 'Department', 'PaymentType'),
    Breakdown: values(...DISBURSEMENT_BREAKDOWN_FIELDS),
  },
  debtCollection: values('Amount', 'DebtCollectionDate', 'MemberNumber', 'FirstName'),
  classAttendance: values(...Object.values(CLASS_ATTENDANCE_ALLOWED).flat()),
};

/**
 * Fields the API document gives that do NOT travel under `minimal`, as dotted paths: they identify
 * or contact a person. Not used to minimise (whatever is not allowed is dropped); it records the
 * decision for the docs, and a test checks that allowed + dropped = every documented field.
 */
export const MINIMAL_DROPPED: Readonly<Record<Exclude<RecordKind, 'classAttendance'>, readonly string[]>> = {
  member: ['LastName', 'Barcode', 'FitnessPassportNumber', 'DateOfBirth', ...contactDropped()],
  prospect: [
    'LastName',
    'Barcode',
    'DateOfBirth',
    'SalesPerson.LastName',
    'SalesPerson.Email',
    ...contactDropped(),
  ],
  visit: [],
  paymentHistory: [],
  posTransaction: [],
  disbursement: [],
  debtCollection: ['LastName', 'Email', 'Mobile', 'Address'],
};

function contactDropped(): string[] {
  return ['Email', 'Mobile', 'Home', 'Work', 'Address', 'Suburb', 'Postcode'].map((f) => `Contact.${f}`);
}

/** Detail-types whose detail carries an API record in `data`. */
export type RecordDetailType = {
  [T in DetailType]: EventDetail<T> extends { data: unknown } ? T : never;
}[DetailType];

/** The kind of record each detail-type carries in `data` (a new one fails to compile until added). */
export const RECORD_KIND_OF: Readonly<Record<RecordDetailType, RecordKind>> = {
  [DETAIL_TYPES.MemberJoined]: 'member',
  [DETAIL_TYPES.MemberStatusChanged]: 'member',
  [DETAIL_TYPES.MembershipCancelled]: 'member',
  [DETAIL_TYPES.MemberContactPreferencesChanged]: 'member',
  [DETAIL_TYPES.ProspectCreated]: 'prospect',
  [DETAIL_TYPES.ProspectStatusChanged]: 'prospect',
  [DETAIL_TYPES.MemberVisitRecorded]: 'visit',
  [DETAIL_TYPES.PaymentSucceeded]: 'paymentHistory',
  [DETAIL_TYPES.PaymentFailed]: 'paymentHistory',
  [DETAIL_TYPES.PaymentRefunded]: 'paymentHistory',
  [DETAIL_TYPES.PosTransactionRecorded]: 'posTransaction',
  [DETAIL_TYPES.DisbursementRecorded]: 'disbursement',
  [DETAIL_TYPES.MemberSentToDebtCollection]: 'debtCollection',
  [DETAIL_TYPES.ClassAttendanceRecorded]: 'classAttendance',
};

/** The allow-list of the record a detail-type carries; undefined for one that carries no record. */
export function allowListOf(detailType: DetailType): AllowList | undefined {
  const kind = (RECORD_KIND_OF as Partial<Record<DetailType, RecordKind>>)[detailType];
  return kind === undefined ? undefined : MINIMAL_ALLOW_LISTS[kind];
}
