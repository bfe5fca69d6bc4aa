/**
 * What a value looks like after a trip through the store, shared by both adapters so that
 * MemoryStateStore behaves exactly like DynamoDbStateStore:
 *
 * - `toStorable`: JSON-like data only (string, finite safe number, boolean, null, arrays, plain
 *   objects); `undefined` properties and array holes are dropped, as the DynamoDB marshaller does
 *   with `removeUndefinedValues`; anything else is a StoreError naming the path.
 * - quarantined `raw` values are kept as JSON text, capped in size, because a record that failed
 *   validation can be anything and must never make the quarantine write itself fail.
 */
import type { Cursor, QuarantinedRecord } from './store';
import { StoreError } from './store';

export function toStorable(value: unknown, path: string): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
        throw new StoreError(
          `${path}: a non-finite or unsafe number cannot be stored exactly (carry it as a string)`,
        );
      }
      return value;
    case 'object': {
      if (Array.isArray(value)) {
        return value.filter((v) => v !== undefined).map((v, i) => toStorable(v, `${path}[${i}]`));
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new StoreError(`${path}: only plain objects can be stored, not ${proto?.constructor?.name}`);
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined) out[k] = toStorable(v, `${path}.${k}`);
      }
      return out;
    }
    default:
      throw new StoreError(`${path}: a ${typeof value} cannot be stored`);
  }
}

/** A cursor as it will be stored: validated, undefined fields dropped, a deep copy. */
export function storableCursor(cursor: Cursor, version: number): Cursor {
  if (!Number.isSafeInteger(cursor.version) || cursor.version < 0) {
    throw new StoreError(`cursor version must be a non-negative integer, got ${cursor.version}`);
  }
  const copy = toStorable({ ...cursor, version }, 'cursor') as Cursor;
  copy.health ??= { consecutiveFailures: 0 };
  copy.baselineDone = copy.baselineDone === true;
  return copy;
}

/** A deep copy of a stored value for a reader (so callers can never mutate what is stored). */
export function copyOf<T>(value: T): T {
  return structuredClone(value);
}

/** Longest quarantined raw JSON text kept; longer ones are replaced by a truncated preview. */
export const MAX_QUARANTINE_RAW_CHARS = 64 * 1024;
export const MAX_QUARANTINE_REASON_CHARS = 1000;

export interface TruncatedRaw {
  truncated: true;
  originalChars: number;
  preview: string;
}

/** The JSON text stored for `raw` (undefined stays undefined). Never throws. */
export function encodeQuarantinedRaw(raw: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(raw, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    text = JSON.stringify({ unserializable: true, type: typeof raw, error: message });
  }
  if (text === undefined) return undefined;
  if (text.length <= MAX_QUARANTINE_RAW_CHARS) return text;
  const truncated: TruncatedRaw = {
    truncated: true,
    originalChars: text.length,
    preview: text.slice(0, MAX_QUARANTINE_RAW_CHARS),
  };
  return JSON.stringify(truncated);
}

export function decodeQuarantinedRaw(text: string | undefined): unknown {
  return text === undefined ? undefined : JSON.parse(text);
}

/** A quarantined record as a reader will get it back. */
export function storableQuarantined(record: QuarantinedRecord): QuarantinedRecord {
  return {
    key: record.key,
    reason: String(record.reason).slice(0, MAX_QUARANTINE_REASON_CHARS),
    raw: decodeQuarantinedRaw(encodeQuarantinedRaw(record.raw)),
    at: record.at,
  };
}
