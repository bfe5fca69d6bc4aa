/**
 * A member's or prospect's snapshot: what state sources compare to find changes, and what the
 * state store keeps between polls. Defined here, below both (sources never import state).
 */

export type SnapshotKind = 'MEMBER' | 'PROSPECT';

export interface Snapshot {
  /** Member or prospect number (a decimal string: int64 ids are carried as strings). */
  id: string;
  hash: string;
  fields: Record<string, unknown>;
  updatedAt: string;
}
