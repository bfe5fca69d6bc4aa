/**
 * A sweep asks for its pages ahead (gym-api/pages-ahead.ts): payments' ten-day sweep, sized by the
 * rows the baseline read (`sweepRows`), asks for its next full pages side by side with the first,
 * makes no more requests than reading them one after another would, and publishes the same events
 * as a sweep that asks for nothing ahead. Sandbox over HTTP, dynalite, the real SDK.
 */
import { describe, expect, it } from 'vitest';
import { MemorySink } from '../../../lambdas/events/publisher';
import type { RequestEvent } from '../../../lambdas/gym-api';
import { SOURCES } from '../../../lambdas/sources';
import { clubContext, useEngineRig } from '../../support/engine-rig';
import { pollSourceInSession, seedCursor } from '../../support/state-seeds';

const HOUR = 3_600_000;
const source = SOURCES.paymentHistory;
const PAGE = 100;

describe('a sweep asks for its pages ahead', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 21,
      clubs: [{ clubId: 'club-1', timeZone: 'UTC', members: 1500 }],
      historyDays: 12,
      startTime: '2026-05-04T10:00:00Z',
    },
  });

  /** A store for the club's payments, its poll (pages of `PAGE`), its requests and events. */
  const setUp = async (name: string) => {
    const store = await rig.newStore(name);
    const sink = new MemorySink();
    const requests: RequestEvent[] = [];
    const club = { ...rig.firstClub(), sources: ['paymentHistory' as const] };
    const client = rig.clients.forClub(club, (e) => {
      if (e.kind === 'data') requests.push(e);
    });
    const deps = { store, sink, client, now: rig.now, owner: 'p' };
    const poll = () =>
      pollSourceInSession(deps, clubContext(club), source, { deadlineMs: rig.deadline(), pageSize: PAGE });
    const forgetSweepRows = async () => {
      const cursor = (await store.view(club.clubId).listCursors()).find((c) => c.source === 'paymentHistory');
      const { sweepRows: _dropped, ...stats } = cursor?.stats ?? {};
      await seedCursor(store, { ...cursor!, stats });
    };
    return { sink, requests, poll, forgetSweepRows };
  };

  it('asks ahead from the baseline rows, costs no extra request, publishes what a sweep one page at a time does', async () => {
    // Prepare: two stores of the same club, one of which forgets the baseline's row count.
    const ahead = await setUp('ahead');
    const alone = await setUp('alone');
    const baseline = await ahead.poll();
    await alone.poll();
    await alone.forgetSweepRows();
    rig.sandbox.advance(HOUR);
    ahead.requests.length = 0;
    alone.requests.length = 0;

    // Act: the sweep (due hourly), both ways.
    const swept = await ahead.poll();
    const sweptAlone = await alone.poll();

    // Assess
    console.log(
      baseline.records,
      swept.records,
      baseline.pages,
      swept.pages,
      ahead.requests.map((r) => [r.ahead ? 1 : 0, r.status, r.error]),
    );
    expect(baseline.records).toBeGreaterThan(5 * PAGE);
    expect(swept).toMatchObject({ outcome: 'completed', mode: 'sweep' });
    expect(sweptAlone).toMatchObject({ outcome: 'completed', mode: 'sweep', records: swept.records });
    expect(ahead.requests.filter((e) => e.ahead).length).toBeGreaterThanOrEqual(4);
    expect(alone.requests.filter((e) => e.ahead)).toHaveLength(0);
    // No page beyond the window was asked for: the same pages one after another read (the two
    // stores share the club's token: only the first sweep meets its expiry, a 401 and a retry).
    const answered = (requests: RequestEvent[]) => requests.filter((e) => e.status !== 401);
    expect(answered(ahead.requests)).toHaveLength(answered(alone.requests).length);
    expect(answered(ahead.requests)).toHaveLength(Math.floor(swept.records / PAGE) + 1);
    const ids = (sink: MemorySink) => sink.events.map((e) => e.detail.eventId).sort();
    expect(ids(ahead.sink)).toEqual(ids(alone.sink));
    expect(ids(ahead.sink).length).toBeGreaterThan(0);
  });
});
