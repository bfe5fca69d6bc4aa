/**
 * The lifecycle documents' layout (lambdas/state/lifecycle-items.ts): a document of any size is
 * split over items of at most 350 KB and read back whole; a piece missing or of another write makes
 * it unreadable, never wrong; a write that stops half way leaves the stored document whole; and a
 * document never inflates past its bound (a few hundred KB of gzip can hold hundreds of MB).
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../../lambdas/state';
import { clubPk } from '../../../lambdas/state/keys';
import {
  encodeLifecycle,
  gzipLifecycle,
  jsonPieces,
  LifecycleConflictError,
  LifecycleItemStore,
  lifecycleItems,
  MAX_LIFECYCLE_ITEM_BYTES,
  MAX_LIFECYCLE_JSON_BYTES,
  storedLifecycle,
} from '../../../lambdas/state/lifecycle-items';
import { MemoryItemTable } from '../../../lambdas/state/memory/memory-item-table';

const CLUB = 'club-1';
/** A document whose gzip is about `kb` KB: random text does not compress. */
const noisy = (kb: number) => ({ noise: randomBytes(kb * 1024).toString('base64') });
/** A lifecycle store on a memory table, and the number of items in the club's partition (heads and pieces). */
function memoryLifecycle() {
  const table = new MemoryItemTable();
  const store = new LifecycleItemStore(table);
  const itemCount = async () => (await table.query({ pk: clubPk(CLUB) }, { consistent: true })).length;
  return { store, itemCount };
}

