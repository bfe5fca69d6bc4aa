/**
 * Visits' minute polls with a tail probe (sources `tailProbe`, scan/tail-probe.ts, scan/lane-page.ts):
 * after a whole tail, a poll asks for the rows past its count and detects those alone; a full page
 * of them, a page with a row published before (not the rows past the count), or `fullEveryMs`, reads
 * the whole tail again. Sandbox over HTTP, dynalite, the real SDK.
 */

import { describe, expect, it } from 'vitest';
import { LANE_PAGE_ROWS } from '../../../lambdas/engine/scan/lane-page';
import { tailCountOf, withTailCount } from '../../../lambdas/engine/scan/tail-probe';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCES } from '../../../lambdas/sources';
import { clubContext, type EngineRig, useEngineRig } from '../../support/engine-rig';
import { openSession, pollSourceInSession } from '../../support/state-seeds';

const MINUTE = 60_000;
const source = SOURCES.visits;
const fullEveryMs = source.kind === 'append' ? (source.tailProbe?.fullEveryMs ?? 0) : 0;

/** A visits-only club's store, sink and poll on the rig, with what the tests count. */
async function setUpRig(rig: EngineRig, name: string) {
  const store = await rig.newStore(name);
  const sink = new MemorySink();
  const club = { ...rig.firstClub(), sources: ['visits' as const] };
  const deps = { store, sink, client: rig.clients.forClub(club, () => {}), now: rig.now, owner: 'p' };
  const poll = () => pollSourceInSession(deps, clubContext(club), source, { deadlineMs: rig.deadline() });
  const requests = () => rig.sandbox.requestCounts(club.clubId).used;
  const visits = () => sink.events.filter((e) => e.detailType === DETAIL_TYPES.MemberVisitRecorded);
  const journal = () => rig.sandbox.journal.lastSeq;
  const visitsSince = (seq: number) =>
    rig.sandbox.journal.entries(seq).filter((e) => e.kind === 'visit').length;
  return { store, club, poll, requests, visits, journal, visitsSince };
}

describe("visits' minute polls", () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 12,
      clubs: [{ clubId: 'club-1', timeZone: 'UTC', members: 1500 }],
      historyDays: 2,
      startTime: '2026-05-04T17:00:00Z', // the evening peak
      activityScale: 6,
    },
  });

  const setUp = (name: string) => setUpRig(rig, name);

  it('after a whole tail, each minute reads only the rows past its count, in one request, until fullEveryMs', async () => {
    const { poll, requests, visits, journal, visitsSince } = await setUp('rows-past');
    await poll(); // baseline
    rig.sandbox.advance(MINUTE);
    const whole = await poll();
    const modes: string[] = [];
    let published = 0;
    let came = 0;
    for (let t = MINUTE; t < fullEveryMs; t += MINUTE) {
      const seq = journal();
      rig.sandbox.advance(MINUTE);
      came += visitsSince(seq);
      const before = { requests: requests(), events: visits().length };
      const r = await poll();
      modes.push(String(r.mode));
      expect(requests() - before.requests).toBe(1);
      published += visits().length - before.events;
    }
    rig.sandbox.advance(MINUTE);
    const again = await poll();

    expect(whole.mode).toBe('tail');
    expect(came).toBeGreaterThan(0);
    expect(modes).toContain('lane');
    expect(modes.every((m) => m === 'lane' || m === 'probe')).toBe(true);
    expect(published).toBe(came);
    expect(again.mode).toBe('tail');
  });

  it('a full page past the count is detected, then the whole tail is read and counts its rows again; nothing is published twice', async () => {
    const { store, club, poll, requests, visits } = await setUp('full-page');
    await poll();
    rig.sandbox.advance(MINUTE);
    await poll();
    const eventsBefore = visits().length;
    // A count far behind the window (as if many visits came at once): the probe's page is full.
    const session = await openSession(store, club.clubId);
    const cursor = await session.getCursor('visits');
    const count = tailCountOf(cursor)!;
    expect(count.rows).toBeGreaterThan(LANE_PAGE_ROWS);
    await session.putCursor(withTailCount(cursor, { ...count, rows: count.rows - LANE_PAGE_ROWS - 5 }));
    await session.close();

    const before = requests();
    const r = await poll();

    expect(r.mode).toBe('tail');
    expect(requests() - before).toBeGreaterThan(1); // the probe, then the tail
    expect(visits().length).toBe(eventsBefore); // the clock did not move: all seen
    // The whole tail wrote its own count (its window's), not the one it was handed.
    const after = tailCountOf(await store.view(club.clubId).getCursor('visits'))!;
    expect(after.fromMs).toBeGreaterThanOrEqual(count.fromMs);
    expect(after.rows).toBeGreaterThan(count.rows - LANE_PAGE_ROWS);
    // The probe's full page was detected before the tail (no row a response brought is dropped).
    expect(r.records).toBe(LANE_PAGE_ROWS + after.rows);
  });
});

describe("visits' minute polls at a quiet club", () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 12,
      clubs: [{ clubId: 'club-1', timeZone: 'UTC', members: 300 }],
      historyDays: 1,
      startTime: '2026-05-04T11:00:00Z', // a weekday's late morning: a few visits a minute
    },
  });

  it('a probe answered with the first rows again (offset ignored) leaves the count where it was; no later visit is missed', async () => {
    const { store, club, poll, visits, journal, visitsSince } = await setUpRig(rig, 'offset-ignored');
    await poll(); // baseline
    rig.sandbox.advance(MINUTE);
    await poll(); // the whole tail: its count
    const view = () => store.view(club.clubId).getCursor('visits');
    const counted = tailCountOf(await view())!;
    // Fewer rows than a lane page: the first page again is not a full one (which reads the tail anyway).
    expect(counted.rows).toBeGreaterThan(0);
    expect(counted.rows).toBeLessThan(LANE_PAGE_ROWS);

    // The probe's request (one) is answered from offset 0: every row of it published already.
    const seq = journal();
    rig.sandbox.advance(MINUTE);
    rig.sandbox.faults.poison = { offsetIgnored: 1, episodeRequests: 1 };
    const before = visits().length;
    let bent: Awaited<ReturnType<typeof poll>>;
    try {
      bent = await poll();
    } finally {
      rig.sandbox.faults.poison = false;
    }
    const log = rig.sandbox.poison.log.entries().filter((e) => e.kind === 'offsetIgnored');
    expect(log[0]?.request?.offset).toBe(counted.rows);
    // The whole tail was read after it, and counted the rows there are.
    expect(bent.mode).toBe('tail');
    const windowRows = rig.sandbox.records(club.clubId, 'visits', {
      fromdate: new Date(tailCountOf(await view())!.fromMs).toISOString().slice(0, 19),
      limit: '500',
    }).length;
    expect(tailCountOf(await view())!.rows).toBe(windowRows);
    expect(visits().length - before).toBe(visitsSince(seq));

    // Later minutes probe past that count: every visit that comes is published.
    for (let i = 0; i < 3; i++) {
      const next = journal();
      rig.sandbox.advance(MINUTE);
      const was = visits().length;
      const r = await poll();
      expect(['probe', 'lane']).toContain(r.mode);
      expect(visits().length - was).toBe(visitsSince(next));
    }
  });
});
