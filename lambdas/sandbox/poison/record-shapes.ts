/**
 * Per operation, a valid record to start a poison record from, and the roles of its fields that
 * the poison variants aim at (the number that identifies it, the time that dates it, an id, a
 * plain string, ...). The record carries its marker (`~poison-<n>`) in the number field.
 */
import type { OperationName } from '../../gym-api/operations';
import type { ClubStore } from '../club-store';
import { makePerson, oneLineAddress } from '../people';
import type { SeededRandom } from '../seeded-random';
import { FEE_FIELDS, INSTRUCTORS } from '../vocabulary';
import { floorToSecond, formatNaive } from '../zoned-time';

/** Poison payment, POS and POS item ids: from here up (int64, far above any real id). */
export const POISON_PAYMENT_ID_BASE = 9_200_000_000_000_000_000n;
export const POISON_POS_ID_BASE = 9_210_000_000_000_000_000n;
export const POISON_POS_ITEM_ID_BASE = 9_220_000_000_000_000_000n;

export interface PoisonSeed {
  /** `~poison-<n>`. */
  readonly marker: string;
  readonly n: number;
  /** UTC ms of the sandbox clock the record is stored at. */
  readonly atMs: number;
  readonly store: ClubStore;
  readonly rng: SeededRandom;
}

/** Where a record is filed: its sort key, and for members the `updatedate` key (UTC ms). */
export interface PoisonKeys {
  readonly key: number;
  readonly updatedKey?: number;
}

export interface RecordShape {
  readonly operation: OperationName;
  /** False for the class-attendance shape the API document does not show: nothing is a breach. */
  readonly documented: boolean;
  /** The member (or prospect) number: the marker's field, and what identity variants spoil. */
  readonly numberField: string;
  /** Whether a record without a usable number has no identity. */
  readonly numberIsIdentity: boolean;
  /** A string field for the marker when the number field is what is spoilt. */
  readonly fallbackMarkerField: string;
  /** Date-times written from the record's keys (what the API filters and orders by). */
  readonly timeFields: readonly string[];
  /** Other date-time fields. */
  readonly dateFields: readonly string[];
  /** Integer ids; the first one is the record's identity when `idIsIdentity`. */
  readonly idFields: readonly string[];
  readonly idIsIdentity: boolean;
  readonly amountField?: string;
  /** A known string field (the target of oversized and boolean-for-string). */
  readonly stringField: string;
  readonly booleanField?: string;
  readonly objectField?: string;
  readonly arrayField?: string;
  /** A field the document marks Required (other than identity and time). */
  readonly requiredField?: string;
  readonly emailField?: string;
  /** Enumerated fields and values the document does not list for them. */
  readonly enums: readonly (readonly [field: string, unknown: readonly string[]])[];
  keys(store: ClubStore, atMs: number): PoisonKeys;
  base(seed: PoisonSeed, keys: PoisonKeys): Record<string, unknown>;
}

/** The number part before the marker: looks like a member number, never a real one. */
export const poisonNumber = (n: number) => String(800000 + n);

const fees = (subscription: number) => ({
  ...(Object.fromEntries(FEE_FIELDS.map((f) => [f, 0])) as Record<(typeof FEE_FIELDS)[number], number>),
  SubscriptionFee: subscription,
});

const localKey = (store: ClubStore, atMs: number): PoisonKeys => ({ key: floorToSecond(store.local(atMs)) });
const ambiguousKey = (store: ClubStore, atMs: number): PoisonKeys => ({
  key: floorToSecond(store.ambiguous(atMs)),
});

const person = (s: PoisonSeed) => makePerson(s.rng, s.store.profile.locale, 800000 + s.n);

