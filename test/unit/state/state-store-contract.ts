/**
 * The StateStore contract, run against every adapter (MemoryStateStore in test/unit/state,
 * DynamoDbStateStore on dynalite in test/integration/state). An adapter passes only if it behaves
 * exactly as the engine expects: versioned cursors, the club state item (exclusive sessions, what
 * they write on close and checkpoint, writes outside a poll), expiring seen keys, the time-ordered
 * seen set's ranges, batched reads and writes beyond one call's limit, snapshot round trips, quota
 * counters that never lose a count, quarantine. Each concern's tests are in the
 * state-store-contract-*.ts file named after it; this file runs them all, in this order, for one adapter.
 */
import { describe } from 'vitest';
import { describeClubStateContract } from './state-store-contract-club-state';
import { describeCursorContract } from './state-store-contract-cursors';
import { describeLifecycleDocumentContract } from './state-store-contract-lifecycle';
import { describeQuarantineContract } from './state-store-contract-quarantine';
import { describeQuotaContract } from './state-store-contract-quota';
import { describeSeenAtContract } from './state-store-contract-seen-at';
import {
  describeSeenDigestContract,
  describeSeenFingerprintContract,
} from './state-store-contract-seen-keys';
import { describeSnapshotContract } from './state-store-contract-snapshots';
import type { StoreFactory } from './state-store-contract-support';

export type { StoreFactory, StoreUnderTest } from './state-store-contract-support';

export function describeStateStoreContract(adapter: string, makeStore: StoreFactory): void {
  describe(`StateStore contract: ${adapter}`, () => {
    describeCursorContract(makeStore);
    describeClubStateContract(makeStore);
    describeSeenFingerprintContract(makeStore);
    describeSeenAtContract(makeStore);
    describeSeenDigestContract(makeStore);
    describeLifecycleDocumentContract(makeStore);
    describeSnapshotContract(makeStore);
    describeQuotaContract(makeStore);
    describeQuarantineContract(makeStore);
  });
}