describe('lifecycle documents', () => {
  it('reads an item that inflates past the bound as unreadable, without inflating it whole', () => {
    // Prepare: a valid JSON string a byte over the bound, gzipped into one item (a zip bomb).
    const json = Buffer.concat([
      Buffer.from('"'),
      Buffer.alloc(MAX_LIFECYCLE_JSON_BYTES - 1, 'a'),
      Buffer.from('"'),
    ]);
    const bomb = gzipSync(json, { level: 1 });
    // Act
    const read = storedLifecycle(CLUB, 'base', { v: 3, d: bomb });
    // Assess
    expect(bomb.length).toBeLessThan(MAX_LIFECYCLE_ITEM_BYTES);
    expect(read).toEqual({ doc: undefined, version: 3, unreadable: true });
  });

  it('reads bytes that are not gzipped JSON as unreadable, with their version', () => {
    expect(storedLifecycle(CLUB, 'base', { v: 4, d: Uint8Array.from([1, 2, 3]) })).toEqual({
      doc: undefined,
      version: 4,
      unreadable: true,
    });
    expect(storedLifecycle(CLUB, 'delta', { v: 2, d: gzipSync('{"a":1}') })).toEqual({
      doc: { a: 1 },
      version: 2,
    });
  });

  it('splits a document over items of at most 350 KB, under its write id, and reads it whole', async () => {
    // Prepare
    const doc = noisy(900);
    const { store } = memoryLifecycle();
    // Act
    const items = lifecycleItems(CLUB, 'base', encodeLifecycle(CLUB, doc), 4);
    const v1 = await store.putLifecycle(CLUB, doc, 0);
    const v2 = await store.putLifecycle(CLUB, { small: true }, 1);
    const v3 = await store.putLifecycle(CLUB, doc, 2);
    // Assess
    expect(items.head).toMatchObject({ v: 5, n: 3 });
    expect(items.pieces.map((p) => p.sk)).toEqual([
      `LIFECYCLE#${items.head.w}#1`,
      `LIFECYCLE#${items.head.w}#2`,
    ]);
    expect(
      [items.head.d, ...items.pieces.map((p) => p.d)].every((d) => d.length <= MAX_LIFECYCLE_ITEM_BYTES),
    ).toBe(true);
    expect([v1, v2, v3]).toEqual([1, 2, 3]);
    expect(await store.getLifecycle(CLUB)).toEqual({ doc, version: 3 });
  });

  it('a piece missing or written by another write makes the document unreadable, not wrong', () => {
    // Prepare
    const { head, pieces } = lifecycleItems(CLUB, 'delta', encodeLifecycle(CLUB, noisy(800)), 0);
    const all = new Map(pieces.map((p) => [p.sk, p]));
    const first = pieces[0]!;
    const damaged = { ...first, w: 'another' };
    // Act
    const whole = storedLifecycle(CLUB, 'delta', head, all);
    const missing = storedLifecycle(CLUB, 'delta', head, new Map([...all].slice(1)));
    const mixed = storedLifecycle(CLUB, 'delta', head, new Map([...all, [first.sk, damaged]]));
    // Assess
    expect(whole.unreadable).toBeUndefined();
    expect(missing).toEqual({ doc: undefined, version: 1, unreadable: true });
    expect(mixed).toEqual({ doc: undefined, version: 1, unreadable: true });
  });

  it('a write that loses its version condition after writing its pieces leaves the stored document whole', async () => {
    // Prepare
    const { store, itemCount } = memoryLifecycle();
    const kept = noisy(800);
    await store.putLifecycle(CLUB, kept, 0);
    const items = await itemCount();
    // Act: a stale writer (expects 0) writes its pieces, then fails its version condition.
    const stale = store.putLifecycle(CLUB, noisy(800), 0);
    // Assess: the stored document is whole, and the stale write's pieces are gone.
    await expect(stale).rejects.toBeInstanceOf(LifecycleConflictError);
    expect(await store.getLifecycle(CLUB)).toEqual({ doc: kept, version: 1 });
    expect(await itemCount()).toBe(items);
    // A smaller document replaces it: the replaced pieces are deleted.
    await store.putLifecycle(CLUB, { small: true }, 1);
    expect(await itemCount()).toBe(1);
  });

  it('refuses to write a document over the bound, or not JSON', async () => {
    const tooBig = { s: 'x'.repeat(MAX_LIFECYCLE_JSON_BYTES) };
    const manyPieces = {
      members: Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [i, 'y'.repeat(480)])),
    };
    await expect(gzipLifecycle(CLUB, tooBig)).rejects.toThrow(StoreError);
    await expect(gzipLifecycle(CLUB, manyPieces)).rejects.toThrow(StoreError);
    await expect(gzipLifecycle(CLUB, undefined)).rejects.toThrow(StoreError);
    expect(() => encodeLifecycle(CLUB, tooBig)).toThrow(StoreError);
    expect(() => lifecycleItems(CLUB, 'base', Buffer.alloc(1), -1)).toThrow(StoreError);
  });

  it('makes the JSON of a document of a few keys over large containers entry by entry, never whole', () => {
    // Prepare: the shape of a big club's documents: a few keys, 50,000 members two levels down.
    const members = Object.fromEntries(
      Array.from({ length: 50_000 }, (_, i) => [
        String(100_000 + i),
        { lastVisitAt: `2026-03-06T14:${i % 60}` },
      ]),
    );
    const doc = {
      delta: 1,
      baseVersion: 3,
      view: { members, prospects: {} },
      facts: [{ member: '1', at: 2 }],
    };
    // Act
    const pieces = [...jsonPieces(doc)];
    // Assess: the same text, and no piece anywhere near the whole (about 2 MB)
    expect(pieces.join('')).toBe(JSON.stringify(doc));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(200);
  });

  it('writes the JSON a few KB at a time: the same document, read back whole', async () => {
    // Prepare: large containers, nested, values JSON drops or turns to null, keys that need escapes.
    const doc = {
      members: Object.fromEntries(
        Array.from({ length: 500 }, (_, i) => [
          `m"${i}`,
          { last: `2026-06-0${i % 9}T00:00:00`, gone: undefined },
        ]),
      ),
      facts: Array.from({ length: 300 }, (_, i) =>
        i % 50 === 0 ? undefined : { i, at: new Date(i * 1000) },
      ),
      small: { a: [1, null, 'x'] },
    };
    // Act
    const bytes = await gzipLifecycle(CLUB, doc);
    // Assess
    expect(storedLifecycle(CLUB, 'base', { v: 1, d: bytes }).doc).toEqual(JSON.parse(JSON.stringify(doc)));
  });
});
