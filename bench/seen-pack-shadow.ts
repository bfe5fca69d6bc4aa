/**
 * The packs of the time-ordered seen set each counted store was given (seen-packs.ts), per
 * partition in key order: a Query's cost is the size of the items in its key range, which a
 * wrapper cannot see in the entries it returns (a pack at the range's edge is read whole, a re-put
 * entry sits in two packs). bench/store-units.ts prices the seen set's calls from it.
 */
import { SortedStringMap } from '../lambdas/state/sorted-string-map';
import type { StateStore } from '../lambdas/state/store';

/** A pack as the model keeps it: its size and expiry, under its sort key. */
export interface ShadowPack {
  readonly bytes: number;
  readonly expiresAt: number;
}

const SHADOW = new WeakMap<StateStore, Map<string, SortedStringMap<ShadowPack>>>();

function shadowOf(inner: StateStore, pk: string): SortedStringMap<ShadowPack> {
  let partitions = SHADOW.get(inner);
  if (!partitions) {
    partitions = new Map();
    SHADOW.set(inner, partitions);
  }
  let packs = partitions.get(pk);
  if (!packs) {
    packs = new SortedStringMap();
    partitions.set(pk, packs);
  }
  return packs;
}

/** Files a pack written to `inner` (a re-put of its key replaces it). */
export function shadowPut(inner: StateStore, pk: string, sk: string, pack: ShadowPack): void {
  shadowOf(inner, pk).set(sk, pack);
}

/** The sizes of the unexpired packs with `from <= sk <= end` (no `end`: to the partition's end). */
export function shadowRange(
  inner: StateStore,
  pk: string,
  from: string,
  end: string | undefined,
  nowSec: number,
): number[] {
  const sizes: number[] = [];
  for (const [, pack] of shadowOf(inner, pk).range(from, end)) {
    if (pack.expiresAt > nowSec) sizes.push(pack.bytes);
  }
  return sizes;
}
