/** Every source, in the order a club poll runs them (members first: other events refer to them). */
import type { SourceName } from '../state/store';
import {
  classAttendanceSource,
  debtCollectionSource,
  disbursementsSource,
  paymentHistorySource,
  posTransactionsSource,
  visitsSource,
} from './append-sources';
import type { SourceDefinition } from './source';
import { membersSource, prospectsSource } from './state-sources';

export const SOURCES: Record<SourceName, SourceDefinition> = {
  members: membersSource as SourceDefinition,
  prospects: prospectsSource as SourceDefinition,
  visits: visitsSource as SourceDefinition,
  paymentHistory: paymentHistorySource as SourceDefinition,
  posTransactions: posTransactionsSource as SourceDefinition,
  disbursements: disbursementsSource as SourceDefinition,
  debtCollection: debtCollectionSource as SourceDefinition,
  classAttendance: classAttendanceSource as SourceDefinition,
};

export const SOURCE_ORDER: readonly SourceName[] = [
  'members',
  'prospects',
  'visits',
  'paymentHistory',
  'posTransactions',
  'disbursements',
  'debtCollection',
  'classAttendance',
];

export type { AppendSource, ClubContext, SourceDefinition, StateSource } from './source';
