/**
 * The club's lifecycle documents (docs/lifecycle.md, "What is kept"): what the lifecycle evaluation
 * keeps between evaluations, one document per part, each stored whole as gzipped JSON and written
 * with a version condition: the base (`CLUB#<id>` / `LIFECYCLE`), rewritten every few hours, the
 * delta (`LIFECYCLE#DELTA`), what changed since, and the visit history a first evaluation is
 * reading (`LIFECYCLE#HISTORY`, while its read spans several polls). The documents are opaque
 * here: the evaluation owns their shape (lifecycle/lifecycle-keep.ts).
 *
 * A club of any size: a document whose gzipped bytes pass one item's share (MAX_LIFECYCLE_ITEM_BYTES,
 * well inside DynamoDB's 400 KB) is split over several items. The head item (the part's key) holds
 * the version, the first piece, the number of pieces and a write id; the other pieces are items of
 * their own (`<key>#<write id>#<i>`), written before the head: no write touches the pieces of
 * another, so one that stops half way, or loses its version condition, leaves the stored document
 * whole. The head's put returns the head it replaced, whose pieces are then deleted (a write that
 * lost its condition deletes its own). A piece missing or damaged makes the document unreadable,
 * never wrong.
 *
 * Writing streams: the JSON is made a few KB at a time and gzipped as it comes (gzipLifecycle), so a
 * club of 50,000 members never holds its whole document as one string (tens of MB) next to the
 * objects it is made of.
 *
 * Reading is bounded: a document inflates to at most MAX_LIFECYCLE_JSON_BYTES (a few KB of gzip can
 * inflate to hundreds of MB); one over it is unreadable, as a damaged one is, and the writer refuses
 * to write one: what is written can be read.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
import { logger } from '../common/logger';
import type { ItemTable } from './item-table';
import { clubPk } from './keys';
import { StoreError } from './store-errors';

export const LIFECYCLE_SK = 'LIFECYCLE';

/** Which of the club's lifecycle documents. */
export type LifecyclePart = 'base' | 'delta' | 'history';

export const lifecycleSk = (part: LifecyclePart): string =>
  part === 'base' ? LIFECYCLE_SK : `${LIFECYCLE_SK}#${part.toUpperCase()}`;

/** The sort key of piece `index` (1, 2, ...) of the write `writeId` of a document. */
export const lifecyclePieceSk = (part: LifecyclePart, writeId: string, index: number): string =>
  `${lifecycleSk(part)}#${writeId}#${index}`;

/** The most gzipped bytes one item holds: well inside DynamoDB's 400 KB item with its keys. */
export const MAX_LIFECYCLE_ITEM_BYTES = 350 * 1024;
/**
 * The most JSON bytes a document inflates to (a club of about 150,000 subjects): a larger one is
 * neither written nor read, so a damaged or hostile item never exhausts the poll function's memory.
 */
export const MAX_LIFECYCLE_JSON_BYTES = 32 * 1024 * 1024;

export interface StoredLifecycle {
  /** The document as it was put (a JSON value); undefined when `unreadable`. */
  readonly doc: unknown;
  /** 1 after the first put, +1 each put. */
  readonly version: number;
  /**
   * The stored bytes are not gzipped JSON within the bound (a release that wrote another format, a
   * damaged item, a missing piece): the version is there for the put that replaces it.
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

/** A document as stored: the head's attributes and the pieces after the first. */
export interface LifecycleItems {
  /** `v` the version, `d` the first piece; with pieces, `n` their number and `w` the write id. */
  readonly head: { readonly v: number; readonly d: Uint8Array; readonly n?: number; readonly w?: string };
  /** Pieces 1.. (sort key and attributes), written before the head. */
  readonly pieces: readonly {
    readonly sk: string;
    readonly v: number;
    readonly w: string;
    readonly d: Uint8Array;
  }[];
}

/** The document as gzipped JSON, in one go (StoreError: not JSON, or over MAX_LIFECYCLE_JSON_BYTES). */
export function encodeLifecycle(clubId: string, doc: unknown, part: LifecyclePart = 'base'): Buffer {
  const json = JSON.stringify(doc);
  if (json === undefined) throw new StoreError(`lifecycle document of ${clubId} is not a JSON value`);
  const size = Buffer.byteLength(json);
  if (size > MAX_LIFECYCLE_JSON_BYTES) throw tooLarge(clubId, part, size);
  return gzipSync(json, { level: 6 });
}

const tooLarge = (clubId: string, part: LifecyclePart, size: number) =>
  new StoreError(
    `lifecycle ${part} of ${clubId} is over ${size} bytes of JSON, over ${MAX_LIFECYCLE_JSON_BYTES}`,
  );

/** Containers with more entries than this are written entry by entry. */
const WHOLE_ENTRIES = 64;
/** How deep a small container is searched for a large one (a document's `view.members`: 2). */
const LARGE_DEPTH = 2;

/**
 * Whether `value` is an object or array written entry by entry: over WHOLE_ENTRIES entries, or one
 * that holds such a container within LARGE_DEPTH levels (a document of a few keys whose `members`
 * holds 50,000 entries is written entry by entry, not stringified whole).
 */
function large(value: unknown, depth = LARGE_DEPTH): value is object {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    if (value.length > WHOLE_ENTRIES) return true;
    return depth > 0 && value.some((item) => large(item, depth - 1));
  }
  if ('toJSON' in value) return false;
  let n = 0;
  for (const _key in value) if (++n > WHOLE_ENTRIES) return true;
  if (depth === 0) return false;
  for (const key in value) if (large((value as Record<string, unknown>)[key], depth - 1)) return true;
  return false;
}

