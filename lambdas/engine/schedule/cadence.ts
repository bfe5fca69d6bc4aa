/**
 * How often each source is polled when nothing slows it down: a fixed interval per source. Failure
 * back-off (../failure-policy.ts) and the quota stretch (./quota-stretch.ts) only ever lengthen it.
 * A shorter interval buys freshness with requests and DynamoDB reads; docs/benchmarks.md measures
 * what the current one costs.
 */

import type { SourceName } from '../../state/store';

const MINUTE = 60_000;

export interface SourceCadence {
  /** Time between two polls of the source (before back-off and quota stretch). */
  readonly intervalMs: number;
}

/** Every source every minute: freshness first. */
export const SOURCE_CADENCE: Readonly<Record<SourceName, SourceCadence>> = {
  members: { intervalMs: MINUTE },
  visits: { intervalMs: MINUTE },
  paymentHistory: { intervalMs: MINUTE },
  prospects: { intervalMs: MINUTE },
  posTransactions: { intervalMs: MINUTE },
  classAttendance: { intervalMs: MINUTE },
  disbursements: { intervalMs: MINUTE },
  debtCollection: { intervalMs: MINUTE },
};
