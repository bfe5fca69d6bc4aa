/**
 * Records kept sorted by a numeric key (naive or UTC milliseconds), equal keys in insertion order.
 * Lookups by `fromdate` are a binary search; appends at the end (the common case, since activity
 * moves forward in time) are a push, and late records are spliced into place.
 */

/** Index of the first key >= `key`. */
export function lowerBound(keys: readonly number[], key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as number) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first key > `key`. */
export function upperBound(keys: readonly number[], key: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as number) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What the page selector needs from an ordered collection. */
export interface OrderedView {
  readonly length: number;
  keyAt(index: number): number;
  lowerBound(key: number): number;
}

export class SortedIndex<T> implements OrderedView {
  readonly keys: number[] = [];
  readonly items: T[] = [];

  get length(): number {
    return this.keys.length;
  }

  keyAt(index: number): number {
    return this.keys[index] as number;
  }

  itemAt(index: number): T {
    return this.items[index] as T;
  }

  lowerBound(key: number): number {
    return lowerBound(this.keys, key);
  }

  /** Inserts after every item with an equal key; returns the position. */
  insert(key: number, item: T): number {
    const last = this.keys[this.keys.length - 1];
    if (last === undefined || last <= key) {
      this.keys.push(key);
      this.items.push(item);
      return this.keys.length - 1;
    }
    const at = upperBound(this.keys, key);
    this.keys.splice(at, 0, key);
    this.items.splice(at, 0, item);
    return at;
  }

  /** Removes `item`, which must have been inserted with `key`. */
  remove(key: number, item: T): boolean {
    for (let i = lowerBound(this.keys, key); i < this.keys.length && this.keys[i] === key; i++) {
      if (this.items[i] === item) {
        this.keys.splice(i, 1);
        this.items.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** Moves `item` from `oldKey` to `newKey`. */
  rekey(oldKey: number, newKey: number, item: T): void {
    this.remove(oldKey, item);
    this.insert(newKey, item);
  }
}

/** Picks one page of an ordered collection: `fromKey` bound, optional filter, offset and limit. */
export interface PageSelection {
  readonly fromKey?: number;
  readonly matches?: (index: number) => boolean;
  readonly offset: number;
  readonly limit: number;
  /** When given, records with equal keys come out in a different order on every call. */
  readonly shuffleTies?: (indices: number[], from: number, to: number) => void;
}

/**
 * Returns the positions (in `view`) of the page's records. Without a filter this is O(log n + page);
 * with one it scans from the bound until the page is full.
 */
export function selectPage(view: OrderedView, sel: PageSelection): number[] {
  const start = sel.fromKey === undefined ? 0 : view.lowerBound(sel.fromKey);
  const wanted = sel.offset + sel.limit;
  if (sel.limit === 0) return [];
  let matched: number[];
  let pageStart: number;
  if (!sel.matches) {
    const first = start + sel.offset;
    if (first >= view.length) return [];
    const end = Math.min(view.length, first + sel.limit);
    // Widen to whole groups of equal keys so that ties can be shuffled across page edges.
    let from = first;
    let to = end;
    if (sel.shuffleTies) {
      while (from > start && view.keyAt(from - 1) === view.keyAt(first)) from--;
      while (to < view.length && view.keyAt(to) === view.keyAt(end - 1)) to++;
    }
    matched = [];
    for (let i = from; i < to; i++) matched.push(i);
    pageStart = first - from;
  } else {
    matched = [];
    let i = start;
    for (; i < view.length && matched.length < wanted; i++) if (sel.matches(i)) matched.push(i);
    if (sel.shuffleTies && matched.length > 0) {
      const lastKey = view.keyAt(matched[matched.length - 1] as number);
      for (; i < view.length && view.keyAt(i) === lastKey; i++) if (sel.matches(i)) matched.push(i);
    }
    pageStart = sel.offset;
  }
  if (sel.shuffleTies) shuffleGroups(view, matched, sel.shuffleTies);
  return matched.slice(pageStart, pageStart + sel.limit);
}

function shuffleGroups(
  view: OrderedView,
  indices: number[],
  shuffle: (indices: number[], from: number, to: number) => void,
): void {
  let groupStart = 0;
  for (let i = 1; i <= indices.length; i++) {
    const same =
      i < indices.length && view.keyAt(indices[i] as number) === view.keyAt(indices[groupStart] as number);
    if (same) continue;
    if (i - groupStart > 1) shuffle(indices, groupStart, i);
    groupStart = i;
  }
}
