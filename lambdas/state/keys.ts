/**
 * Keys of the state table (one table, string `pk`/`sk`), built and validated in one place so that
 * both adapters reject the same input and no two kinds of item can collide. Layout: docs/state.md.
 */
import { createHash } from 'node:crypto';
import { hasLoneSurrogate } from '../common/bounded-value';
import { isSourceName, type SnapshotKind, type SourceName, StoreError } from './store';

/** DynamoDB limits on key attribute sizes, in UTF-8 bytes. */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Club ids become part of every partition key; a `#` in one could forge another club's keys. */
export function assertClubId(clubId: string): void {
  if (typeof clubId !== 'string' || clubId.length === 0)
    throw new StoreError('clubId must be a non-empty string');
  if (clubId.includes('#')) throw new StoreError(`clubId must not contain '#': ${JSON.stringify(clubId)}`);
  if (Buffer.byteLength(clubId, 'utf8') > 512) throw new StoreError('clubId is longer than 512 bytes');
}

export function assertSourceName(source: string): asserts source is SourceName {
  if (!isSourceName(source)) throw new StoreError(`unknown source: ${JSON.stringify(source)}`);
}

function assertSortKey(what: string, sk: string): void {
  if (typeof sk !== 'string' || sk.length === 0) throw new StoreError(`${what} must be a non-empty string`);
  if (Buffer.byteLength(sk, 'utf8') > MAX_SORT_KEY_BYTES) {
    throw new StoreError(`${what} is longer than ${MAX_SORT_KEY_BYTES} bytes`);
  }
}

function checked(pk: string, sk: string, what: string): ItemKey {
  if (Buffer.byteLength(pk, 'utf8') > MAX_PARTITION_KEY_BYTES) {
    throw new StoreError(`partition key is longer than ${MAX_PARTITION_KEY_BYTES} bytes`);
  }
  assertSortKey(what, sk);
  return { pk, sk };
}

export function clubPk(clubId: string): string {
  assertClubId(clubId);
  return `CLUB#${clubId}`;
}

export const CURSOR_SK_PREFIX = 'CURSOR#';
export const CONFIG_SK = 'CONFIG';

export function cursorKey(clubId: string, source: SourceName): ItemKey {
  assertSourceName(source);
  return checked(clubPk(clubId), `${CURSOR_SK_PREFIX}${source}`, 'cursor sort key');
}

export function leaseKey(clubId: string, source: string): ItemKey {
  if (typeof source !== 'string' || source.length === 0) {
    throw new StoreError('lease source must be a non-empty string');
  }
  return checked(clubPk(clubId), `LEASE#${source}`, 'lease sort key');
}

export const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

export function quotaKey(clubId: string, month: string): ItemKey {
  if (!MONTH_PATTERN.test(month)) throw new StoreError(`month must be yyyy-mm: ${JSON.stringify(month)}`);
  return checked(clubPk(clubId), `QUOTA#${month}`, 'quota sort key');
}

export function snapshotPk(clubId: string, kind: SnapshotKind): string {
  if (kind !== 'MEMBER' && kind !== 'PROSPECT')
    throw new StoreError(`unknown snapshot kind: ${String(kind)}`);
  return `${clubPk(clubId)}#${kind}`;
}

/** Snapshot sort keys that are not the record's number as it is start with this (see snapshotSortKey). */
export const ENCODED_ID_PREFIX = '~h~';
/** Longest record number kept as its own sort key (UTF-8 bytes); a longer one is encoded. */
const PLAIN_ID_BYTES = 256;
// C0 and C1 controls, DEL: legal in a key, but unreadable in the console and in `status`.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The sort key of a record number: the number itself when it is plain (non-empty, at most 256 bytes,
 * no control character, no lone surrogate, not starting with ENCODED_ID_PREFIX), which is every
 * number a real API uses and what earlier releases stored; otherwise ENCODED_ID_PREFIX and a SHA-256
 * of the number's JSON text (lossless for lone surrogates). Any string the API sends gets a valid,
 * collision-free key: an odd record number is never a reason for a store write to fail.
 */
export function snapshotSortKey(id: string): string {
  if (typeof id !== 'string') throw new StoreError('snapshot id must be a string');
  const plain =
    id.length > 0 &&
    id.length <= PLAIN_ID_BYTES &&
    Buffer.byteLength(id, 'utf8') <= PLAIN_ID_BYTES &&
    !id.startsWith(ENCODED_ID_PREFIX) &&
    !CONTROL.test(id) &&
    !hasLoneSurrogate(id);
  if (plain) return id;
  return `${ENCODED_ID_PREFIX}${createHash('sha256').update(JSON.stringify(id)).digest('base64url')}`;
}

export function snapshotKey(pk: string, id: string): ItemKey {
  return checked(pk, snapshotSortKey(id), 'snapshot id');
}

export function seenPk(clubId: string, source: SourceName): string {
  assertSourceName(source);
  return `${clubPk(clubId)}#SEEN#${source}`;
}

export function seenKey(pk: string, fingerprint: string): ItemKey {
  return checked(pk, fingerprint, 'fingerprint');
}

/** The source's seen digest: one item in the club's partition (docs/state.md). */
export function seenDigestKey(clubId: string, source: SourceName): ItemKey {
  assertSourceName(source);
  return checked(clubPk(clubId), `SEENDIGEST#${source}`, 'seen digest sort key');
}

