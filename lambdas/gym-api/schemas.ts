/**
 * zod schemas for every resource of the Gym Reporting API (docs/upstream-api.md): the records a
 * consumer of @gym-bridge/events embeds, so this file imports zod only. The schemas of the protocol
 * around the records (token response, page envelope) are in ./protocol-schemas.ts.
 *
 * Rules applied everywhere:
 * - Fields the seed marks Required are required; any other may be absent or null ("no value").
 * - Unknown extra fields are kept (`z.looseObject`), never rejected: upstream may add fields.
 * - Date-times match the seed's zone-less pattern; their zone is documented per field.
 * - int64 ids come out as decimal strings, exact above 2^53 (./json.ts delivers them as strings).
 * - Status fields are plain strings (known values: ./statuses.ts): an unknown one must not crash a poll.
 * - Email fields are strings, not validated as addresses: a typo must not quarantine a member.
 */
import { z } from 'zod';

/** The seed's date-time pattern: ISO 8601, no UTC offset, no trailing Z, optional fraction. */
export const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

/** A field of a date-time as Number() reads value[from, to); ASCII digits without a slice. */
function field(value: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return Number(value.slice(from, to));
    n = n * 10 + digit;
  }
  return n;
}

const MONTH_DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Days in a month (1-12) as Date.UTC counts them (years 0-99 read as 1900-1999). */
function daysInMonth(year: number, month: number): number {
  if (!Number.isInteger(year) || year < 0 || year > 9999)
    return new Date(Date.UTC(year, month, 0)).getUTCDate();
  const y = year < 100 ? year + 1900 : year;
  return MONTH_DAYS[month]! + (month === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 1 : 0);
}

/**
 * True when the fields of a pattern-matching date-time exist on the calendar and the clock (zod runs
 * it on every date-time of every record, matched or not: digits are read without a Date).
 */
export function isRealDateTime(value: string): boolean {
  const month = field(value, 5, 7);
  const day = field(value, 8, 10);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(field(value, 0, 4), month))) return false;
  return field(value, 11, 13) <= 23 && field(value, 14, 16) <= 59 && field(value, 17, 19) <= 59;
}

export const dateTime = z
  .string()
  .regex(DATE_TIME_PATTERN, 'date-time must match YYYY-MM-DDTHH:mm:ss[.fff] (no offset)')
  .refine(isRealDateTime, 'date-time does not exist (e.g. February 30th or 24:00)');

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT64_TEXT = /^-?\d{1,19}$/;

