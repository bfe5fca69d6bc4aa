/**
 * A map from string keys to values, kept in key order, for range reads over a million entries:
 * the keys live in sorted chunks of at most MAX_CHUNK, so a put or a range lookup is two binary
 * searches (chunk, then position) plus moving at most one chunk's entries, never the whole set.
 * Order is JavaScript's string order (UTF-16 code units); for keys made of ASCII it is also
 * DynamoDB's (UTF-8 bytes) order.
 */

const MAX_CHUNK = 1024;

interface Chunk<V> {
  keys: string[];
  values: V[];
}

/** Index of the first key >= `key` in a sorted array (keys.length if none). */
function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((keys[mid] as string) < key) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class SortedStringMap<V> {
  readonly #chunks: Chunk<V>[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Sets the value of `key`, inserting it in order if it is new. */
  set(key: string, value: V): void {
    if (this.#chunks.length === 0) {
      this.#chunks.push({ keys: [key], values: [value] });
      this.#size = 1;
      return;
    }
    const chunkIndex = Math.min(this.#firstChunkEndingAtOrAfter(key), this.#chunks.length - 1);
    const chunk = this.#chunks[chunkIndex] as Chunk<V>;
    const at = lowerBound(chunk.keys, key);
    if (chunk.keys[at] === key) {
      chunk.values[at] = value;
      return;
    }
    if (at === chunk.keys.length) {
      chunk.keys.push(key);
      chunk.values.push(value);
    } else {
      chunk.keys.splice(at, 0, key);
      chunk.values.splice(at, 0, value);
    }
    this.#size += 1;
    if (chunk.keys.length > MAX_CHUNK) this.#split(chunkIndex);
  }

  get(key: string): V | undefined {
    const chunk = this.#chunks[this.#firstChunkEndingAtOrAfter(key)];
    if (!chunk) return undefined;
    const at = lowerBound(chunk.keys, key);
    return chunk.keys[at] === key ? chunk.values[at] : undefined;
  }

  /** Removes `key` if present. */
  delete(key: string): void {
    const chunkIndex = this.#firstChunkEndingAtOrAfter(key);
    const chunk = this.#chunks[chunkIndex];
    if (!chunk) return;
    const at = lowerBound(chunk.keys, key);
    if (chunk.keys[at] !== key) return;
    chunk.keys.splice(at, 1);
    chunk.values.splice(at, 1);
    this.#size -= 1;
    if (chunk.keys.length === 0) this.#chunks.splice(chunkIndex, 1);
  }

  /** Entries with from <= key <= to (both inclusive, as DynamoDB's BETWEEN), in key order. */
  *range(from: string, to?: string): IterableIterator<[string, V]> {
    const first = this.#firstChunkEndingAtOrAfter(from);
    for (let c = first; c < this.#chunks.length; c++) {
      const chunk = this.#chunks[c] as Chunk<V>;
      for (let i = c === first ? lowerBound(chunk.keys, from) : 0; i < chunk.keys.length; i++) {
        const key = chunk.keys[i] as string;
        if (to !== undefined && key > to) return;
        yield [key, chunk.values[i] as V];
      }
    }
  }

  /** Index of the first chunk whose last key is >= `key` (chunks.length if none). */
  #firstChunkEndingAtOrAfter(key: string): number {
    let low = 0;
    let high = this.#chunks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const keys = (this.#chunks[mid] as Chunk<V>).keys;
      if ((keys[keys.length - 1] as string) < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  #split(chunkIndex: number): void {
    const chunk = this.#chunks[chunkIndex] as Chunk<V>;
    const half = chunk.keys.length >>> 1;
    const upper: Chunk<V> = { keys: chunk.keys.splice(half), values: chunk.values.splice(half) };
    this.#chunks.splice(chunkIndex + 1, 0, upper);
  }
}