/** The largest seen digest stored (a digest holds a few hundred buckets at most: ~13 bytes each). */
export const MAX_SEEN_DIGEST_BYTES = 16 * 1024;

export function assertSeenDigest(digest: Uint8Array): Uint8Array {
  if (!(digest instanceof Uint8Array) || digest.length === 0)
    throw new StoreError('a seen digest is a non-empty byte array');
  if (digest.length > MAX_SEEN_DIGEST_BYTES)
    throw new StoreError(`seen digest is ${digest.length} bytes, over ${MAX_SEEN_DIGEST_BYTES}`);
  return digest;
}

/**
 * A record instant in the one format whose string order is its time order: UTC, milliseconds, `Z`
 * (what `Date.prototype.toISOString` gives for years 0000-9999). Anything else would sort wrongly.
 */
export const SEEN_AT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Length of an `at` in SEEN_AT_PATTERN, e.g. 2026-11-22T10:00:00.000Z. */
export const SEEN_AT_LENGTH = 24;

export function assertSeenAt(what: string, at: string): void {
  if (typeof at !== 'string' || !SEEN_AT_PATTERN.test(at)) {
    throw new StoreError(
      `${what} must be UTC ISO with milliseconds and Z (yyyy-mm-ddThh:mm:ss.sssZ): ` +
        JSON.stringify(String(at).slice(0, 40)),
    );
  }
}

/** The time-ordered seen set of a club's source: one partition, sorted by the record's time. */
export function seenAtPk(clubId: string, source: SourceName): string {
  assertSourceName(source);
  return `${clubPk(clubId)}#SEENT#${source}`;
}

/** `<at>#<fingerprint>`: `at` has a fixed length, so the fingerprint is whatever follows it. */
export function seenAtKey(pk: string, at: string, fingerprint: string): ItemKey {
  assertSeenAt('seen entry `at`', at);
  if (typeof fingerprint !== 'string' || fingerprint.length === 0) {
    throw new StoreError('fingerprint must be a non-empty string');
  }
  return checked(pk, `${at}#${fingerprint}`, 'time-ordered seen sort key (at#fingerprint)');
}

export const MAX_SEEN_GROUP_BYTES = 64;
export const MAX_SEEN_VALUE_BYTES = 256;

/**
 * The optional group and value of a time-ordered seen entry: both or neither, non-empty group,
 * within their byte limits (small items are the point of the layout). Returns them, or undefined.
 */
export function seenAtTag(entry: {
  readonly group?: string;
  readonly value?: string;
}): { group: string; value: string } | undefined {
  const { group, value } = entry;
  if (group === undefined && value === undefined) return undefined;
  if (typeof group !== 'string' || group.length === 0 || typeof value !== 'string') {
    throw new StoreError('a seen entry has both a non-empty string `group` and a string `value`, or neither');
  }
  if (Buffer.byteLength(group, 'utf8') > MAX_SEEN_GROUP_BYTES) {
    throw new StoreError(`seen entry group is longer than ${MAX_SEEN_GROUP_BYTES} bytes`);
  }
  if (Buffer.byteLength(value, 'utf8') > MAX_SEEN_VALUE_BYTES) {
    throw new StoreError(`seen entry value is longer than ${MAX_SEEN_VALUE_BYTES} bytes`);
  }
  return { group, value };
}

/** A seen entry's memo, checked: a string of at most MAX_SEEN_VALUE_BYTES, or none. */
export function seenAtMemo(entry: { readonly memo?: string }): string | undefined {
  const { memo } = entry;
  if (memo === undefined) return undefined;
  if (typeof memo !== 'string') throw new StoreError('a seen entry memo is a string');
  if (Buffer.byteLength(memo, 'utf8') > MAX_SEEN_VALUE_BYTES) {
    throw new StoreError(`seen entry memo is longer than ${MAX_SEEN_VALUE_BYTES} bytes`);
  }
  return memo;
}

/** The fingerprint part of a time-ordered seen sort key. */
export function fingerprintOfSeenAtSk(sk: string): string {
  return sk.slice(SEEN_AT_LENGTH + 1);
}

/** The `at` part of a time-ordered seen sort key. */
export function atOfSeenAtSk(sk: string): string {
  return sk.slice(0, SEEN_AT_LENGTH);
}

export function quarantinePk(clubId: string, source: SourceName): string {
  assertSourceName(source);
  return `${clubPk(clubId)}#QUARANTINE#${source}`;
}

/** `<at>#<key>`: `at` is UTC ISO, so sort order is time order. */
export function quarantineKey(pk: string, at: string, key: string): ItemKey {
  if (typeof at !== 'string' || at.length === 0) throw new StoreError('quarantined record needs `at`');
  if (typeof key !== 'string') throw new StoreError('quarantined record needs a string `key`');
  return checked(pk, `${at}#${key}`, 'quarantine sort key (at#key)');
}

/** Epoch seconds for the TTL attribute; DynamoDB TTL wants an integer Number. */
export function assertEpochSeconds(what: string, value: number): number {
  if (!Number.isFinite(value)) throw new StoreError(`${what} must be a finite number of epoch seconds`);
  return Math.floor(value);
}

/** An item with no TTL, or one still before it: read filters on this (DynamoDB's TTL sweep lags by days). */
export function isUnexpired(expiresAt: unknown, nowSec: number): boolean {
  return typeof expiresAt !== 'number' || expiresAt > nowSec;
}
