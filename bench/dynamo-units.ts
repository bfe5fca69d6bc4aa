/**
 * DynamoDB item sizes and request units, as AWS documents them, for costing the store calls the
 * bench counts:
 * - item size: attribute names (UTF-8) + values; strings in UTF-8 bytes, numbers about 1 byte per
 *   two significant digits + 1, booleans and nulls 1 byte, maps and lists 3 bytes + 1 per element;
 * - on-demand reads: a strongly consistent read of up to 4 KB is 1 read request unit (RRU), also for
 *   an item that does not exist; BatchGetItem rounds each item up separately; a Query sums the items
 *   it reads and rounds the total up;
 * - on-demand writes: 1 write request unit (WRU) per 1 KB of the item, at least 1 (deletes and
 *   conditional writes that fail included).
 */

export function attributeValueBytes(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'boolean') return 1;
  if (typeof value === 'number') {
    const digits =
      String(Math.abs(value))
        .replace(/[.e+-]/g, '')
        .replace(/^0+/, '').length || 1;
    return Math.ceil(digits / 2) + 1;
  }
  if (Array.isArray(value)) {
    let size = 3;
    for (const element of value) size += 1 + attributeValueBytes(element);
    return size;
  }
  if (typeof value === 'object') {
    let size = 3;
    for (const [name, element] of Object.entries(value as Record<string, unknown>)) {
      if (element === undefined) continue;
      size += 1 + Buffer.byteLength(name, 'utf8') + attributeValueBytes(element);
    }
    return size;
  }
  return Buffer.byteLength(String(value), 'utf8');
}

/** Size of an item (a map of top-level attributes) in bytes. */
export function itemBytes(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8') + attributeValueBytes(value);
  }
  return size;
}

export const readUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 4096));
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
