/**
 * The visit history a club's first lifecycle evaluation reads (lambdas/lifecycle/visit-history.ts):
 * from inactiveDays before the start of tracking, each member's latest visit; a read that does not
 * fit in a poll keeps its progress and the next poll goes on from there; a row read twice (rows
 * moved under the paging) reads the history once more. On the memory store with a scripted API.
 */
import { describe, expect, it } from 'vitest';
import { DeadlineExceededError, type GymApiClient } from '../../../lambdas/gym-api';
import { clearVisitHistory, readVisitHistory } from '../../../lambdas/lifecycle/visit-history';
import { MemoryStateStore } from '../../../lambdas/state';
import { openSession } from '../../support/state-seeds';

const CLUB = { clubId: 'club-1', timeZone: 'America/New_York' };
const NOW = Date.parse('2026-06-10T16:00:00Z'); // 12:00 in New York (UTC-4)
type Visit = { MemberNumber?: string; VisitDateTime?: string; Door?: string };

/** An API answering visits `pageSize` at a time from `rows`; the call `stopAt` runs out of time after its page. */
function api(rows: () => Visit[], pageSize: number, stopAt?: { call: number; afterPages: number }) {
  const asked: { fromdate: unknown; startOffset: number }[] = [];
  const client = {
    async *pages(_op: string, query: { fromdate?: string }, options: { startOffset?: number }) {
      asked.push({ fromdate: query.fromdate, startOffset: options.startOffset ?? 0 });
      const call = asked.length;
      let offset = options.startOffset ?? 0;
      for (let page = 1; ; page++) {
        const items = rows().slice(offset, offset + pageSize);
        yield { offset, limit: pageSize, items, invalid: [], rawCount: items.length };
        if (items.length < pageSize) return;
        offset += items.length;
        if (stopAt && stopAt.call === call && page === stopAt.afterPages)
          throw new DeadlineExceededError('out of time', { operation: 'visits' });
      }
    },
  } as unknown as GymApiClient;
  return { client, asked };
}

const visit = (member: string, at: string, door = 'Front'): Visit => ({
  MemberNumber: member,
  VisitDateTime: at,
  Door: door,
});

describe('the visit history of a first evaluation', () => {
  it('reads from inactiveDays before, keeps each member latest visit, and ignores rows naming no one', async () => {
    // Prepare
    const rows = [
      visit('1', '2026-05-28T08:00:00'),
      visit('1', '2026-06-09T18:30:00'),
      visit('2', '2026-06-01T07:00:00.5'),
      visit('1', '2026-06-02T07:00:00'),
      { VisitDateTime: '2026-06-03T07:00:00' },
      visit('3', 'not a time'),
    ];
    const { client, asked } = api(() => rows, 500);
    const store = new MemoryStateStore();
    // Act
    const read = await readVisitHistory(
      { client, store: await openSession(store, CLUB.clubId), nowMs: NOW, deadlineMs: Infinity },
      CLUB,
      14,
    );
    // Assess
    expect(asked).toEqual([{ fromdate: '2026-05-27T12:00:00', startOffset: 0 }]);
    expect(read).toMatchObject({ done: true, from: '2026-05-27T12:00:00', pages: 1, storedVersion: 0 });
    expect(read.done && Object.fromEntries(read.lastVisits)).toEqual({
      '1': '2026-06-09T18:30:00',
      '2': '2026-06-01T07:00:00',
    });
    expect(await store.parts.lifecycle.getLifecycle(CLUB.clubId, 'history')).toBeUndefined();
  });

  it('keeps its progress when the poll runs out of time, and the next poll goes on from there', async () => {
    // Prepare: 7 rows, 2 a page; the first poll's time runs out after its second page.
    const rows = Array.from({ length: 7 }, (_, i) => visit(String(i % 3), `2026-06-0${i + 1}T09:00:00`));
    const { client, asked } = api(() => rows, 2, { call: 1, afterPages: 2 });
    const store = new MemoryStateStore();
    const session = await openSession(store, CLUB.clubId);
    const deps = { client, store: session, nowMs: NOW, deadlineMs: Infinity };
    // Act
    const first = await readVisitHistory(deps, CLUB, 14);
    const second = await readVisitHistory({ ...deps, nowMs: NOW + 60_000 }, CLUB, 14);
    if (second.done) await clearVisitHistory(session, second.storedVersion);
    // Assess
    expect(first).toMatchObject({ done: false, pages: 2, reason: expect.stringContaining('4 rows so far') });
    expect(asked.map((a) => a.startOffset)).toEqual([0, 4]);
    expect(second).toMatchObject({ done: true, from: '2026-05-27T12:00:00', storedVersion: 1 });
    expect(second.done && Object.fromEntries(second.lastVisits)).toEqual({
      '0': '2026-06-07T09:00:00',
      '1': '2026-06-05T09:00:00',
      '2': '2026-06-06T09:00:00',
    });
    expect((await store.parts.lifecycle.getLifecycle(CLUB.clubId, 'history'))?.doc).toEqual({
      history: 1,
      done: true,
    });
  });

  it('reads the history once more when a row is read twice (a row may have been skipped)', async () => {
    // Prepare: a row is inserted at the front while the first read pages: the third page repeats one.
    let rows = [
      visit('1', '2026-06-01T09:00:00'),
      visit('2', '2026-06-02T09:00:00'),
      visit('3', '2026-06-03T09:00:00'),
    ];
    const reads = { n: 0 };
    const { client, asked } = api(() => {
      reads.n++;
      if (reads.n === 2) rows = [visit('4', '2026-06-04T09:00:00'), ...rows];
      return rows;
    }, 2);
    // Act
    const read = await readVisitHistory(
      {
        client,
        store: await openSession(new MemoryStateStore(), CLUB.clubId),
        nowMs: NOW,
        deadlineMs: Infinity,
      },
      CLUB,
      14,
    );
    // Assess
    expect(asked.map((a) => a.startOffset)).toEqual([0, 0]);
    expect(read.done && [...read.lastVisits.keys()].sort()).toEqual(['1', '2', '3', '4']);
  });

  it('does not start this close to the deadline', async () => {
    const { client, asked } = api(() => [], 500);
    const store = new MemoryStateStore();
    const read = await readVisitHistory(
      { client, store: await openSession(store, CLUB.clubId), nowMs: NOW, deadlineMs: Date.now() + 1000 },
      CLUB,
      14,
    );
    expect(read).toMatchObject({ done: false, pages: 0 });
    expect(asked).toEqual([]);
    expect(await store.parts.lifecycle.getLifecycle(CLUB.clubId, 'history')).toBeUndefined();
  });
});
