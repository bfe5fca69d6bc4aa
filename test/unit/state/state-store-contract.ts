/**
 * The StateStore contract, run against every adapter (MemoryStateStore in test/unit/state,
 * DynamoDbStateStore on dynalite in test/integration/state). An adapter passes only if it behaves
 * exactly as the engine expects: versioned cursors, the club state item (exclusive sessions, what
 * they write on close and checkpoint, writes outside a poll), expiring seen keys, the time-ordered
 * seen set's ranges, batched reads and writes beyond one call's limit, snapshot round trips, quota
 * counters that never lose a count, quarantine.
 */
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { LifecycleConflictError } from '../../../lambdas/state/lifecycle-items';
import type { BridgeStateStore } from '../../../lambdas/state/state-store';
import {
  ConcurrentModificationError,
  type Cursor,
  newCursor,
  type QuarantinedRecord,
  type SeenAt,
  type Snapshot,
  type SourceName,
  StoreError,
} from '../../../lambdas/state/store';
import { seedCursor, seedQuota } from '../../support/state-seeds';

export interface StoreUnderTest {
  store: BridgeStateStore;
  /** Sets the clock the store uses where the port takes no time (listQuarantined). */
  setNow(ms: number): void;
}

export type StoreFactory = () => Promise<StoreUnderTest>;

const CLUB = 'club-1';
const OTHER_CLUB = 'club-2';
const T0 = Date.UTC(2025, 2, 1, 0, 0, 0);

