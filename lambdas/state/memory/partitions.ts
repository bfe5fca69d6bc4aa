/** The memory store's tables: partition key -> sort key -> value, and keys compared as DynamoDB does. */
import type { ItemKey } from '../keys';

export function partitionOf<V>(table: Map<string, Map<string, V>>, pk: string): Map<string, V> {
  let partition = table.get(pk);
  if (!partition) {
    partition = new Map();
    table.set(pk, partition);
  }
  return partition;
}

export function flatKey(key: ItemKey): string {
  return `${key.pk}\u0000${key.sk}`;
}

/** Sort keys compare as DynamoDB compares them: by UTF-8 bytes. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
