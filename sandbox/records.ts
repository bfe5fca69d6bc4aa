/**
 * The sandbox's stored records. Each keeps its API representation (`api`, serialised as is, with
 * int64 ids as bigint) next to the hidden fields the simulation and the filters need.
 */
import type { FEE_BREAKDOWN_FIELDS } from '../lambdas/gym-api/schemas';
import type { MemberStatus, ProspectStatus } from '../lambdas/gym-api/statuses';
import type { ApiContact } from './people';
import type { MembershipPlan } from './vocabulary';

export interface IdName {
  Id: number;
  Name: string;
}

export interface ApiMembership {
  Id: number;
  Name: string;
  StartDate: string;
  SaleDate: string;
  CancellationDate?: string;
  MinimumTermDate?: string;
  ExpiryDate?: string;
  Type: string;
}

export interface ApiMember {
  Number: string;
  FirstName: string;
  LastName: string;
  Status: MemberStatus;
  Barcode: string;
  FitnessPassportNumber: string | null;
  DateOfBirth: string;
  Gender: string;
  LastUpdatedUtcDateTime: string;
  Contact: ApiContact;
  Membership: ApiMembership;
}

export interface MemberRecord {
  readonly index: number;
  readonly api: ApiMember;
  /** A term cut short (activity/short-terms.ts) drops its renewal. */
  plan: MembershipPlan;
  /** Picks the member's direct-debit day within the billing period. */
  readonly billingAnchor: number;
  /** Naive ms of Membership.StartDate (the members `fromdate` key). */
  startKey: number;
  /** UTC ms of LastUpdatedUtcDateTime (the members `updatedate` key). */
  updatedKey: number;
  /** Naive ms of ExpiryDate for paid-in-full memberships. */
  expiryKey?: number;
  /** Naive ms of CancellationDate once cancelled. */
  cancellationKey?: number;
  paymentIssueSinceMs?: number;
  arrears: number;
  referredToDebt: boolean;
}

export interface SalesPerson {
  Id: number;
  FirstName: string;
  LastName: string;
  Email: string;
}

export interface ApiProspect {
  Number: string;
  FirstName: string;
  LastName: string;
  Status: ProspectStatus;
  Barcode: string | null;
  DateOfBirth: string | null;
  Gender: string;
  TrialStartDate: string | null;
  TrialEndDate: string | null;
  CreatedDateUtc: string;
  ContactMethod: IdName;
  Source: IdName;
  SourcePage: string | null;
  SalesPerson: SalesPerson;
  Contact: ApiContact;
}

export interface ProspectRecord {
  readonly index: number;
  readonly api: ApiProspect;
  /** Naive ms of the hidden last-status-update time (zone per `ambiguousZone`): the `fromdate` key. */
  statusKey: number;
  trialEndKey?: number;
}

export type FeeField = (typeof FEE_BREAKDOWN_FIELDS)[number];
export type FeeBreakdown = Record<FeeField, number>;

export interface ApiPayment {
  Id: bigint;
  Number: string;
  PaymentDate: string;
  PaymentType: 'DD' | 'CC';
  Response: string;
  PaymentDescription: string;
  PaymentForReference: IdName;
  FeeBreakdown: FeeBreakdown[];
  Refund: { IsRefunded: boolean; RefundedPaymentId: bigint | null };
}

export interface PaymentRecord {
  readonly api: ApiPayment;
  readonly key: number;
  readonly memberIndex: number;
  readonly amount: number;
  /** Whether the club has been paid for it yet (disbursement), or never will be. */
  settlement: 'pending' | 'settled' | 'none';
}

export interface ApiPosItem {
  ItemId: bigint;
  ProductId: bigint;
  ProductName: string;
  Description: string;
  PriceExTax: number;
  PriceIncTax: number;
  Quantity: number;
  Tax: number;
  Discount: number;
  CategoryId: bigint;
  CategoryName: string;
  SubCategoryId: bigint;
  SubCategoryName: string;
  IsRefunded: boolean;
  IsVoided: boolean;
}

export interface ApiPosTransaction {
  PosTransactionId: bigint;
  TransactionDate: string;
  TransactionType: 'Sale' | 'Refund';
  TotalExTax: number;
  TotalIncTax: number;
  Till: string;
  Items: ApiPosItem[];
  /** Not in the seed: links a sale to a member (absent for walk-in customers). */
  MemberNumber?: string;
}

export interface ApiDisbursementBreakdown {
  Membership: number;
  AccessCard: number;
  Surcharge: number;
  Joining: number;
  Setup: number;
  Transaction: number;
  Subscription: number;
  Arrears: number;
  Prorata: number;
  Dishonour: number;
  Suspension: number;
  Pos: number;
  AddOn: number;
  Cancellation: number;
  ClassNoShow: number;
  PtNoShow: number;
}

/** A breakdown of zeros, its fields in the API's order (the order they are served in). */
export function zeroDisbursementBreakdown(): ApiDisbursementBreakdown {
  return {
    Membership: 0,
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
  };
}

export interface ApiDisbursement {
  DisbursementDate: string;
  TransactionDate: string;
  Amount: number;
  MemberNumber: string;
  Department: string;
  PaymentType: string;
  Breakdown: ApiDisbursementBreakdown;
}

export interface ApiDebtCollection {
  Amount: number;
  DebtCollectionDate: string;
  MemberNumber: string;
  FirstName: string;
  LastName: string;
  Email: string;
  Mobile: string | null;
  Address: string;
}

/** GET /members/attendance/classes: the seed does not show its shape; this one is invented. */
export interface ApiClassAttendance {
  AttendanceId: number;
  ClassId: number;
  ClassName: string;
  ClassDateTime: string;
  DurationMinutes: number;
  Instructor: string;
  MemberNumber: string | null;
  ProspectNumber: string | null;
  Booked: boolean;
  Attended: boolean;
  Status: 'Attended' | 'NoShow' | 'WalkIn';
}

/** A record in one of the simple append-only lists, sorted by `key`. */
export interface KeyedRecord<A> {
  readonly api: A;
  readonly key: number;
}
