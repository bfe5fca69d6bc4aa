/**
 * The list operations of the Gym Reporting API, exactly as the seed's Operations table: path,
 * the query parameters each one takes, the status enumeration where `status` is allowed, what
 * `fromdate` filters by, and the schema of its items. The client and the sandbox both read this
 * table, so they cannot disagree about which parameter an operation takes.
 */
import type { z } from 'zod';
import {
  ClassAttendanceSchema,
  DebtCollectionSchema,
  DisbursementSchema,
  MemberPaymentHistorySchema,
  MemberPosTransactionSchema,
  MemberSchema,
  MemberVisitSchema,
  ProspectSchema,
} from './schemas';
import { MEMBER_STATUSES, PROSPECT_STATUSES } from './statuses';

export type QueryParam = 'fromdate' | 'updatedate' | 'status' | 'offset' | 'limit';

export interface OperationSpec<S extends z.ZodType = z.ZodType> {
  readonly name: OperationName;
  readonly path: string;
  readonly params: readonly QueryParam[];
  /** Allowed values of `status`, where the operation takes it. */
  readonly statuses?: readonly string[];
  /** What `fromdate` filters by, in the seed's words. */
  readonly fromdateFilters: string;
  readonly itemSchema: S;
  /** True for operations whose shape the seed does not show. */
  readonly experimental?: boolean;
}

export const MAX_PAGE_SIZE = 500;

const paging = ['offset', 'limit'] as const;

export const OPERATIONS = {
  members: {
    name: 'members',
    path: '/members',
    params: ['fromdate', 'updatedate', 'status', ...paging],
    statuses: MEMBER_STATUSES,
    fromdateFilters: 'membership start date (updatedate filters by last update date, UTC)',
    itemSchema: MemberSchema,
  },
  visits: {
    name: 'visits',
    path: '/members/attendance/visits',
    params: ['fromdate', 'status', ...paging],
    statuses: MEMBER_STATUSES,
    fromdateFilters: 'visit date and time (gym local time)',
    itemSchema: MemberVisitSchema,
  },
  paymentHistory: {
    name: 'paymentHistory',
    path: '/members/payment/history',
    params: ['fromdate', ...paging],
    fromdateFilters: 'payment date and time',
    itemSchema: MemberPaymentHistorySchema,
  },
  posTransactions: {
    name: 'posTransactions',
    path: '/members/pos/transactions',
    params: ['fromdate', ...paging],
    fromdateFilters: 'transaction date and time',
    itemSchema: MemberPosTransactionSchema,
  },
  prospects: {
    name: 'prospects',
    path: '/prospects',
    params: ['fromdate', 'status', ...paging],
    statuses: PROSPECT_STATUSES,
    fromdateFilters: 'last status update date and time',
    itemSchema: ProspectSchema,
  },
  disbursements: {
    name: 'disbursements',
    path: '/financial/disbursements',
    params: ['fromdate', ...paging],
    fromdateFilters: 'payment date and time',
    itemSchema: DisbursementSchema,
  },
  debtCollection: {
    name: 'debtCollection',
    path: '/financial/debtcollection',
    params: ['fromdate', ...paging],
    fromdateFilters: 'date sent to debt collection',
    itemSchema: DebtCollectionSchema,
  },
  classAttendance: {
    name: 'classAttendance',
    path: '/members/attendance/classes',
    params: ['fromdate', ...paging],
    fromdateFilters: 'class date (shape not shown by the seed)',
    itemSchema: ClassAttendanceSchema,
    experimental: true,
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationName =
  | 'members'
  | 'visits'
  | 'paymentHistory'
  | 'posTransactions'
  | 'prospects'
  | 'disbursements'
  | 'debtCollection'
  | 'classAttendance';

export type Operations = typeof OPERATIONS;
export type ItemOf<N extends OperationName> = z.output<Operations[N]['itemSchema']>;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
