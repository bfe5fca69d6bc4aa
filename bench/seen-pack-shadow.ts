/**
 * The packs of the time-ordered seen set each counted store was given (seen-packs.ts), per
 * partition in key order: a Query's cost is the size of the items in its key range, which a
 * wrapper cannot see in the entries it returns (a pack at the range's edge is read whole, a re-put
 * entry sits in two packs). bench/store-units.ts prices the seen set's calls from it.
 */
import type { StateStore } from '../lambdas/state/store';

/** A pack as the model keeps it: its key, size and expiry. */
export interface ShadowPack {
  readonly sk: string;
  readonly bytes: number;
  readonly expiresAt: number;
}

const SHADOW = new WeakMap<StateStore, Map<string, ShadowPack[]>>();

function shadowOf(inner: StateStore, pk: string): ShadowPack[] {
  let partitions = SHADOW.get(inner);
  if (!partitions) {
    partitions = new Map();
    SHADOW.set(inner, partitions);
  }
  let packs = partitions.get(pk);
  if (!packs) {
    packs = [];
    partitions.set(pk, packs);
  }
  return packs;
}

/** The first index whose key is >= `sk`. */
function lowerBound(packs: readonly ShadowPack[], sk: string): number {
  let lo = 0;
  let hi = packs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((packs[mid] as ShadowPack).sk < sk) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Files a pack written to `inner` (a re-put of its key replaces it). */
export function shadowPut(inner: StateStore, pk: string, pack: ShadowPack): void {
  const packs = shadowOf(inner, pk);
  const i = lowerBound(packs, pack.sk);
  packs.splice(i, packs[i]?.sk === pack.sk ? 1 : 0, pack);
}

/** The sizes of the unexpired packs with `from <= sk <= end` (no `end`: to the partition's end). */
export function shadowRange(
  inner: StateStore,
  pk: string,
  from: string,
  end: string | undefined,
  nowSec: number,
): number[] {
  const packs = shadowOf(inner, pk);
  const sizes: number[] = [];
  for (let i = lowerBound(packs, from); i < packs.length; i++) {
    const pack = packs[i] as ShadowPack;
    if (end !== undefined && pack.sk > end) break;
    if (pack.expiresAt > nowSec) sizes.push(pack.bytes);
  }
  return sizes;
}
