/**
 * The bridge's data sources, one per API list operation: the names of cursors in the state table,
 * of `detail.source` in events, and of `--source` on the CLI. Defined once.
 */
export const SOURCE_NAMES = [
  'visits',
  'paymentHistory',
  'posTransactions',
  'disbursements',
  'debtCollection',
  'members',
  'prospects',
  'classAttendance',
] as const;

export type SourceName = (typeof SOURCE_NAMES)[number];

export function isSourceName(value: string): value is SourceName {
  return (SOURCE_NAMES as readonly string[]).includes(value);
}
