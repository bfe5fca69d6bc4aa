/** Every source, in the order a club poll runs them (members first: other events refer to them). */
import type { SourceName } from '../common/source-names';
import {
  classAttendanceSource,
  debtCollectionSource,
  disbursementsSource,
  posTransactionsSource,
  visitsSource,
} from './append-sources';
import { paymentHistorySource } from './payment-source';
import type { SourceDefinition } from './source';
import { membersSource, prospectsSource } from './state-sources';

export const SOURCES: Record<SourceName, SourceDefinition> = {
  members: membersSource,
  prospects: prospectsSource,
  visits: visitsSource,
  paymentHistory: paymentHistorySource,
  posTransactions: posTransactionsSource,
  disbursements: disbursementsSource,
  debtCollection: debtCollectionSource,
  classAttendance: classAttendanceSource,
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

/**
 * The sources a club polls when its configuration names none (`sources` absent): every source
 * except the experimental ones, in poll order. An experimental source (its endpoint or record shape
 * is not in the API document, e.g. classAttendance) is polled only by clubs that list it.
 */
export const DEFAULT_SOURCES: readonly SourceName[] = SOURCE_ORDER.filter((s) => !SOURCES[s].experimental);

/** True for a source whose endpoint or shape the API document does not show (opt-in only). */
export function isExperimentalSource(source: SourceName): boolean {
  return SOURCES[source].experimental === true;
}

/**
 * The sources a club polls, in poll order: those it lists, or `DEFAULT_SOURCES` when it lists none.
 * The one place that decides what "no `sources`" means (engine, scheduler, dispatcher, CLI).
 */
export function enabledSources(club: { readonly sources?: readonly SourceName[] | undefined }): SourceName[] {
  const listed = club.sources ?? DEFAULT_SOURCES;
  return SOURCE_ORDER.filter((s) => listed.includes(s));
}

export type { AppendSource, ClubContext, SourceDefinition, StateSource } from './source';
