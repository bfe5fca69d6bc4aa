/**
 * What a poison record starts from: per operation, a valid record and the roles of its fields that
 * the poison variants aim at (the number that identifies it, the time that dates it, an id, a
 * plain string, ...). The record carries its marker (`~poison-<n>`) in the number field. The shapes
 * themselves are in people-shapes.ts and money-shapes.ts; record-shapes.ts gathers them by operation.
 */
import type { OperationName } from '../../lambdas/gym-api/operations';
import type { ClubStore } from '../club-store';
import { floorToSecond } from '../naive-time';
import { makePerson } from '../people';
import type { SeededRandom } from '../sandbox-random';

/** Poison payment, POS and POS item ids: from here up (int64, far above any real id). */
export const POISON_PAYMENT_ID_BASE = 9_200_000_000_000_000_000n;
export const POISON_POS_ID_BASE = 9_210_000_000_000_000_000n;
export const POISON_POS_ITEM_ID_BASE = 9_220_000_000_000_000_000n;

export interface PoisonSeed {
  /** `~poison-<n>`. */
  readonly marker: string;
  readonly n: number;
  /** UTC ms of the sandbox clock the record is stored at. */
  readonly atMs: number;
  readonly store: ClubStore;
  readonly rng: SeededRandom;
}

/** Where a record is filed: its sort key, and for members the `updatedate` key (UTC ms). */
export interface PoisonKeys {
  readonly key: number;
  readonly updatedKey?: number;
}

export interface RecordShape {
  readonly operation: OperationName;
  /** False for the class-attendance shape the API document does not show: nothing is a breach. */
  readonly documented: boolean;
  /** The member (or prospect) number: the marker's field, and what identity variants spoil. */
  readonly numberField: string;
  /** Whether a record without a usable number has no identity. */
  readonly numberIsIdentity: boolean;
  /** A string field for the marker when the number field is what is spoilt. */
  readonly fallbackMarkerField: string;
  /** Date-times written from the record's keys (what the API filters and orders by). */
  readonly timeFields: readonly string[];
  /**
   * Whether the first time field is part of what identifies the record (visits, debt referrals:
   * no id, no other date). A null there leaves no identity; elsewhere a bridge may carry the
   * record without its time (the document does not mark the field required).
   */
  readonly timeIsIdentity: boolean;
  /** Other date-time fields. */
  readonly dateFields: readonly string[];
  /** Integer ids; the first one is the record's identity when `idIsIdentity`. */
  readonly idFields: readonly string[];
  readonly idIsIdentity: boolean;
  readonly amountField?: string;
  /** A known string field (the target of oversized and boolean-for-string). */
  readonly stringField: string;
  readonly booleanField?: string;
  readonly objectField?: string;
  readonly arrayField?: string;
  /** A field the document marks Required (other than identity and time). */
  readonly requiredField?: string;
  readonly emailField?: string;
  /** Enumerated fields and values the document does not list for them. */
  readonly enums: readonly (readonly [field: string, unknown: readonly string[]])[];
  keys(store: ClubStore, atMs: number): PoisonKeys;
  base(seed: PoisonSeed, keys: PoisonKeys): Record<string, unknown>;
}

/** The number part before the marker: looks like a member number, never a real one. */
export const poisonNumber = (n: number) => String(800000 + n);

export const localKey = (store: ClubStore, atMs: number): PoisonKeys => ({
  key: floorToSecond(store.local(atMs)),
});
export const ambiguousKey = (store: ClubStore, atMs: number): PoisonKeys => ({
  key: floorToSecond(store.ambiguous(atMs)),
});

export const person = (s: PoisonSeed) => makePerson(s.rng, s.store.profile.locale, 800000 + s.n);

// ---- dotted paths ("Items.0.ItemId") ---------------------------------------------------------

type Container = Record<string, unknown> | unknown[];

function parentOf(record: Record<string, unknown>, path: string): [Container, string] | undefined {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let at: unknown = record;
  for (const p of parts) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[p];
  }
  return typeof at === 'object' && at !== null ? [at as Container, last] : undefined;
}

export function getPath(record: Record<string, unknown>, path: string): unknown {
  const found = parentOf(record, path);
  return found ? (found[0] as Record<string, unknown>)[found[1]] : undefined;
}

export function setPath(record: Record<string, unknown>, path: string, value: unknown): void {
  const found = parentOf(record, path);
  if (!found) throw new RangeError(`poison: no field ${path} in the base record`);
  (found[0] as Record<string, unknown>)[found[1]] = value;
}
