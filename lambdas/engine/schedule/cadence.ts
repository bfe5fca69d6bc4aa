/**
 * How often each source is polled when nothing slows it down: a fixed interval per source. Failure
 * back-off (../failure-policy.ts) and the quota stretch (./quota-stretch.ts) only ever lengthen it.
 * A shorter interval buys freshness with requests and DynamoDB reads; docs/benchmarks.md measures
 * what the current one costs.
 */

import { MINUTE_MS } from '../../common/time-units';
import type { SourceName } from '../../state/store';

export interface SourceCadence {
  /** Time between two polls of the source (before back-off and quota stretch). */
  readonly intervalMs: number;
}

/** Every source every minute: freshness first. */
export const SOURCE_CADENCE: Readonly<Record<SourceName, SourceCadence>> = {
  members: { intervalMs: MINUTE_MS },
  visits: { intervalMs: MINUTE_MS },
  paymentHistory: { intervalMs: MINUTE_MS },
  prospects: { intervalMs: MINUTE_MS },
  posTransactions: { intervalMs: MINUTE_MS },
  classAttendance: { intervalMs: MINUTE_MS },
  disbursements: { intervalMs: MINUTE_MS },
  debtCollection: { intervalMs: MINUTE_MS },
};