const members: RecordShape = {
  operation: 'members',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: ['LastUpdatedUtcDateTime', 'Membership.StartDate'],
  dateFields: ['DateOfBirth', 'Membership.SaleDate'],
  idFields: ['Membership.Id'],
  idIsIdentity: false,
  stringField: 'Contact.Address',
  booleanField: 'Contact.OptOutEmail',
  objectField: 'Contact',
  requiredField: 'Membership.Type',
  emailField: 'Contact.Email',
  enums: [
    ['Status', ['Frozen', 'Lapsed']],
    ['Gender', ['X', 'Prefer not to say']],
  ],
  keys: (store, atMs) => ({
    key: store.profile.timeZone.localDayStart(atMs),
    updatedKey: floorToSecond(atMs),
  }),
  base: (s, k) => {
    const p = person(s);
    return {
      Number: `${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Status: 'Active',
      Barcode: `29${String(s.n).padStart(8, '0')}`,
      FitnessPassportNumber: null,
      DateOfBirth: '1990-05-17T00:00:00',
      Gender: 'Female',
      LastUpdatedUtcDateTime: formatNaive(k.updatedKey ?? k.key, true),
      Contact: p.contact,
      Membership: {
        Id: 990000 + s.n,
        Name: 'Direct Debit Monthly',
        StartDate: formatNaive(k.key),
        SaleDate: formatNaive(k.key),
        Type: 'Direct Debit',
      },
    };
  },
};

const prospects: RecordShape = {
  operation: 'prospects',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: [],
  dateFields: ['CreatedDateUtc', 'DateOfBirth'],
  idFields: ['SalesPerson.Id'],
  idIsIdentity: false,
  stringField: 'SourcePage',
  booleanField: 'Contact.OptOutSms',
  objectField: 'SalesPerson',
  requiredField: 'Contact.Email',
  emailField: 'Contact.Email',
  enums: [['Status', ['Lead', 'Converted']]],
  keys: ambiguousKey,
  base: (s) => {
    const p = person(s);
    return {
      Number: `P${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Status: 'Enquiry',
      Barcode: null,
      DateOfBirth: '1994-11-02T00:00:00',
      Gender: 'Male',
      TrialStartDate: null,
      TrialEndDate: null,
      CreatedDateUtc: formatNaive(floorToSecond(s.atMs), true),
      ContactMethod: { Id: 1, Name: 'Phone' },
      Source: { Id: 1, Name: 'Google' },
      SourcePage: '/join',
      SalesPerson: { Id: 900, FirstName: 'Robin', LastName: 'Hale', Email: 'robin.h@example.com' },
      Contact: p.contact,
    };
  },
};

const visits: RecordShape = {
  operation: 'visits',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: true,
  fallbackMarkerField: 'Door',
  timeFields: ['VisitDateTime'],
  dateFields: [],
  idFields: [],
  idIsIdentity: false,
  stringField: 'ScanSource',
  enums: [],
  keys: localKey,
  base: (s, k) => ({
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    Door: 'Main Entrance',
    ScanSource: 'Turnstile',
    VisitDateTime: formatNaive(k.key),
  }),
};

const paymentHistory: RecordShape = {
  operation: 'paymentHistory',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: false,
  fallbackMarkerField: 'PaymentDescription',
  timeFields: ['PaymentDate'],
  dateFields: [],
  idFields: ['Id', 'Refund.RefundedPaymentId'],
  idIsIdentity: true,
  amountField: 'FeeBreakdown.0.SubscriptionFee',
  stringField: 'PaymentDescription',
  booleanField: 'Refund.IsRefunded',
  objectField: 'PaymentForReference',
  arrayField: 'FeeBreakdown',
  enums: [
    ['PaymentType', ['BPAY', 'EFT']],
    ['Response', ['Pending - Awaiting Bank', 'Processing']],
  ],
  keys: ambiguousKey,
  base: (s, k) => ({
    Id: POISON_PAYMENT_ID_BASE + BigInt(s.n),
    Number: `${poisonNumber(s.n)}${s.marker}`,
    PaymentDate: formatNaive(k.key),
    PaymentType: 'CC',
    Response: 'Approved',
    PaymentDescription: 'Guest pass',
    PaymentForReference: { Id: 4, Name: 'Casual Visit' },
    FeeBreakdown: [fees(25)],
    Refund: { IsRefunded: false, RefundedPaymentId: null },
  }),
};

const posTransactions: RecordShape = {
  operation: 'posTransactions',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'Till',
  timeFields: ['TransactionDate'],
  dateFields: [],
  idFields: ['PosTransactionId', 'Items.0.ItemId'],
  idIsIdentity: true,
  amountField: 'TotalIncTax',
  stringField: 'Items.0.Description',
  booleanField: 'Items.0.IsVoided',
  objectField: 'Items.0',
  arrayField: 'Items',
  enums: [['TransactionType', ['Exchange', 'Void']]],
  keys: ambiguousKey,
  base: (s, k) => ({
    PosTransactionId: POISON_POS_ID_BASE + BigInt(s.n),
    TransactionDate: formatNaive(k.key),
    TransactionType: 'Sale',
    TotalExTax: 4.09,
    TotalIncTax: 4.5,
    Till: 'Front Desk 1',
    Items: [
      {
        ItemId: POISON_POS_ITEM_ID_BASE + BigInt(s.n),
        ProductId: 1001n,
        ProductName: 'Water 600ml',
        Description: 'Water 600ml',
        PriceExTax: 4.09,
        PriceIncTax: 4.5,
        Quantity: 1,
        Tax: 0.41,
        Discount: 0,
        CategoryId: 10n,
        CategoryName: 'Drinks',
        SubCategoryId: 101n,
        SubCategoryName: 'Water',
        IsRefunded: false,
        IsVoided: false,
      },
    ],
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
  }),
};

const disbursements: RecordShape = {
  operation: 'disbursements',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'Department',
  timeFields: ['TransactionDate'],
  dateFields: ['DisbursementDate'],
  idFields: [],
  idIsIdentity: false,
  amountField: 'Amount',
  stringField: 'Department',
  objectField: 'Breakdown',
  enums: [
    ['PaymentType', ['EFT', 'BPAY']],
    ['Department', ['Kids Club']],
  ],
  keys: ambiguousKey,
  base: (s, k) => ({
    DisbursementDate: formatNaive(s.store.profile.timeZone.localDayStart(s.atMs)),
    TransactionDate: formatNaive(k.key),
    Amount: 25,
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    Department: 'Membership',
    PaymentType: 'CC',
    Breakdown: {
      Membership: 25,
      AccessCard: 0,
      Surcharge: 0,
      Joining: 0,
      Setup: 0,
      Transaction: 0,
      Subscription: 0,
      Arrears: 0,
      Prorata: 0,
      Dishonour: 0,
      Suspension: 0,
      Pos: 0,
      AddOn: 0,
      Cancellation: 0,
      ClassNoShow: 0,
      PtNoShow: 0,
    },
  }),
};

const debtCollection: RecordShape = {
  operation: 'debtCollection',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: ['DebtCollectionDate'],
  dateFields: [],
  idFields: [],
  idIsIdentity: false,
  amountField: 'Amount',
  stringField: 'Address',
  emailField: 'Email',
  enums: [],
  keys: ambiguousKey,
  base: (s, k) => {
    const p = person(s);
    return {
      Amount: 129.5,
      DebtCollectionDate: formatNaive(k.key),
      MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Email: p.contact.Email,
      Mobile: p.contact.Mobile,
      Address: oneLineAddress(p.contact),
    };
  },
};

const classAttendance: RecordShape = {
  operation: 'classAttendance',
  documented: false,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'ClassName',
  timeFields: ['ClassDateTime'],
  dateFields: [],
  idFields: ['AttendanceId', 'ClassId'],
  idIsIdentity: false,
  amountField: 'DurationMinutes',
  stringField: 'Instructor',
  booleanField: 'Booked',
  enums: [['Status', ['Cancelled', 'LateCancel']]],
  keys: localKey,
  base: (s, k) => ({
    AttendanceId: 900000 + s.n,
    ClassId: 12,
    ClassName: 'Spin',
    ClassDateTime: formatNaive(k.key),
    DurationMinutes: 45,
    Instructor: INSTRUCTORS[s.n % INSTRUCTORS.length] ?? 'Staff',
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    ProspectNumber: null,
    Booked: true,
    Attended: true,
    Status: 'Attended',
  }),
};

export const RECORD_SHAPES: Readonly<Record<OperationName, RecordShape>> = {
  members,
  prospects,
  visits,
  paymentHistory,
  posTransactions,
  disbursements,
  debtCollection,
  classAttendance,
};

// ---- dotted paths ("Items.0.ItemId") ---------------------------------------------------------

type Container = Record<string, unknown> | unknown[];

function parentOf(record: Record<string, unknown>, path: string): [Container, string] | undefined {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let at: unknown = record;
  for (const p of parts) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[p];
  }
  return typeof at === 'object' && at !== null ? [at as Container, last] : undefined;
}

export function getPath(record: Record<string, unknown>, path: string): unknown {
  const found = parentOf(record, path);
  return found ? (found[0] as Record<string, unknown>)[found[1]] : undefined;
}

export function setPath(record: Record<string, unknown>, path: string, value: unknown): void {
  const found = parentOf(record, path);
  if (!found) throw new RangeError(`poison: no field ${path} in the base record`);
  (found[0] as Record<string, unknown>)[found[1]] = value;
}
