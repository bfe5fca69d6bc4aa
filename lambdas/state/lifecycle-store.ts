/**
 * The club's lifecycle documents (docs/lifecycle.md): what the lifecycle evaluation keeps between
 * evaluations, in two items, each stored whole (`v` the version, `d` the document as gzipped JSON)
 * and written with a version condition: the base (`CLUB#<id>` / `LIFECYCLE`), rewritten every
 * few hours, and the delta (`LIFECYCLE#DELTA`), what changed since, rewritten when it changes.
 * The documents are opaque here: the evaluation owns their shape (engine/lifecycle/lifecycle-keep.ts).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { StoreError } from './store-errors';

export const LIFECYCLE_SK = 'LIFECYCLE';

/** Which of the club's two lifecycle items. */
export type LifecyclePart = 'base' | 'delta';

export const lifecycleSk = (part: LifecyclePart): string =>
  part === 'base' ? LIFECYCLE_SK : `${LIFECYCLE_SK}#DELTA`;
/** The largest gzipped document stored: well inside DynamoDB's 400 KB item. */
export const MAX_LIFECYCLE_BYTES = 350 * 1024;

export interface StoredLifecycle {
  /** The document as it was put (a JSON value); undefined when `unreadable`. */
  readonly doc: unknown;
  /** 1 after the first put, +1 each put. */
  readonly version: number;
  /**
   * The stored bytes are not gzipped JSON (a release that wrote another format, a damaged item):
   * the version is there for the put that replaces it.
   */
  readonly unreadable?: true;
}

export interface LifecycleStore {
  /** The club's lifecycle document (`part`: base by default), undefined when none was put. Strongly consistent. */
  getLifecycle(clubId: string, part?: LifecyclePart): Promise<StoredLifecycle | undefined>;
  /**
   * Puts the document if the stored version is still `expectedVersion` (0: none stored); returns
   * the new version. LifecycleConflictError when another writer put one in between.
   */
  putLifecycle(clubId: string, doc: unknown, expectedVersion: number, part?: LifecyclePart): Promise<number>;
}

/** A lifecycle put lost its version condition: re-read, never overwrite. */
export class LifecycleConflictError extends Error {
  override readonly name = 'LifecycleConflictError';
  constructor(
    readonly clubId: string,
    readonly expectedVersion: number,
  ) {
    super(
      `lifecycle document of ${clubId} is no longer at version ${expectedVersion}: another writer put one`,
    );
  }
}

export function encodeLifecycle(clubId: string, doc: unknown, expectedVersion: number): Uint8Array {
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
    throw new StoreError(`lifecycle expectedVersion must be a whole number >= 0, got ${expectedVersion}`);
  const json = JSON.stringify(doc);
  if (json === undefined) throw new StoreError(`lifecycle document of ${clubId} is not a JSON value`);
  const bytes = gzipSync(json, { level: 6 });
  if (bytes.length > MAX_LIFECYCLE_BYTES)
    throw new StoreError(
      `lifecycle document of ${clubId} is ${bytes.length} bytes gzipped, over ${MAX_LIFECYCLE_BYTES}`,
    );
  return bytes;
}

export function decodeLifecycle(clubId: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(gunzipSync(bytes).toString('utf8'));
  } catch (cause) {
    throw new StoreError(`lifecycle document of ${clubId} is not readable gzipped JSON`, { cause });
  }
}

/** A stored document read back: decoded, or `unreadable` with its version (never a throw). */
export function storedLifecycle(clubId: string, bytes: Uint8Array, version: number): StoredLifecycle {
  try {
    return { doc: decodeLifecycle(clubId, bytes), version };
  } catch {
    return { doc: undefined, version, unreadable: true };
  }
}