/** True for a decimal string that is an integer in the int64 range (18 digits always are). */
function isInt64Text(value: string): boolean {
  if (!INT64_TEXT.test(value)) return false;
  if (value.length < (value.charCodeAt(0) === 45 ? 20 : 19)) return true;
  const n = BigInt(value);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/**
 * An int64 id: accepted as a JSON integer or a decimal string, always output as a decimal string.
 * A JSON number is accepted only when it is a safe integer (|n| < 2^53): `9007199254740993.0` or
 * `9.007199254740993e15` reach JavaScript already rounded (json.ts keeps only plain integer
 * literals exact), so they are refused (the record is quarantined), never carried rounded. So is
 * `-0`: carried as "0" it would share an id with another record.
 */
export const int64 = z
  .union([
    z.string().refine(isInt64Text, 'int64 must be a decimal integer within the int64 range'),
    z
      .number()
      .refine(
        (v) => Number.isSafeInteger(v) && !Object.is(v, -0),
        'int64 written as a number that is not a plain safe integer (fraction, exponent, -0 or beyond 2^53) would lose digits',
      ),
  ])
  .transform((v) => (typeof v === 'number' ? v.toFixed(0) : v));

const opt = <T extends z.ZodType>(schema: T) => schema.nullish();

export const ContactSchema = z.looseObject({
  Email: z.string(),
  OptOutEmail: opt(z.boolean()),
  Mobile: opt(z.string()),
  OptOutSms: opt(z.boolean()),
  Home: opt(z.string()),
  Work: opt(z.string()),
  Address: opt(z.string()),
  Suburb: opt(z.string()),
  State: opt(z.string()),
  Postcode: opt(z.string()),
});
export type Contact = z.infer<typeof ContactSchema>;

export const MembershipSchema = z.looseObject({
  Id: z.number().int(),
  Name: z.string(),
  /** Gym local time. */
  StartDate: dateTime,
  /** Gym local time. */
  SaleDate: opt(dateTime),
  CancellationDate: opt(dateTime),
  MinimumTermDate: opt(dateTime),
  /** Present when the contract type is Paid in Full. */
  ExpiryDate: opt(dateTime),
  Type: z.string(),
});
export type Membership = z.infer<typeof MembershipSchema>;

export const MemberSchema = z.looseObject({
  Number: opt(z.string()),
  FirstName: opt(z.string()),
  LastName: opt(z.string()),
  Status: opt(z.string()),
  Barcode: opt(z.string()),
  FitnessPassportNumber: opt(z.string()),
  DateOfBirth: opt(dateTime),
  Gender: opt(z.string()),
  /** UTC. */
  LastUpdatedUtcDateTime: opt(dateTime),
  Contact: opt(ContactSchema),
  Membership: opt(MembershipSchema),
});
export type Member = z.infer<typeof MemberSchema>;

export const IdNameSchema = z.looseObject({ Id: opt(z.number().int()), Name: opt(z.string()) });
export type IdName = z.infer<typeof IdNameSchema>;

export const SalesPersonSchema = z.looseObject({
  Id: opt(z.number().int()),
  FirstName: opt(z.string()),
  LastName: opt(z.string()),
  Email: opt(z.string()),
});
export type SalesPerson = z.infer<typeof SalesPersonSchema>;

export const ProspectSchema = z.looseObject({
  Number: opt(z.string()),
  FirstName: opt(z.string()),
  LastName: opt(z.string()),
  Status: opt(z.string()),
  Barcode: opt(z.string()),
  DateOfBirth: opt(dateTime),
  Gender: opt(z.string()),
  TrialStartDate: opt(dateTime),
  TrialEndDate: opt(dateTime),
  /** UTC (by its name). */
  CreatedDateUtc: opt(dateTime),
  ContactMethod: opt(IdNameSchema),
  Source: opt(IdNameSchema),
  SourcePage: opt(z.string()),
  SalesPerson: opt(SalesPersonSchema),
  Contact: opt(ContactSchema),
});
export type Prospect = z.infer<typeof ProspectSchema>;

export const MemberVisitSchema = z.looseObject({
  MemberNumber: opt(z.string()),
  Door: opt(z.string()),
  ScanSource: opt(z.string()),
  /** Gym local time. */
  VisitDateTime: opt(dateTime),
});
export type MemberVisit = z.infer<typeof MemberVisitSchema>;

export const FEE_BREAKDOWN_FIELDS = [
  'AccessCardFee',
  'AddOnAmount',
  'Adjustment',
  'ArrearsFee',
  'CancellationLateFee',
  'CardSurchargeFee',
  'ClassNoShowFee',
  'CrecheClassNoShowFee',
  'DishonourFee',
  'JoiningFee',
  'MaintenanceFee',
  'PosTransaction',
  'Prorata',
  'PtNoShowFee',
  'RegPaymentFee',
  'SetupFee',
  'SubscriptionFee',
  'SuspensionFee',
  'TransactionFee',
] as const;

const numberFields = <const K extends readonly string[]>(keys: K) =>
  z.looseObject(
    Object.fromEntries(keys.map((k) => [k, opt(z.number())])) as {
      [P in K[number]]: ReturnType<typeof opt<z.ZodNumber>>;
    },
  );

export const FeeBreakdownSchema = numberFields(FEE_BREAKDOWN_FIELDS);
export type FeeBreakdown = z.infer<typeof FeeBreakdownSchema>;

export const RefundSchema = z.looseObject({ IsRefunded: opt(z.boolean()), RefundedPaymentId: opt(int64) });

export const MemberPaymentHistorySchema = z.looseObject({
  Id: opt(int64),
  Number: opt(z.string()),
  PaymentDate: opt(dateTime),
  /** DD = direct debit, CC = credit card; other values exist. */
  PaymentType: opt(z.string()),
  Response: opt(z.string()),
  PaymentDescription: opt(z.string()),
  PaymentForReference: opt(IdNameSchema),
  FeeBreakdown: opt(z.array(FeeBreakdownSchema)),
  Refund: opt(RefundSchema),
});
export type MemberPaymentHistory = z.infer<typeof MemberPaymentHistorySchema>;

export const PosTransactionItemSchema = z.looseObject({
  ItemId: opt(int64),
  ProductId: opt(int64),
  ProductName: opt(z.string()),
  Description: opt(z.string()),
  PriceExTax: opt(z.number()),
  PriceIncTax: opt(z.number()),
  Quantity: opt(z.number()),
  Tax: opt(z.number()),
  Discount: opt(z.number()),
  CategoryId: opt(int64),
  CategoryName: opt(z.string()),
  SubCategoryId: opt(int64),
  SubCategoryName: opt(z.string()),
  IsRefunded: opt(z.boolean()),
  IsVoided: opt(z.boolean()),
});
export type PosTransactionItem = z.infer<typeof PosTransactionItemSchema>;

export const MemberPosTransactionSchema = z.looseObject({
  PosTransactionId: opt(int64),
  TransactionDate: opt(dateTime),
  TransactionType: opt(z.string()),
  TotalExTax: opt(z.number()),
  TotalIncTax: opt(z.number()),
  Till: opt(z.string()),
  Items: opt(z.array(PosTransactionItemSchema)),
});
export type MemberPosTransaction = z.infer<typeof MemberPosTransactionSchema>;

export const DISBURSEMENT_BREAKDOWN_FIELDS = [
  'Membership',
  'AccessCard',
  'Surcharge',
  'Joining',
  'Setup',
  'Transaction',
  'Subscription',
  'Arrears',
  'Prorata',
  'Dishonour',
  'Suspension',
  'Pos',
  'AddOn',
  'Cancellation',
  'ClassNoShow',
  'PtNoShow',
] as const;

export const DisbursementBreakdownSchema = numberFields(DISBURSEMENT_BREAKDOWN_FIELDS);

export const DisbursementSchema = z.looseObject({
  DisbursementDate: opt(dateTime),
  TransactionDate: opt(dateTime),
  Amount: opt(z.number()),
  MemberNumber: opt(z.string()),
  Department: opt(z.string()),
  PaymentType: opt(z.string()),
  Breakdown: opt(DisbursementBreakdownSchema),
});
export type Disbursement = z.infer<typeof DisbursementSchema>;

export const DebtCollectionSchema = z.looseObject({
  Amount: opt(z.number()),
  DebtCollectionDate: opt(dateTime),
  MemberNumber: opt(z.string()),
  FirstName: opt(z.string()),
  LastName: opt(z.string()),
  Email: opt(z.string()),
  Mobile: opt(z.string()),
  Address: opt(z.string()),
});
export type DebtCollection = z.infer<typeof DebtCollectionSchema>;

/**
 * GET /members/attendance/classes: the seed lists the operation but not its shape. Records are
 * carried raw; the only thing assumed is that each item is a JSON object.
 */
export const ClassAttendanceSchema = z.looseObject({});
export type ClassAttendance = z.infer<typeof ClassAttendanceSchema>;