function fingerprints(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}:${i.toString().padStart(4, '0')}`);
}

function snapshot(id: string, hash: string, fields: Record<string, unknown> = {}): Snapshot {
  return { id, hash, fields, updatedAt: '2025-03-01T00:00:00.000Z' };
}

export function describeStateStoreContract(adapter: string, makeStore: StoreFactory): void {
  describe(`StateStore contract: ${adapter}`, () => {
    let store: BridgeStateStore;
    let setNow: (ms: number) => void;

    beforeEach(async () => {
      ({ store, setNow } = await makeStore());
      setNow(T0);
    });

    describe('cursors', () => {
      it('returns a fresh version-0 cursor when none is stored', async () => {
        // Act
        const cursor = await store.view(CLUB).getCursor('visits');

        // Assess
        expect(cursor).toEqual(newCursor(CLUB, 'visits'));
        expect(cursor.version).toBe(0);
        expect(cursor.baselineDone).toBe(false);
      });

      it('stores a new cursor at version 1 and reads every field back', async () => {
        // Prepare
        const cursor: Cursor = {
          ...newCursor(CLUB, 'paymentHistory'),
          watermark: '2025-03-01T10:00:00.000Z',
          baselineDone: true,
          backfillFrom: '2025-01-01T00:00:00',
          scan: {
            fromdate: '2025-02-28T10:00:00',
            nextOffset: 1500,
            startedAt: '2025-03-01T10:01:00.000Z',
            maxRecordTime: '2025-03-01T09:59:59.000Z',
            pages: 3,
            records: 1500,
          },
          health: {
            consecutiveFailures: 2,
            lastPollAt: '2025-03-01T10:01:00.000Z',
            lastError: { kind: 'unavailable', message: 'HTTP 503', at: '2025-03-01T10:01:05.000Z' },
            nextDueAt: '2025-03-01T10:02:00.000Z',
          },
          stats: { published: 12, quarantined: 1 },
        };

        // Act
        const written = await seedCursor(store, cursor);
        const read = await store.view(CLUB).getCursor('paymentHistory');

        // Assess
        expect(written).toEqual({ ...cursor, version: 1 });
        expect(read).toEqual({ ...cursor, version: 1 });
        expect(cursor.version).toBe(0); // the argument is not mutated
      });

      it('drops undefined fields instead of storing them', async () => {
        // Act
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: undefined, scan: undefined });
        const read = await store.view(CLUB).getCursor('visits');

        // Assess
        expect(Object.keys(read)).not.toContain('watermark');
        expect(Object.keys(read)).not.toContain('scan');
        expect(read.version).toBe(1);
      });

      it('advances the version on each write and rejects a write from a stale version', async () => {
        // Prepare
        const v1 = await seedCursor(store, {
          ...newCursor(CLUB, 'visits'),
          watermark: '2025-03-01T00:00:00Z',
        });
        const v2 = await seedCursor(store, { ...v1, watermark: '2025-03-02T00:00:00Z' });

        // Act
        const stale = seedCursor(store, { ...v1, watermark: '2025-03-09T00:00:00Z' });

        // Assess
        expect(v2.version).toBe(2);
        await expect(stale).rejects.toBeInstanceOf(ConcurrentModificationError);
        const read = await store.view(CLUB).getCursor('visits');
        expect(read.version).toBe(2);
        expect(read.watermark).toBe('2025-03-02T00:00:00Z');
      });

      it('rejects a version-0 write when a cursor already exists', async () => {
        // Prepare
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'first' });

        // Act
        const second = seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'second' });

        // Assess
        const error = await second.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConcurrentModificationError);
        expect(error).toMatchObject({ clubId: CLUB, source: 'visits', expectedVersion: 0 });
        expect((await store.view(CLUB).getCursor('visits')).watermark).toBe('first');
      });

      it('lets exactly one of two concurrent writers in a session win, on creation and on update', async () => {
        const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);
        for (const start of [0, 1]) {
          // Prepare
          const source = start === 0 ? 'members' : 'prospects';
          let base = newCursor(CLUB, source);
          if (start === 1) base = await session!.putCursor(base);

          // Act
          const results = await Promise.allSettled([
            session!.putCursor({ ...base, watermark: 'writer-a' }),
            session!.putCursor({ ...base, watermark: 'writer-b' }),
          ]);

          // Assess
          const won = results.filter((r) => r.status === 'fulfilled');
          const lost = results.filter((r) => r.status === 'rejected');
          expect(won).toHaveLength(1);
          expect(lost).toHaveLength(1);
          expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrentModificationError);
          const winner = (won[0] as PromiseFulfilledResult<Cursor>).value;
          const read = await session!.getCursor(source);
          expect(read.version).toBe(start + 1);
          expect(read.watermark).toBe(winner.watermark);
        }
        await session!.close();
        expect((await store.view(CLUB).getCursor('prospects')).version).toBe(2);
      });

      it('returns copies: mutating a read cursor does not change the stored one', async () => {
        // Prepare
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), stats: { n: 1 } });
        const read = await store.view(CLUB).getCursor('visits');

        // Act
        read.health.consecutiveFailures = 99;
        (read.stats as Record<string, number>).n = 42;

        // Assess
        const again = await store.view(CLUB).getCursor('visits');
        expect(again.health.consecutiveFailures).toBe(0);
        expect(again.stats).toEqual({ n: 1 });
      });

      it('lists the stored cursors of one club only, by source name, ignoring leases and quota', async () => {
        // Prepare
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'v' });
        await seedCursor(store, { ...newCursor(CLUB, 'members'), watermark: 'm' });
        await seedCursor(store, { ...newCursor(OTHER_CLUB, 'prospects'), watermark: 'p' });
        await seedQuota(store, CLUB, '2025-03', 3);
        await store.openClub(CLUB, 'owner-a', 60_000, T0); // a poll holding the club: reads still work

        // Act
        const listed = await store.view(CLUB).listCursors();

        // Assess
        expect(listed.map((c) => [c.source, c.watermark, c.version])).toEqual([
          ['members', 'm', 1],
          ['visits', 'v', 1],
        ]);
        expect(await store.view('club-without-state').listCursors()).toEqual([]);
      });

      it('rejects club ids that could forge another key, and unknown sources', async () => {
        expect(() => store.view('club#1')).toThrow(StoreError);
        expect(() => store.view('')).toThrow(StoreError);
        await expect(store.view(CLUB).getCursor('nope' as 'visits')).rejects.toBeInstanceOf(StoreError);
      });
    });

    describe('the club state item: lease, cursors and counter in one', () => {
      it('gives a contended club to exactly one of two pollers', async () => {
        // Act
        const [a, b] = await Promise.all([
          store.openClub(CLUB, 'owner-a', 60_000, T0),
          store.openClub(CLUB, 'owner-b', 60_000, T0),
        ]);

        // Assess
        expect([a, b].filter(Boolean)).toHaveLength(1);
      });

      it('refuses a held club to another owner, opens it again for its holder, and for anyone once expired', async () => {
        // Prepare
        expect(await store.openClub(CLUB, 'owner-a', 60_000, T0)).toBeDefined();

        // Act / Assess
        expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 59_999)).toBeUndefined();
        expect(await store.openClub(CLUB, 'owner-a', 60_000, T0 + 1_000)).toBeDefined();
        expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 61_000)).toBeDefined();
        expect(await store.openClub(OTHER_CLUB, 'owner-c', 60_000, T0)).toBeDefined();
      });

      it('writes what the session changed when it closes, in one item the next poll reads', async () => {
        // Prepare
        const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
        const visits = await first!.getCursor('visits');
        await first!.putCursor({ ...visits, watermark: '2025-03-01T00:00:00.000Z', baselineDone: true });
        await first!.addQuotaUsage('2025-03', 7);
        // Not written before the close: a reader outside the session sees the stored state.
        expect((await store.view(CLUB).getCursor('visits')).version).toBe(0);

        // Act
        await first!.close();
        const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);

        // Assess
        const read = await second!.getCursor('visits');
        expect([read.version, read.watermark, read.baselineDone]).toEqual([
          1,
          '2025-03-01T00:00:00.000Z',
          true,
        ]);
        expect(await second!.getQuotaUsage('2025-03')).toBe(7);
        expect(await second!.addQuotaUsage('2025-03', 3)).toBe(10);
        await second!.close();
        expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(10);
        expect(await store.view(CLUB).getQuotaUsage('2025-04')).toBe(0);
      });

      it('a checkpoint writes and keeps the lease; a session that lost its lease writes nothing', async () => {
        // Prepare
        const a = await store.openClub(CLUB, 'owner-a', 1_000, T0);
        const cursor = await a!.getCursor('members');
        await a!.putCursor({ ...cursor, watermark: 'first' });

        // Act
        await a!.checkpoint();
        const held = await store.openClub(CLUB, 'owner-b', 1_000, T0 + 500);
        const b = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1_000); // a's lease expired
        await a!.putCursor({ ...(await a!.getCursor('members')), watermark: 'lost' });

        // Assess
        expect(held).toBeUndefined();
        expect((await store.view(CLUB).getCursor('members')).watermark).toBe('first');
        await expect(a!.close()).rejects.toBeInstanceOf(StoreError);
        expect((await b!.getCursor('members')).watermark).toBe('first');
      });

      it('rejects a stale cursor version inside a session, and serves nothing once closed', async () => {
        // Prepare
        const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);
        const fresh = await session!.getCursor('visits');
        await session!.putCursor(fresh);

        // Act / Assess
        await expect(session!.putCursor(fresh)).rejects.toBeInstanceOf(ConcurrentModificationError);
        await session!.close();
        await expect(session!.getCursor('visits')).rejects.toBeInstanceOf(StoreError);
      });

      it('writes outside a poll only in a session of their own: none while a poll holds the club', async () => {
        // Prepare
        const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);

        // Act / Assess
        expect(await store.openClub(CLUB, 'cli', 60_000, T0 + 1)).toBeUndefined();
        const view = store.view(CLUB) as unknown as Record<string, unknown>;
        expect(view.putCursor).toBeUndefined();
        await expect(
          (view.putSeen as (...a: unknown[]) => Promise<void>)('visits', ['a'], 2_000),
        ).rejects.toBeInstanceOf(StoreError);
        await session!.close();
        const written = await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' });
        expect(written.version).toBe(1);
      });

      it("keeps the hour of the club's lifecycle evaluation with the session's state, through other sessions' writes", async () => {
        // Prepare
        const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
        expect(first!.lifecycleHour()).toBeUndefined();

        // Act
        first!.markLifecycleHour(493_000);
        await first!.close();
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' }); // a write outside a poll
        const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);

        // Assess
        expect(second!.lifecycleHour()).toBe(493_000);
        expect(() => second!.markLifecycleHour(-1)).toThrow(StoreError);
        expect(() => second!.markLifecycleHour(1.5)).toThrow(StoreError);
        second!.markLifecycleHour(493_000); // unchanged: nothing to write
        await second!.close();
        expect((await store.view(CLUB).getCursor('visits')).version).toBe(1);
      });

      it('keeps the lifecycle notes with the state, and marks them full after a poll that stopped before its close', async () => {
        // Prepare
        const first = await store.openClub(CLUB, 'owner-a', 60_000, T0);
        expect(first!.lifecycleNotes()).toEqual({});

        // Act: a poll notes and closes; the next notes more and stops without its close.
        first!.noteLifecycle({ members: ['100042'], visitsFromMs: T0 - 5_000 });
        first!.noteLifecycle({ members: ['100042', '7'], visitsFromMs: T0 - 9_000, paymentsFromMs: T0 });
        await first!.close();
        const second = await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1);
        const carried = second!.lifecycleNotes();
        second!.clearLifecycleNotes();
        second!.noteLifecycle({ prospects: ['55'] });
        await second!.checkpoint();
        const third = await store.openClub(CLUB, 'owner-c', 60_000, T0 + 120_000); // the lease expired
        const afterStop = third!.lifecycleNotes();
        await third!.close();
        const fourth = await store.openClub(CLUB, 'owner-d', 60_000, T0 + 200_000);

        // Assess
        expect(carried).toEqual({
          members: ['100042', '7'],
          visitsFromMs: T0 - 9_000,
          paymentsFromMs: T0,
        });
        expect(afterStop).toEqual({ full: true });
        expect(fourth!.lifecycleNotes()).toEqual({ full: true }); // written by the close
        fourth!.clearLifecycleNotes();
        await fourth!.close();
        const fifth = await store.openClub(CLUB, 'owner-e', 60_000, T0 + 300_000);
        expect(fifth!.lifecycleNotes()).toEqual({});
        await fifth!.close();
      });

      it('a session that changed nothing only releases the club', async () => {
        // Prepare
        await seedCursor(store, { ...newCursor(CLUB, 'visits'), watermark: 'w' });
        const session = await store.openClub(CLUB, 'owner-a', 60_000, T0);

        // Act
        await session!.close();

        // Assess: released, and the stored cursor untouched
        expect(await store.openClub(CLUB, 'owner-b', 60_000, T0 + 1)).toBeDefined();
        expect((await store.view(CLUB).getCursor('visits')).version).toBe(1);
      });

      it("reads many clubs' cursors and counters at once, beyond one batch call (>100)", async () => {
        // Prepare
        const ids = Array.from({ length: 130 }, (_, i) => `club-${i}`);
        for (const id of ids.slice(0, 120)) {
          await seedCursor(store, { ...newCursor(id, 'visits'), watermark: id });
          await seedQuota(store, id, '2025-03', 2);
        }

        // Act
        const states = await store.readClubStates(ids, '2025-03');

        // Assess
        expect(states.size).toBe(130);
        expect(states.get('club-7')!.cursors.map((c) => c.watermark)).toEqual(['club-7']);
        expect(states.get('club-7')!.quotaUsed).toBe(2);
        expect(states.get('club-125')).toEqual({ cursors: [], quotaUsed: 0 });
        expect((await store.readClubStates(['club-7'], '2025-04')).get('club-7')!.quotaUsed).toBe(0);
      });

      it('rejects a non-positive ttl, an empty owner and a forged club id', async () => {
        await expect(store.openClub(CLUB, 'owner-a', 0, T0)).rejects.toBeInstanceOf(StoreError);
        await expect(store.openClub(CLUB, '', 1_000, T0)).rejects.toBeInstanceOf(StoreError);
        await expect(store.openClub('club#2', 'owner-a', 1_000, T0)).rejects.toBeInstanceOf(StoreError);
        await expect(store.readClubStates([CLUB], '2025-3')).rejects.toBeInstanceOf(StoreError);
      });
    });

    describe('seen fingerprints', () => {
      it('reports exactly the stored, unexpired fingerprints among those asked', async () => {
        // Prepare
        await store.parts.seen.putSeen(CLUB, 'visits', ['a', 'b', 'c'], 2_000);

        // Act
        const seen = await store.parts.seen.filterSeen(CLUB, 'visits', ['a', 'c', 'd', 'a'], 1_000);

        // Assess
        expect([...seen].sort()).toEqual(['a', 'c']);
        expect((await store.parts.seen.filterSeen(CLUB, 'visits', [], 1_000)).size).toBe(0);
      });

      it('filters expired fingerprints on read (TTL deletes late or never)', async () => {
        // Prepare
        await store.parts.seen.putSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 1_000);
        await store.parts.seen.putSeen(CLUB, 'paymentHistory', ['p2'], 5_000);

        // Act
        const before = await store.parts.seen.filterSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 999);
        const atExpiry = await store.parts.seen.filterSeen(CLUB, 'paymentHistory', ['p1', 'p2'], 1_000);

        // Assess
        expect([...before].sort()).toEqual(['p1', 'p2']);
        expect([...atExpiry]).toEqual(['p2']);
      });

      it('handles more keys than one batch call takes (>25 writes, >100 reads)', async () => {
        // Prepare
        const stored = fingerprints('v', 260);
        const unknown = fingerprints('x', 150);
        await store.parts.seen.putSeen(CLUB, 'visits', [...stored, ...stored.slice(0, 30)], 10_000);

        // Act
        const seen = await store.parts.seen.filterSeen(CLUB, 'visits', [...unknown, ...stored], 1_000);

        // Assess
        expect(seen.size).toBe(260);
        expect([...seen].sort()).toEqual(stored);
      });

      it('keeps sources and clubs apart', async () => {
        // Prepare
        await store.parts.seen.putSeen(CLUB, 'visits', ['k'], 10_000);

        // Act / Assess
        expect((await store.parts.seen.filterSeen(CLUB, 'posTransactions', ['k'], 1)).size).toBe(0);
        expect((await store.parts.seen.filterSeen(OTHER_CLUB, 'visits', ['k'], 1)).size).toBe(0);
        expect((await store.parts.seen.filterSeen(CLUB, 'visits', ['k'], 1)).size).toBe(1);
      });

      it('rejects an empty fingerprint and one longer than a sort key may be', async () => {
        await expect(store.parts.seen.putSeen(CLUB, 'visits', [''], 10)).rejects.toBeInstanceOf(StoreError);
        await expect(
          store.parts.seen.filterSeen(CLUB, 'visits', ['x'.repeat(1025)], 1),
        ).rejects.toBeInstanceOf(StoreError);
      });
    });

    describe('time-ordered seen set', () => {
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      const entry = (fingerprint: string, ms: number): SeenAt => ({ fingerprint, at: at(ms) });
      const sorted = (set: Set<string>) => [...set].sort();

      it('reads from `fromAt` inclusive to `toAt` exclusive, to the end without `toAt`', async () => {
        // Prepare: entries a millisecond either side of both bounds, and exactly on them
        const from = 60_000;
        const to = 120_000;
        await store.parts.seen.putSeenAt(
          CLUB,
          'visits',
          [
            entry('before-from', from - 1),
            entry('at-from', from),
            entry('after-from', from + 1),
            entry('before-to', to - 1),
            entry('at-to', to),
            entry('after-to', to + 1),
          ],
          10_000,
        );

        // Act
        const bounded = await store.parts.seen.seenSince(CLUB, 'visits', at(from), 1_000, { toAt: at(to) });
        const open = await store.parts.seen.seenSince(CLUB, 'visits', at(from), 1_000);
        const all = await store.parts.seen.seenSince(CLUB, 'visits', at(-86_400_000), 1_000, {
          consistentRead: true,
        });

        // Assess
        expect(sorted(bounded)).toEqual(['after-from', 'at-from', 'before-to']);
        expect(sorted(open)).toEqual(['after-from', 'after-to', 'at-from', 'at-to', 'before-to']);
        expect(all.size).toBe(6);
      });

      it('returns nothing for an empty range (toAt at or before fromAt)', async () => {
        // Prepare
        await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('k', 0), entry('l', 1)], 10_000);

        // Act / Assess
        expect((await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(0) })).size).toBe(
          0,
        );
        expect((await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000, { toAt: at(0) })).size).toBe(
          0,
        );
        expect([
          ...(await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(1) })),
        ]).toEqual(['k']);
      });

      it('filters expired entries on read (TTL deletes late or never)', async () => {
        // Prepare
        await store.parts.seen.putSeenAt(CLUB, 'paymentHistory', [entry('p1', 0), entry('p2', 1)], 1_000);
        await store.parts.seen.putSeenAt(CLUB, 'paymentHistory', [entry('p2', 1)], 5_000);

        // Act
        const before = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 999);
        const atExpiry = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 1_000);
        const later = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 5_000);

        // Assess
        expect(sorted(before)).toEqual(['p1', 'p2']);
        expect([...atExpiry]).toEqual(['p2']);
        expect(later.size).toBe(0);
      });

      it('is idempotent: re-putting an entry, also twice in one call, stores it once', async () => {
        // Prepare
        const entries = [entry('a', 0), entry('b', 5), entry('a', 0)];
        await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);

        // Act
        await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);
        const seen = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000);

        // Assess
        expect(sorted(seen)).toEqual(['a', 'b']);
        expect([...(await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000))]).toEqual(['b']);
        await expect(store.parts.seen.putSeenAt(CLUB, 'visits', [], 10_000)).resolves.toBeUndefined();
      });

      it('files a fingerprint under each of its instants and keeps them apart by time', async () => {
        // Prepare
        await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('moved', 0), entry('moved', 60_000)], 10_000);

        // Act
        const early = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000, { toAt: at(1) });
        const late = await store.parts.seen.seenSince(CLUB, 'visits', at(1), 1_000);

        // Assess
        expect([...early]).toEqual(['moved']);
        expect([...late]).toEqual(['moved']);
      });

      it('keeps clubs, sources and the per-key seen set apart', async () => {
        // Prepare
        await store.parts.seen.putSeenAt(CLUB, 'visits', [entry('k', 0)], 10_000);
        await store.parts.seen.putSeen(CLUB, 'visits', ['per-key'], 10_000);

        // Act / Assess
        expect((await store.parts.seen.seenSince(CLUB, 'posTransactions', at(0), 1)).size).toBe(0);
        expect((await store.parts.seen.seenSince(OTHER_CLUB, 'visits', at(0), 1)).size).toBe(0);
        expect([...(await store.parts.seen.seenSince(CLUB, 'visits', at(-1), 1))]).toEqual(['k']);
        expect((await store.parts.seen.filterSeen(CLUB, 'visits', ['k'], 1)).size).toBe(0);
      });

      it('writes more entries than one batch call takes (>25) and reads them all back', async () => {
        // Prepare
        const stored = fingerprints('v', 260);
        const entries = stored.map((fp, i) => entry(fp, i * 1_000));

        // Act
        await store.parts.seen.putSeenAt(CLUB, 'visits', [...entries, ...entries.slice(0, 30)], 10_000);
        const seen = await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1_000);
        const lastHundred = await store.parts.seen.seenSince(CLUB, 'visits', at(160_000), 1_000);

        // Assess
        expect(sorted(seen)).toEqual(stored);
        expect(sorted(lastHundred)).toEqual(stored.slice(160));
      });

      it('reads a range larger than one 1 MB Query page to its end', async () => {
        // Prepare: 1,300 items of about 1 KB (900-character fingerprints) are 1.3 MB
        const stored = fingerprints('big', 1_300).map((fp) => fp + 'x'.repeat(900 - fp.length));
        await store.parts.seen.putSeenAt(
          CLUB,
          'classAttendance',
          stored.map((fp, i) => entry(fp, i)),
          10_000,
        );

        // Act
        const eventual = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(0), 1_000);
        const strong = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(0), 1_000, {
          consistentRead: true,
        });
        const tail = await store.parts.seen.seenSince(CLUB, 'classAttendance', at(1_250), 1_000, {
          toAt: at(1_300),
        });

        // Assess
        expect(eventual.size).toBe(1_300);
        expect(sorted(eventual)).toEqual(stored);
        expect(strong).toEqual(eventual);
        expect(sorted(tail)).toEqual(stored.slice(1_250));
      });

      it('rejects an `at` not in the one sortable format, an empty or oversized fingerprint', async () => {
        // Prepare
        const good = entry('ok', 0);
        const badAts = [
          '2025-03-01T00:00:00Z',
          '2025-03-01T00:00:00.000+00:00',
          '2025-03-01 00:00:00.000Z',
          '2025-03-01T00:00:00.0000Z',
          '2025-03-01',
          '',
        ];

        // Act / Assess
        for (const bad of badAts) {
          await expect(
            store.parts.seen.putSeenAt(CLUB, 'visits', [good, { fingerprint: 'x', at: bad }], 10),
          ).rejects.toThrow(StoreError);
          await expect(store.parts.seen.seenSince(CLUB, 'visits', bad, 1)).rejects.toBeInstanceOf(StoreError);
          await expect(
            store.parts.seen.seenSince(CLUB, 'visits', good.at, 1, { toAt: bad }),
          ).rejects.toBeInstanceOf(StoreError);
        }
        await expect(
          store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: '', at: good.at }], 10),
        ).rejects.toBeInstanceOf(StoreError);
        await expect(
          store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: 'x'.repeat(1_000), at: good.at }], 10),
        ).rejects.toBeInstanceOf(StoreError);
        await expect(store.parts.seen.seenSince('club#1', 'visits', good.at, 1)).rejects.toBeInstanceOf(
          StoreError,
        );
        await expect(store.parts.seen.seenSince(CLUB, 'visits', good.at, Number.NaN)).rejects.toBeInstanceOf(
          StoreError,
        );
        // a rejected call wrote nothing, not even its valid entries
        expect((await store.parts.seen.seenSince(CLUB, 'visits', at(-1), 1)).size).toBe(0);
      });

      it("keeps an entry's group and value, returned by seenEntriesSince in key order with the same range and expiry", async () => {
        // Prepare: two responses of one payment under the same instant, an entry without a group,
        // one outside the range and one expired.
        await store.parts.seen.putSeenAt(
          CLUB,
          'paymentHistory',
          [
            { fingerprint: 'fp-approved', at: at(10), group: 'g-1', value: 'Approved' },
            {
              fingerprint: 'fp-dishonoured',
              at: at(10),
              group: 'g-1',
              value: 'Dishonoured - Refer to Customer',
            },
            { fingerprint: 'fp-plain', at: at(20) },
            { fingerprint: 'fp-later', at: at(99), group: 'g-2', value: 'Approved' },
          ],
          10_000,
        );
        await store.parts.seen.putSeenAt(
          CLUB,
          'paymentHistory',
          [{ fingerprint: 'fp-old', at: at(15), group: 'g-3', value: 'x' }],
          500,
        );

        // Act
        const entries = await store.parts.seen.seenEntriesSince(CLUB, 'paymentHistory', at(0), 1_000, {
          toAt: at(99),
        });
        const fingerprintsOnly = await store.parts.seen.seenSince(CLUB, 'paymentHistory', at(0), 1_000, {
          toAt: at(99),
        });

        // Assess
        expect(entries).toEqual([
          { fingerprint: 'fp-approved', at: at(10), group: 'g-1', value: 'Approved' },
          {
            fingerprint: 'fp-dishonoured',
            at: at(10),
            group: 'g-1',
            value: 'Dishonoured - Refer to Customer',
          },
          { fingerprint: 'fp-plain', at: at(20) },
        ]);
        expect(sorted(fingerprintsOnly)).toEqual(['fp-approved', 'fp-dishonoured', 'fp-plain']);
        expect(
          await store.parts.seen.seenEntriesSince(CLUB, 'paymentHistory', at(10), 1_000, { toAt: at(10) }),
        ).toEqual([]);
      });

      it("keeps an entry's memo and announced mark, with or without a group; refuses a memo over 256 bytes, writing nothing", async () => {
        // Prepare
        const entries: SeenAt[] = [
          { fingerprint: 'visit', at: at(1), memo: '100042' },
          { fingerprint: 'pay', at: at(2), group: 'g', value: 'Approved', memo: '["100042","77"]' },
          { fingerprint: 'max', at: at(3), memo: 'é'.repeat(128) },
          { fingerprint: 'published', at: at(5), group: 'g', value: 'Approved', memo: 'm', announced: true },
          { fingerprint: 'published-bare', at: at(6), announced: true },
        ];
        // Act
        await store.parts.seen.putSeenAt(CLUB, 'visits', entries, 10_000);
        // Assess
        await expect(
          store.parts.seen.putSeenAt(
            CLUB,
            'visits',
            [{ fingerprint: 'long', at: at(4), memo: 'é'.repeat(129) }],
            10_000,
          ),
        ).rejects.toBeInstanceOf(StoreError);
        expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual(entries);
        expect((await store.parts.seen.seenSince(CLUB, 'visits', at(0), 1)).has('long')).toBe(false);
      });

      it('re-putting an entry with or without a group replaces it (last write wins)', async () => {
        await store.parts.seen.putSeenAt(
          CLUB,
          'visits',
          [{ fingerprint: 'a', at: at(0), group: 'g', value: 'v1' }],
          10_000,
        );
        await store.parts.seen.putSeenAt(
          CLUB,
          'visits',
          [{ fingerprint: 'a', at: at(0), group: 'g', value: 'v2' }],
          10_000,
        );
        expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual([
          { fingerprint: 'a', at: at(0), group: 'g', value: 'v2' },
        ]);
        await store.parts.seen.putSeenAt(CLUB, 'visits', [{ fingerprint: 'a', at: at(0) }], 10_000);
        expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(0), 1)).toEqual([
          { fingerprint: 'a', at: at(0) },
        ]);
      });

      it('rejects a group without a value (or the reverse), an empty group, and oversized ones, writing nothing', async () => {
        const good: SeenAt = { fingerprint: 'ok', at: at(0), group: 'g', value: '' };
        const bad: SeenAt[] = [
          { fingerprint: 'x', at: at(0), group: 'g' },
          { fingerprint: 'x', at: at(0), value: 'v' },
          { fingerprint: 'x', at: at(0), group: '', value: 'v' },
          { fingerprint: 'x', at: at(0), group: 'g'.repeat(65), value: 'v' },
          { fingerprint: 'x', at: at(0), group: 'g', value: 'é'.repeat(129) },
        ];
        for (const entry of bad) {
          await expect(store.parts.seen.putSeenAt(CLUB, 'visits', [good, entry], 10)).rejects.toBeInstanceOf(
            StoreError,
          );
        }
        expect(await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(-1), 1)).toEqual([]);
        // The limits themselves are fine; an empty value too.
        await store.parts.seen.putSeenAt(
          CLUB,
          'visits',
          [good, { fingerprint: 'max', at: at(1), group: 'g'.repeat(64), value: 'é'.repeat(128) }],
          10,
        );
        expect(
          (await store.parts.seen.seenEntriesSince(CLUB, 'visits', at(-1), 1)).map((e) => e.value),
        ).toEqual(['', 'é'.repeat(128)]);
      });
    });

    describe('seen digest', () => {
      it('replaces the digest on put, reads it back until it expires, keeps clubs and sources apart', async () => {
        // Prepare
        const first = Uint8Array.from([1, 2, 3]);
        const second = Uint8Array.from(randomBytes(900));
        const nowSec = Math.floor(T0 / 1000);
        // Act
        const absent = await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec);
        await store.parts.seen.putSeenDigest(CLUB, 'disbursements', first, nowSec + 60);
        await store.parts.seen.putSeenDigest(CLUB, 'disbursements', second, nowSec + 60);
        await store.parts.seen.putSeenDigest(CLUB, 'paymentHistory', first, nowSec + 60);
        // Assess
        expect(absent).toBeUndefined();
        expect(Buffer.from((await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec))!)).toEqual(
          Buffer.from(second),
        );
        expect(Buffer.from((await store.parts.seen.getSeenDigest(CLUB, 'paymentHistory', nowSec))!)).toEqual(
          Buffer.from(first),
        );
        expect(await store.parts.seen.getSeenDigest(OTHER_CLUB, 'disbursements', nowSec)).toBeUndefined();
        expect(await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec + 60)).toBeUndefined();
      });

      it('refuses an empty or oversized digest and an unknown source, writing nothing', async () => {
        // Act and assess
        const nowSec = Math.floor(T0 / 1000);
        await expect(
          store.parts.seen.putSeenDigest(CLUB, 'disbursements', new Uint8Array(0), nowSec + 60),
        ).rejects.toBeInstanceOf(StoreError);
        await expect(
          store.parts.seen.putSeenDigest(CLUB, 'disbursements', new Uint8Array(17 * 1024), nowSec + 60),
        ).rejects.toBeInstanceOf(StoreError);
        await expect(
          store.parts.seen.putSeenDigest(CLUB, 'nope' as SourceName, Uint8Array.from([1]), nowSec + 60),
        ).rejects.toBeInstanceOf(StoreError);
        expect(await store.parts.seen.getSeenDigest(CLUB, 'disbursements', nowSec)).toBeUndefined();
      });
    });

    describe('lifecycle document', () => {
      it('puts with a version condition, reads back what was put, keeps clubs apart', async () => {
        // Prepare
        const doc = {
          version: 1,
          members: { '100042': { lastVisitAt: '2026-06-01T08:00:00' } },
          n: [1, 2.5, null],
        };
        // Act
        const absent = await store.parts.lifecycle.getLifecycle(CLUB);
        const v1 = await store.parts.lifecycle.putLifecycle(CLUB, doc, 0);
        const v2 = await store.parts.lifecycle.putLifecycle(CLUB, { ...doc, n: [] }, 1);
        // Assess
        await expect(store.parts.lifecycle.putLifecycle(CLUB, doc, 1)).rejects.toBeInstanceOf(
          LifecycleConflictError,
        );
        await expect(store.parts.lifecycle.putLifecycle(CLUB, doc, 0)).rejects.toBeInstanceOf(
          LifecycleConflictError,
        );
        expect(absent).toBeUndefined();
        expect([v1, v2]).toEqual([1, 2]);
        expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({
          doc: { ...doc, n: [] },
          version: 2,
        });
        expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB)).toBeUndefined();
      });

      it('keeps the base and the delta apart, each with its own version', async () => {
        // Act
        await store.parts.lifecycle.putLifecycle(CLUB, { base: 1 }, 0);
        await store.parts.lifecycle.putLifecycle(CLUB, { base: 2 }, 1, 'base');
        const delta = await store.parts.lifecycle.putLifecycle(CLUB, { delta: 1 }, 0, 'delta');
        // Assess
        expect(delta).toBe(1);
        await expect(
          store.parts.lifecycle.putLifecycle(CLUB, { delta: 2 }, 2, 'delta'),
        ).rejects.toBeInstanceOf(LifecycleConflictError);
        expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({ doc: { base: 2 }, version: 2 });
        expect(await store.parts.lifecycle.getLifecycle(CLUB, 'delta')).toEqual({
          doc: { delta: 1 },
          version: 1,
        });
        expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB, 'delta')).toBeUndefined();
      });

      it('stores a document over one item in pieces and reads it whole; refuses one not JSON', async () => {
        // Prepare: random text does not compress: about 900 KB gzipped, three items.
        const big = { noise: randomBytes(900_000).toString('base64') };
        // Act
        await store.parts.lifecycle.putLifecycle(CLUB, big, 0);
        const first = await store.parts.lifecycle.getLifecycle(CLUB);
        await store.parts.lifecycle.putLifecycle(CLUB, { ...big, more: 1 }, 1);
        const second = await store.parts.lifecycle.getLifecycle(CLUB);
        await store.parts.lifecycle.putLifecycle(CLUB, { small: true }, 2);
        // Assess
        expect(first).toEqual({ doc: big, version: 1 });
        expect(second).toEqual({ doc: { ...big, more: 1 }, version: 2 });
        expect(await store.parts.lifecycle.getLifecycle(CLUB)).toEqual({ doc: { small: true }, version: 3 });
        await expect(store.parts.lifecycle.putLifecycle(OTHER_CLUB, undefined, 0)).rejects.toBeInstanceOf(
          StoreError,
        );
        expect(await store.parts.lifecycle.getLifecycle(OTHER_CLUB)).toBeUndefined();
      });
    });

    describe('snapshots', () => {
      it('round-trips nested fields exactly', async () => {
        // Prepare
        const fields = {
          MemberId: '9007199254740993',
          FirstName: 'Zoë',
          Status: 'Current',
          Email: '',
          OptOutEmail: false,
          Balance: -12.5,
          Count: 0,
          Address: { Line1: '1 Main St', Suburb: null, Geo: { lat: -33.87, lng: 151.21 } },
          Tags: ['a', 1, true, null, { deep: ['x'] }],
          Empty: {},
          EmptyList: [],
        };

        // Act
        await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [
          snapshot('9007199254740993', 'h1', fields),
        ]);
        const read = await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['9007199254740993', '404']);

        // Assess
        expect([...read.keys()]).toEqual(['9007199254740993']);
        expect(read.get('9007199254740993')).toEqual(snapshot('9007199254740993', 'h1', fields));
      });

      it('reads and writes more snapshots than one batch call takes', async () => {
        // Prepare
        const snapshots = Array.from({ length: 230 }, (_, i) => snapshot(String(1000 + i), `h${i}`, { i }));
        await store.parts.snapshots.putSnapshots(CLUB, 'PROSPECT', snapshots);

        // Act
        const ids = [...snapshots.map((s) => s.id), '1', '2'];
        const read = await store.parts.snapshots.getSnapshots(CLUB, 'PROSPECT', ids);

        // Assess
        expect(read.size).toBe(230);
        expect(read.get('1229')).toEqual(snapshot('1229', 'h229', { i: 229 }));
        expect(read.has('1')).toBe(false);
      });

      it('lists every snapshot of a club and kind, odd record numbers included, across Query pages', async () => {
        // Prepare: more than one page of items (1 MB a Query page) and an id that is not its own key.
        const padding = 'x'.repeat(4000);
        const many = Array.from({ length: 300 }, (_, i) =>
          snapshot(String(5000 + i), `h${i}`, { i, padding }),
        );
        const odd = snapshot('~h~looks encoded', 'odd', { odd: true });
        await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [...many, odd]);
        await store.parts.snapshots.putSnapshots(CLUB, 'PROSPECT', [snapshot('5000', 'p', {})]);
        await store.parts.snapshots.putSnapshots(OTHER_CLUB, 'MEMBER', [snapshot('1', 'o', {})]);

        // Act
        const listed = await store.parts.snapshots.listSnapshots(CLUB, 'MEMBER');

        // Assess
        expect(listed.size).toBe(301);
        expect(listed.get('5299')).toEqual(snapshot('5299', 'h299', { i: 299, padding }));
        expect(listed.get('~h~looks encoded')).toEqual(odd);
        expect((await store.parts.snapshots.listSnapshots(OTHER_CLUB, 'PROSPECT')).size).toBe(0);
        // Strongly consistent on request (the lifecycle evaluation's read), with the same answer.
        expect(await store.parts.snapshots.listSnapshots(CLUB, 'MEMBER', { consistentRead: true })).toEqual(
          listed,
        );
        const some = await store.parts.snapshots.getSnapshots(
          CLUB,
          'MEMBER',
          ['5001', '~h~looks encoded', 'absent'],
          {
            consistentRead: true,
          },
        );
        expect([...some.keys()].sort()).toEqual(['5001', '~h~looks encoded']);
        expect(some.get('5001')).toEqual(listed.get('5001'));
      });

      it('replaces on put, last one wins within a call, and keeps kinds and clubs apart', async () => {
        // Prepare
        await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('7', 'old', { a: 1, b: 2 })]);

        // Act
        await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [
          snapshot('7', 'mid', { a: 2 }),
          snapshot('7', 'new', { a: 3 }),
        ]);

        // Assess
        expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['7'])).get('7')).toEqual(
          snapshot('7', 'new', { a: 3 }),
        );
        expect((await store.parts.snapshots.getSnapshots(CLUB, 'PROSPECT', ['7'])).size).toBe(0);
        expect((await store.parts.snapshots.getSnapshots(OTHER_CLUB, 'MEMBER', ['7'])).size).toBe(0);
      });

      it('drops undefined fields and refuses values that cannot be stored exactly', async () => {
        // Act
        await store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [
          snapshot('8', 'h', { kept: 1, gone: undefined, n: { x: undefined } }),
        ]);

        // Assess
        expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['8'])).get('8')?.fields).toEqual({
          kept: 1,
          n: {},
        });
        await expect(
          store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('9', 'h', { bad: Number.NaN })]),
        ).rejects.toThrow(StoreError);
        await expect(
          store.parts.snapshots.putSnapshots(CLUB, 'MEMBER', [snapshot('9', 'h', { big: 2 ** 60 })]),
        ).rejects.toBeInstanceOf(StoreError);
        expect((await store.parts.snapshots.getSnapshots(CLUB, 'MEMBER', ['9'])).size).toBe(0);
      });
    });

    describe('quota', () => {
      it('adds and reads a monthly counter, per month and club', async () => {
        // Act
        const zero = await store.view(CLUB).getQuotaUsage('2025-03');
        const first = await seedQuota(store, CLUB, '2025-03', 5);
        const second = await seedQuota(store, CLUB, '2025-03', 7);

        // Assess
        expect([zero, first, second]).toEqual([0, 5, 12]);
        expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(12);
        expect(await store.view(CLUB).getQuotaUsage('2025-04')).toBe(0);
        expect(await store.view(OTHER_CLUB).getQuotaUsage('2025-03')).toBe(0);
      });

      it('never loses a count among 20 concurrent adds outside a poll (each is counted or refused)', async () => {
        // Prepare
        const amounts = Array.from({ length: 20 }, (_, i) => i + 1);

        // Act
        const results = await Promise.allSettled(amounts.map((n) => seedQuota(store, CLUB, '2025-03', n)));

        // Assess: the stored total is exactly the sum of the adds that said they counted
        const counted = amounts.filter((_, i) => results[i]!.status === 'fulfilled');
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreError);
        expect(counted.length).toBeGreaterThan(0);
        expect(await store.view(CLUB).getQuotaUsage('2025-03')).toBe(counted.reduce((a, b) => a + b, 0));
      });

      it('rejects a malformed month and a negative or fractional count', async () => {
        await expect(seedQuota(store, CLUB, '2025-3', 1)).rejects.toBeInstanceOf(StoreError);
        await expect(store.view(CLUB).getQuotaUsage('2025-13')).rejects.toBeInstanceOf(StoreError);
        await expect(seedQuota(store, CLUB, '2025-03', -1)).rejects.toBeInstanceOf(StoreError);
        await expect(seedQuota(store, CLUB, '2025-03', 1.5)).rejects.toBeInstanceOf(StoreError);
      });
    });

    describe('quarantine', () => {
      const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
      const nowSec = Math.floor(T0 / 1000);

      it('round-trips records, newest first, per source', async () => {
        // Prepare
        const records: QuarantinedRecord[] = [
          {
            key: 'pay-1',
            reason: 'Amount: expected number',
            raw: { Id: 1, Amount: 'x', Nested: [1, null] },
            at: at(1),
          },
          { key: 'pay-2', reason: 'not an object', raw: 'plain text', at: at(3) },
          { key: 'pay-3', reason: 'missing Id', raw: null, at: at(2) },
        ];

        // Act
        await store.parts.quarantine.putQuarantined(CLUB, 'paymentHistory', records, nowSec + 86_400);
        const listed = await store.parts.quarantine.listQuarantined(CLUB, 'paymentHistory');

        // Assess
        expect(listed).toEqual([records[1], records[2], records[0]]);
        expect(await store.parts.quarantine.listQuarantined(CLUB, 'visits')).toEqual([]);
      });

      it('honours the limit and stores more records than one batch call takes', async () => {
        // Prepare
        const records = Array.from({ length: 60 }, (_, i) => ({
          key: `r${i}`,
          reason: 'bad',
          raw: { i },
          at: at(i),
        }));
        await store.parts.quarantine.putQuarantined(CLUB, 'visits', records, nowSec + 86_400);

        // Act
        const newest = await store.parts.quarantine.listQuarantined(CLUB, 'visits', 5);
        const all = await store.parts.quarantine.listQuarantined(CLUB, 'visits', 1_000);

        // Assess
        expect(newest.map((r) => r.key)).toEqual(['r59', 'r58', 'r57', 'r56', 'r55']);
        expect(all).toHaveLength(60);
      });

      it('does not list expired records', async () => {
        // Prepare
        await store.parts.quarantine.putQuarantined(
          CLUB,
          'visits',
          [{ key: 'old', reason: 'r', raw: 1, at: at(0) }],
          nowSec + 60,
        );
        await store.parts.quarantine.putQuarantined(
          CLUB,
          'visits',
          [{ key: 'new', reason: 'r', raw: 2, at: at(1) }],
          nowSec + 600,
        );

        // Act
        setNow((nowSec + 60) * 1000);
        const listed = await store.parts.quarantine.listQuarantined(CLUB, 'visits');

        // Assess
        expect(listed.map((r) => r.key)).toEqual(['new']);
      });

      it('keeps an oversized raw record as a truncated preview instead of failing', async () => {
        // Prepare
        const raw = { blob: 'z'.repeat(200_000) };

        // Act
        await store.parts.quarantine.putQuarantined(
          CLUB,
          'members',
          [{ key: 'm1', reason: 'huge', raw, at: at(0) }],
          nowSec + 600,
        );
        const listed = await store.parts.quarantine.listQuarantined(CLUB, 'members');

        // Assess
        expect(listed).toHaveLength(1);
        const stored = listed[0]?.raw as { truncated: boolean; originalChars: number; preview: string };
        expect(stored).toMatchObject({ truncated: true, originalChars: JSON.stringify(raw).length });
        expect(stored.preview.startsWith('{"blob":"zzz')).toBe(true);
      });
    });
  });
}
