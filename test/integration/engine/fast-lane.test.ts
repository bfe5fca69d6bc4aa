/**
 * The fast lane's probes through the one message path (pollClubMessage), on the sandbox (real HTTP)
 * and dynalite: the minute's poll pays for its probes (counted in the quota, marked on the visits
 * cursor); a quiet probe asks once and writes nothing; a probe that finds a visit publishes it in
 * a session; one answered with rows published before (offset ignored) moves no count; a probe
 * nobody paid for asks nothing; a probe the API refuses turns the lane off.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import type { PollMessage } from '../../../lambdas/common/deployment-contract';
import { monthOf } from '../../../lambdas/common/time-units';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClubMessage } from '../../../lambdas/engine/poll-message/poll-club-message';
import { probesRefused, tailCountOf } from '../../../lambdas/engine/scan/tail-probe';
import {
  activityPeriod,
  probesPaidUntil,
  recentVisitsPerHour,
} from '../../../lambdas/engine/schedule/fast-lane';
import { clubFastLane } from '../../../lambdas/engine/schedule/scheduling';
import { DETAIL_TYPES } from '../../../lambdas/events/catalog';
import { MemorySink } from '../../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../../lambdas/state';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import { useEngineRig } from '../../support/engine-rig';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('the fast lane', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 41,
      clubs: [{ clubId: 'club-1', timeZone: 'Europe/London', members: 60, open24h: true }],
      historyDays: 1,
      startTime: '2026-05-06T17:00:00Z',
      activityScale: 30,
    },
    pollMs: 30_000,
  });
  let club: ClubConfig;
  let store: BridgeStateStore;
  let calls: Map<string, number>;
  let sink: MemorySink;
  let badOffset = false;

  beforeEach(async () => {
    club = { ...parseClubsFile(rig.sandbox.clubsFile())[0]!, sources: ['visits'] };
    calls = new Map();
    sink = new MemorySink();
    badOffset = false;
    const inner = new DynamoDbStateStore({ client: rig.db.client, tableName: await rig.newTable('fast') });
    store = decorateStore(inner, (method, _args, call) => {
      calls.set(method, (calls.get(method) ?? 0) + 1);
      return call();
    });
  });

  const requests = () => rig.sandbox.requestCounts(club.clubId).used;
  const handle = (message: Omit<PollMessage, 'clubId' | 'dispatchedAt'>) =>
    pollClubMessage(
      {
        store,
        sink,
        now: rig.now,
        loadClub: async () => ({ status: 'ready', config: club }),
        clients: new GymApiClientFactory({
          retry: { baseDelayMs: 1, maxDelayMs: 5 },
          // An API that refuses an offset past the end, when asked to.
          fetch: (input, init) => {
            const url = new URL(String(input));
            if (badOffset && Number(url.searchParams.get('offset') ?? 0) > 0)
              return Promise.resolve(new Response('{"error":"offset"}', { status: 400 }));
            return fetch(input, init);
          },
        }),
      },
      { clubId: club.clubId, dispatchedAt: new Date(rig.now()).toISOString(), ...message },
      { deadlineMs: rig.deadline(), owner: `fast-${Date.now()}-${Math.random()}` },
    );
  const visitsCursor = async () =>
    (await store.view(club.clubId).listCursors()).find((c) => c.source === 'visits')!;
  const quota = () => store.view(club.clubId).getQuotaUsage(monthOf(rig.now()));
  const minutePoll = (paidForMs = MINUTE) =>
    handle({
      sources: ['visits'],
      probes: { count: 3, until: new Date(rig.now() + paidForMs).toISOString() },
    });
  const probe = () => handle({ sources: ['visits'], lane: 'fast' });

  /** The baseline, a whole tail, and a minute poll that pays for three probes. */
  async function steady(paidForMs = MINUTE) {
    await handle({ sources: ['visits'] });
    rig.sandbox.advance(MINUTE);
    await handle({ sources: ['visits'] });
    rig.sandbox.advance(MINUTE);
    const before = { requests: requests(), quota: await quota() };
    const paid = await minutePoll(paidForMs);
    return { before, paid };
  }

  it('pays for its probes in the minute poll: counted in the quota, marked on the visits cursor', async () => {
    // Prepare + Act
    const { before, paid } = await steady();

    // Assess
    const made = requests() - before.requests;
    expect(paid.outcome).toBe('polled');
    expect((await quota()) - before.quota).toBe(made + 3);
    const visits = await visitsCursor();
    expect(probesPaidUntil(visits)).toBe(rig.now() + MINUTE);
    expect(tailCountOf(visits)).toBeDefined();
    // At the period the club's visits of the last hour are worth (15, 20 or 30 s).
    const rate = recentVisitsPerHour(visits, rig.now() + MINUTE);
    expect(rate).toBeGreaterThan(0);
    expect(clubFastLane(club, [visits], await quota(), rig.now() + MINUTE)).toMatchObject({
      on: true,
      periodMs: activityPeriod(rate),
    });
  }, 60_000);

  it('a quiet probe asks once, opens no session and writes nothing', async () => {
    await steady();
    const quotaBefore = await quota();
    const before = requests();
    const eventsBefore = sink.events.length;
    calls.clear();

    const result = await probe();

    expect(result.outcome).toBe('polled');
    expect(result.report?.sources).toEqual([
      expect.objectContaining({ source: 'visits', mode: 'probe', pages: 1 }),
    ]);
    expect(requests() - before).toBe(1);
    expect(Object.fromEntries(calls)).toEqual({ readClubStates: 1 });
    expect(await quota()).toBe(quotaBefore); // paid by the minute poll already
    expect(sink.events).toHaveLength(eventsBefore);
  }, 60_000);

  it('a probe that finds a visit publishes it in a session, with the same eventId the minute poll would give', async () => {
    await steady(10 * MINUTE);
    const journalBefore = rig.sandbox.journal.lastSeq;
    // 15 s at a time until a visit comes (a busy club: moments).
    const visitCame = () => rig.sandbox.journal.entries(journalBefore).some((e) => e.kind === 'visit');
    for (let i = 0; i < 30 && !visitCame(); i++) rig.sandbox.advance(15 * SECOND);
    const newVisits = new Set(
      rig.sandbox.journal
        .entries(journalBefore)
        .flatMap((e) => (e.kind === 'visit' ? [`${e.memberNumber}|${e.visitDateTime}|${e.door}`] : [])),
    );
    expect(newVisits.size).toBeGreaterThan(0);
    const quotaBefore = await quota();
    const before = requests();
    const eventsBefore = sink.events.length;
    calls.clear();

    const cursorBefore = await visitsCursor();
    const result = await probe();

    const published = sink.events
      .slice(eventsBefore)
      .filter((e) => e.detailType === DETAIL_TYPES.MemberVisitRecorded);
    expect(published).toHaveLength(newVisits.size);
    // The probe's one request brought the rows: the session reads nothing more, and writes its
    // lease, its close, the seen entries and nothing of the tail (no digest, no cursor of its own).
    expect(requests() - before).toBe(1);
    expect((await quota()) - quotaBefore).toBe(0); // paid by the minute poll
    expect(result.report?.sources).toEqual([
      expect.objectContaining({ source: 'visits', mode: 'lane', pages: 1, events: published.length }),
    ]);
    expect(calls.get('openClub')).toBe(1);
    expect(calls.get('putSeenAt')).toBe(1);
    expect(calls.has('putSeenDigest')).toBe(false);
    expect(calls.has('getSeenDigest')).toBe(false);
    // The watermark stays the minute poll's; the tail's count moves past the rows read, so the
    // next probe asks for the rows after them.
    const cursorAfter = await visitsCursor();
    expect(cursorAfter.watermark).toBe(cursorBefore.watermark);
    const counted = tailCountOf(cursorBefore)!;
    expect(tailCountOf(cursorAfter)).toEqual({ ...counted, rows: counted.rows + newVisits.size });
    calls.clear();
    const next = await probe();
    expect(next.report?.sources[0]).toMatchObject({ mode: 'probe' });
    expect(Object.fromEntries(calls)).toEqual({ readClubStates: 1 });
    expect(result.report?.lifecycle).toBeUndefined();
    // The minute poll after it (the clock has not moved) publishes none of them again.
    const afterProbe = sink.events.length;
    await minutePoll();
    const again = sink.events
      .slice(afterProbe)
      .filter((e) => e.detailType === DETAIL_TYPES.MemberVisitRecorded);
    expect(again).toHaveLength(0);
  }, 60_000);

  it('a probe answered with the first rows again (offset ignored) moves no count; the next finds the visit that comes', async () => {
    await steady(10 * MINUTE);
    const counted = tailCountOf(await visitsCursor())!;
    const eventsBefore = sink.events.length;
    rig.sandbox.faults.poison = { offsetIgnored: 1, episodeRequests: 1 };
    try {
      await probe();
    } finally {
      rig.sandbox.faults.poison = false;
    }
    // Every row of the answer was published before: none again, and the count stays.
    expect(rig.sandbox.poison.log.entries().some((e) => e.kind === 'offsetIgnored')).toBe(true);
    expect(sink.events).toHaveLength(eventsBefore);
    expect(tailCountOf(await visitsCursor())).toEqual(counted);

    const journalBefore = rig.sandbox.journal.lastSeq;
    const visitCame = () => rig.sandbox.journal.entries(journalBefore).some((e) => e.kind === 'visit');
    for (let i = 0; i < 30 && !visitCame(); i++) rig.sandbox.advance(15 * SECOND);
    const came = rig.sandbox.journal.entries(journalBefore).filter((e) => e.kind === 'visit').length;
    expect(came).toBeGreaterThan(0);
    const result = await probe();
    expect(result.report?.sources[0]).toMatchObject({ mode: 'lane', events: came });
  }, 60_000);

  it('asks nothing when no minute poll paid for it', async () => {
    await steady();
    rig.sandbox.advance(MINUTE + SECOND); // past the paid minute
    const before = requests();

    const result = await probe();

    expect(requests()).toBe(before);
    expect(result.report?.sources[0]).toMatchObject({
      outcome: 'skipped',
      reason: 'no minute poll paid for this probe',
    });
  }, 60_000);

  it('turns the lane off for the club when the API refuses a probe', async () => {
    await steady();
    badOffset = true;

    const result = await probe();

    expect(result.outcome).toBe('polled');
    const visits = await visitsCursor();
    expect(probesRefused(visits)).toBe(true);
    expect(clubFastLane(club, [visits], await quota(), rig.now() + MINUTE)).toMatchObject({
      on: false,
      reason: 'not-steady',
    });
  }, 60_000);
});
