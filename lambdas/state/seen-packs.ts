/**
 * Packs of the time-ordered seen set (docs/state.md, "Packed seen entries"). A `putSeenAt` call
 * files its entries of one UTC hour in one item (a few when they pass PACK_BYTES) instead of an item
 * each: a poll that saw two visits writes one unit, a settlement run of 2,000 disbursements about 40.
 *
 * A pack's sort key is `<maxAt>~<hash>`: its latest entry's `at`, then `~` where an entry item
 * (`<at>#<fingerprint>`, the layout before packs, still read) has `#`, so the two never collide.
 * `p` holds the entries as JSON `[offsetMs, fingerprint, group?, value?, memo?, silent?]` (offset
 * from the hour's start; `null` for an absent group, value or memo before a later element; `1` in
 * sixth place for an entry whose events were published), `w` when it was written: the
 * latest write wins when two items hold the same `<at>#<fingerprint>` (a re-put that changed its
 * group, value or memo). The hash is of `p`: the same entries put again land on the same item.
 *
 * Every entry of a pack sits in the hour of its `maxAt`, at or before it. So a Query of
 * `[fromAt, toAt)` finds every pack holding one of its entries with `sk BETWEEN fromAt AND end`,
 * `end` being `toAt` when it starts an hour, else the end of `toAt`'s hour; the entries outside
 * the range are dropped on read.
 */
import { createHash } from 'node:crypto';
import { HOUR_MS } from '../common/time-units';
import { SEEN_AT_LENGTH, seenAtKey, seenAtMemo, seenAtTag } from './keys';
import type { SeenAt, SeenEntry } from './store';
import { StoreError } from './store-errors';

/** The most entry bytes (`p`) one pack holds: a write of at most 32 units, 12 items a 400 KB limit. */
export const PACK_BYTES = 32 * 1024;
const PACK_MARK = '~';

/** One pack item's sort key and entries, as `putSeenAt` writes it. */
export interface SeenPack {
  readonly sk: string;
  readonly p: string;
}

type PackedEntry = [number, string, ...(string | number | null)[]];

/** The sixth element of a packed entry whose events were published (readers before it ignore it). */
const ANNOUNCED = 1;

function hourStartMs(at: string): number {
  return Date.parse(`${at.slice(0, 13)}:00:00.000Z`);
}

function packedEntry(entry: SeenAt, hourMs: number): PackedEntry {
  const tag = seenAtTag(entry);
  const memo = seenAtMemo(entry);
  const row: PackedEntry = [Date.parse(entry.at) - hourMs, entry.fingerprint];
  if (tag || memo !== undefined || entry.announced) row.push(tag?.group ?? null, tag?.value ?? null);
  if (memo !== undefined || entry.announced) row.push(memo ?? null);
  if (entry.announced) row.push(ANNOUNCED);
  return row;
}

function packOf(rows: readonly string[], maxAt: string): SeenPack {
  const p = `[${rows.join(',')}]`;
  const hash = createHash('sha256').update(p).digest('base64url').slice(0, 16);
  return { sk: `${maxAt}${PACK_MARK}${hash}`, p };
}

/**
 * The packs `entries` are written as: checked (every `at`, fingerprint, tag and memo, as an entry
 * item's), one entry per `<at>#<fingerprint>` (the last given wins), grouped by UTC hour, in key
 * order, cut at PACK_BYTES.
 */
export function packSeenAt(pk: string, entries: readonly SeenAt[]): SeenPack[] {
  const byKey = new Map<string, SeenAt>();
  for (const entry of entries) byKey.set(seenAtKey(pk, entry.at, entry.fingerprint).sk, entry);
  const keys = [...byKey.keys()].sort();
  const packs: SeenPack[] = [];
  let rows: string[] = [];
  let bytes = 0;
  let hour = '';
  let maxAt = '';
  for (const key of keys) {
    const entry = byKey.get(key) as SeenAt;
    const entryHour = entry.at.slice(0, 13);
    const row = JSON.stringify(packedEntry(entry, hourStartMs(entry.at)));
    const rowBytes = Buffer.byteLength(row, 'utf8') + 1;
    if (rows.length > 0 && (entryHour !== hour || bytes + rowBytes > PACK_BYTES)) {
      packs.push(packOf(rows, maxAt));
      rows = [];
      bytes = 0;
    }
    rows.push(row);
    bytes += rowBytes;
    hour = entryHour;
    maxAt = entry.at;
  }
  if (rows.length > 0) packs.push(packOf(rows, maxAt));
  return packs;
}

/** Whether a time-ordered seen item's sort key is a pack's. */
export function isPackSk(sk: string): boolean {
  return sk.length > SEEN_AT_LENGTH && sk[SEEN_AT_LENGTH] === PACK_MARK;
}

const isOptionalString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** The entries of a stored pack; a pack this release cannot read is a StoreError naming it. */
export function unpackSeenAt(sk: string, p: unknown): SeenEntry[] {
  let rows: unknown;
  try {
    rows = typeof p === 'string' ? JSON.parse(p) : undefined;
  } catch (err) {
    throw new StoreError(`seen pack ${sk}: its entries are not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new StoreError(`seen pack ${sk}: its entries are not a list`);
  const hourMs = hourStartMs(sk);
  return rows.map((row: unknown) => {
    if (!Array.isArray(row) || typeof row[0] !== 'number' || typeof row[1] !== 'string') {
      throw new StoreError(`seen pack ${sk}: an entry is not [offsetMs, fingerprint, ...]`);
    }
    const [offset, fingerprint, group, value, memo, announced] = row as unknown[];
    const markOk = announced === undefined || announced === ANNOUNCED;
    if (![group, value, memo].every(isOptionalString) || !Number.isInteger(offset) || !markOk) {
      throw new StoreError(`seen pack ${sk}: an entry has a field of the wrong type`);
    }
    // A pack holds one UTC hour: an offset outside it is not one this code wrote.
    if ((offset as number) < 0 || (offset as number) >= HOUR_MS) {
      throw new StoreError(`seen pack ${sk}: an entry's offset ${offset} ms is outside the pack's hour`);
    }
    return {
      fingerprint: fingerprint as string,
      at: new Date(hourMs + (offset as number)).toISOString(),
      ...(typeof group === 'string' ? { group, value: typeof value === 'string' ? value : '' } : {}),
      ...(typeof memo === 'string' ? { memo } : {}),
      ...(announced === ANNOUNCED ? { announced: true as const } : {}),
    };
  });
}

/**
 * The upper sort key of a Query for entries before `toAt`: `toAt` if it starts an hour, else its
 * hour's end.
 */
export function seenAtQueryEnd(toAt: string): string {
  const hourMs = hourStartMs(toAt);
  return Date.parse(toAt) === hourMs ? toAt : new Date(hourMs + HOUR_MS).toISOString();
}
