/**
 * The item stores' primitives (../item-table.ts) in process memory, behaving as DynamoDB does for
 * those calls: a partition per `pk`, its items in sort-key order (UTF-8 byte order, as DynamoDB
 * compares keys), BETWEEN bounds inclusive, a projection returns only its attributes, undefined
 * attributes are dropped (the marshaller's removeUndefinedValues), bytes come back as Uint8Array,
 * keys repeated in one batch are an error, and a conditional put returns the item it replaced.
 * Expired items are kept, as DynamoDB keeps them until its TTL sweep: the stores filter on read.
 * Items are copied in and out, so no caller shares an object with what is stored. Each call runs
 * synchronously, so it is atomic with respect to concurrent callers in the process.
 */
import type {
  Item,
  ItemTable,
  PutCondition,
  PutResult,
  QueryOptions,
  QueryRange,
  ReadOptions,
} from '../item-table';
import type { ItemKey } from '../keys';
import { SortedStringMap } from '../sorted-string-map';
import { StoreError } from '../store-errors';

/**
 * A sort key whose JavaScript string order (UTF-16 code units) is the key's UTF-8 byte order:
 * the two differ only where a surrogate pair meets a code unit of U+E000..U+FFFF, so those move
 * below the surrogates. Keys without either (every ASCII key) are their own order key.
 */
function orderKey(sk: string): string {
  if (!/[\uD800-\uFFFF]/.test(sk)) return sk;
  let out = '';
  for (let i = 0; i < sk.length; i++) {
    const c = sk.charCodeAt(i);
    out += String.fromCharCode(c >= 0xe000 ? c - 0x800 : c >= 0xd800 ? c + 0x2000 : c);
  }
  return out;
}

/** A deep copy as DynamoDB would give it back: undefined dropped, bytes as a Uint8Array of their own. */
function copyOf(value: unknown): unknown {
  if (value instanceof Uint8Array) return Uint8Array.from(value);
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(copyOf);
  if (value !== null && typeof value === 'object') {
    const out: Item = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = copyOf(v);
    return out;
  }
  return value;
}

function projected(item: Item, projection: readonly string[] | undefined): Item {
  if (!projection) return copyOf(item) as Item;
  const out: Item = {};
  for (const name of projection) if (item[name] !== undefined) out[name] = copyOf(item[name]);
  return out;
}

function assertDistinct(operation: string, keys: readonly ItemKey[]): void {
  const seen = new Set(keys.map((k) => `${k.pk}\u0000${k.sk}`));
  if (seen.size !== keys.length) throw new StoreError(`${operation}: the same key twice in one call`);
}

function keyOf(item: Item): ItemKey {
  const { pk, sk } = item;
  if (typeof pk !== 'string' || typeof sk !== 'string' || pk === '' || sk === '')
    throw new StoreError('an item needs non-empty string pk and sk');
  return { pk, sk };
}

function holds(condition: PutCondition, old: Item | undefined): boolean {
  if ('absent' in condition) return old === undefined;
  return old !== undefined && old[condition.equals.name] === condition.equals.value;
}

export class MemoryItemTable implements ItemTable {
  readonly #partitions = new Map<string, SortedStringMap<Item>>();

  #partition(pk: string): SortedStringMap<Item> {
    let partition = this.#partitions.get(pk);
    if (!partition) {
      partition = new SortedStringMap<Item>();
      this.#partitions.set(pk, partition);
    }
    return partition;
  }

  #stored(key: ItemKey): Item | undefined {
    return this.#partitions.get(key.pk)?.get(orderKey(key.sk));
  }

  async get(key: ItemKey, options: ReadOptions): Promise<Item | undefined> {
    const item = this.#stored(key);
    return item ? projected(item, options.projection) : undefined;
  }

  async batchGet(keys: readonly ItemKey[], options: ReadOptions): Promise<Item[]> {
    assertDistinct('BatchGetItem', keys);
    const found: Item[] = [];
    for (const key of keys) {
      const item = this.#stored(key);
      if (item) found.push(projected(item, options.projection));
    }
    return found;
  }

  async batchWrite(items: readonly Item[]): Promise<void> {
    const keys = items.map(keyOf);
    assertDistinct('BatchWriteItem', keys);
    const copies = items.map((item) => copyOf(item) as Item);
    copies.forEach((item, i) => {
      const { pk, sk } = keys[i] as ItemKey;
      this.#partition(pk).set(orderKey(sk), item);
    });
  }

  async batchDelete(keys: readonly ItemKey[]): Promise<void> {
    assertDistinct('BatchWriteItem', keys);
    for (const { pk, sk } of keys) this.#partitions.get(pk)?.delete(orderKey(sk));
  }

  async query(range: QueryRange, options: QueryOptions): Promise<Item[]> {
    const partition = this.#partitions.get(range.pk);
    if (!partition) return [];
    const { limit = Number.POSITIVE_INFINITY, keep } = options;
    const entries = partition.range(
      orderKey(range.from ?? ''),
      range.to === undefined ? undefined : orderKey(range.to),
    );
    const ordered = options.reverse ? [...entries].reverse() : entries;
    const out: Item[] = [];
    for (const [, item] of ordered) {
      if (out.length >= limit) break;
      const read = projected(item, options.projection);
      if (!keep || keep(read)) out.push(read);
    }
    return out;
  }

  async put(item: Item, condition?: PutCondition): Promise<PutResult> {
    const { pk, sk } = keyOf(item);
    const old = this.#stored({ pk, sk });
    if (condition && !holds(condition, old)) return { applied: false };
    this.#partition(pk).set(orderKey(sk), copyOf(item) as Item);
    return old && condition ? { applied: true, old } : { applied: true };
  }
}