/**
 * The JSON text of `value`, as JSON.stringify writes it, in pieces: large objects and arrays entry
 * by entry, everything else whole (each entry stringified once).
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (!large(value)) {
    const whole = JSON.stringify(value);
    if (whole !== undefined) yield whole;
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      if (large(item)) yield* jsonPieces(item);
      else yield JSON.stringify(item) ?? 'null';
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    const big = large(item);
    const whole = big ? undefined : JSON.stringify(item);
    if (whole === undefined && !big) continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (whole === undefined) yield* jsonPieces(item);
    else yield whole;
  }
  yield '}';
}

/** The bytes gzipped at a time when writing: a few dozen KB of JSON. */
const WRITE_CHUNK = 64 * 1024;

/**
 * The document as gzipped JSON, made and gzipped a few KB at a time (StoreError: not JSON, or over
 * MAX_LIFECYCLE_JSON_BYTES).
 */
export async function gzipLifecycle(
  clubId: string,
  doc: unknown,
  part: LifecyclePart = 'base',
): Promise<Buffer> {
  const pieces = jsonPieces(doc);
  const first = pieces.next();
  if (first.done) throw new StoreError(`lifecycle document of ${clubId} is not a JSON value`);
  let size = Buffer.byteLength(first.value);
  if (size > MAX_LIFECYCLE_JSON_BYTES) throw tooLarge(clubId, part, MAX_LIFECYCLE_JSON_BYTES);
  const gzip = createGzip({ level: 6 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(gzip, 'end');
  let pending = first.value;
  for (const piece of pieces) {
    size += Buffer.byteLength(piece);
    if (size > MAX_LIFECYCLE_JSON_BYTES) {
      gzip.destroy();
      throw tooLarge(clubId, part, MAX_LIFECYCLE_JSON_BYTES);
    }
    pending += piece;
    if (pending.length >= WRITE_CHUNK) {
      if (!gzip.write(pending)) await once(gzip, 'drain');
      pending = '';
    }
  }
  gzip.end(pending);
  await ended;
  return Buffer.concat(out);
}

/** The items a document's gzipped bytes are stored as at `expectedVersion + 1`. */
export function lifecycleItems(
  clubId: string,
  part: LifecyclePart,
  bytes: Uint8Array,
  expectedVersion: number,
): LifecycleItems {
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
    throw new StoreError(
      `lifecycle expectedVersion of ${clubId} must be a whole number >= 0, got ${expectedVersion}`,
    );
  const v = expectedVersion + 1;
  if (bytes.length <= MAX_LIFECYCLE_ITEM_BYTES) return { head: { v, d: bytes }, pieces: [] };
  const n = Math.ceil(bytes.length / MAX_LIFECYCLE_ITEM_BYTES);
  const w = randomBytes(6).toString('base64url');
  const piece = (i: number) =>
    bytes.subarray(i * MAX_LIFECYCLE_ITEM_BYTES, (i + 1) * MAX_LIFECYCLE_ITEM_BYTES);
  const pieces = Array.from({ length: n - 1 }, (_, k) => ({
    sk: lifecyclePieceSk(part, w, k + 1),
    v,
    w,
    d: piece(k + 1),
  }));
  return { head: { v, d: piece(0), n, w }, pieces };
}

/** The sort keys of the pieces a head names (none for a document in one item, or no head). */
export function pieceKeys(
  part: LifecyclePart,
  head: { readonly n?: unknown; readonly w?: unknown } | undefined,
): string[] {
  const n =
    typeof head?.n === 'number' && Number.isInteger(head.n) && head.n > 1 ? Math.min(head.n, 1000) : 1;
  if (n === 1 || typeof head?.w !== 'string') return [];
  return Array.from({ length: n - 1 }, (_, k) => lifecyclePieceSk(part, head.w as string, k + 1));
}

/** The document of gzipped bytes, inflated to at most MAX_LIFECYCLE_JSON_BYTES. */
export function decodeLifecycle(clubId: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(gunzipSync(bytes, { maxOutputLength: MAX_LIFECYCLE_JSON_BYTES }).toString('utf8'));
  } catch (cause) {
    throw new StoreError(
      `lifecycle document of ${clubId} is not gzipped JSON of at most ${MAX_LIFECYCLE_JSON_BYTES} bytes`,
      { cause },
    );
  }
}

const bytesOf = (v: unknown): Uint8Array | undefined => (v instanceof Uint8Array ? v : undefined);

/**
 * A stored document read back from its head and the pieces found (by sort key): decoded, or
 * `unreadable` with its version (never a throw): a piece missing or of another write, bytes that do
 * not inflate to JSON within the bound.
 */
export function storedLifecycle(
  clubId: string,
  part: LifecyclePart,
  head: { readonly v: number; readonly d?: unknown; readonly n?: unknown; readonly w?: unknown },
  pieces: ReadonlyMap<string, { readonly d?: unknown; readonly w?: unknown }> = new Map(),
): StoredLifecycle {
  const unreadable = { doc: undefined, version: head.v, unreadable: true } as const;
  const first = bytesOf(head.d);
  if (!first) return unreadable;
  const parts = [first];
  const n = typeof head.n === 'number' ? head.n : 1;
  const keys = pieceKeys(part, head);
  if (keys.length !== Math.max(0, n - 1)) return unreadable;
  for (const sk of keys) {
    const piece = pieces.get(sk);
    const d = bytesOf(piece?.d);
    if (!d || piece?.w !== head.w) return unreadable;
    parts.push(d);
  }
  try {
    return {
      doc: decodeLifecycle(clubId, parts.length === 1 ? first : Buffer.concat(parts)),
      version: head.v,
    };
  } catch {
    return unreadable;
  }
}

/**
 * The store on the item table (item-table.ts), laid out as above: the pieces
 * of a large document written first (batchWrite), then its head with a version condition (one
 * conditional put, which returns the head it replaced); the replaced head's pieces deleted after,
 * or, when the condition did not hold, the write's own. Read: the head (strongly consistent), then
 * its pieces in one batch.
 */
export class LifecycleItemStore implements LifecycleStore {
  constructor(private readonly table: ItemTable) {}

  async getLifecycle(clubId: string, part: LifecyclePart = 'base'): Promise<StoredLifecycle | undefined> {
    const pk = clubPk(clubId);
    const item = await this.table.get({ pk, sk: lifecycleSk(part) }, { consistent: true });
    if (!item) return undefined;
    if (typeof item.v !== 'number' || item.d === undefined)
      throw new StoreError(`lifecycle ${part} item of ${clubId} has no document or version`);
    const head: { v: number; d?: unknown; n?: unknown; w?: unknown } = { ...item, v: item.v };
    const keys = pieceKeys(part, head).map((sk) => ({ pk, sk }));
    const found = keys.length > 0 ? await this.table.batchGet(keys, { consistent: true }) : [];
    return storedLifecycle(clubId, part, head, new Map(found.map((p) => [String(p.sk), p])));
  }

  async putLifecycle(
    clubId: string,
    doc: unknown,
    expectedVersion: number,
    part: LifecyclePart = 'base',
  ): Promise<number> {
    const { head, pieces } = lifecycleItems(
      clubId,
      part,
      await gzipLifecycle(clubId, doc, part),
      expectedVersion,
    );
    const pk = clubPk(clubId);
    if (pieces.length > 0) await this.table.batchWrite(pieces.map((p) => ({ pk, ...p })));
    const put = await this.table.put(
      { pk, sk: lifecycleSk(part), ...head },
      expectedVersion === 0 ? { absent: true } : { equals: { name: 'v', value: expectedVersion } },
    );
    if (!put.applied) {
      await this.deletePieces(
        clubId,
        pieces.map((p) => p.sk),
      );
      throw new LifecycleConflictError(clubId, expectedVersion);
    }
    await this.deletePieces(clubId, pieceKeys(part, put.old));
    return head.v;
  }

  /** Deletes pieces no head names; one that stays is only unused bytes (logged, never an error). */
  private async deletePieces(clubId: string, sks: readonly string[]): Promise<void> {
    if (sks.length === 0) return;
    const pk = clubPk(clubId);
    try {
      await this.table.batchDelete(sks.map((sk) => ({ pk, sk })));
    } catch (err) {
      logger.warn('lifecycle pieces of a replaced document not deleted: unused bytes stay', { clubId, err });
    }
  }
}
