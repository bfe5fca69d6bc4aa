/**
 * The lifecycle evaluation in the club poll (docs/lifecycle.md, "State and schedule"): once per
 * hour, after the sources, silent the first time, never in a poll whose lifecycle sources did not
 * complete, never when the club turns it off, and the same eventIds again after a failure between
 * publishing and keeping the document. Sandbox over HTTP, dynalite over a socket, the real SDK.
 */

import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { HOUR_MS } from '../../../lambdas/common/time-units';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import {
  evaluationHourOf,
  evaluationHourStartMs,
  LIFECYCLE_SOURCES as FOUR_SOURCES,
  lifecycleSlot,
} from '../../../lambdas/lifecycle/club-lifecycle';
import { type StateStore, StoreError } from '../../../lambdas/state';
import { decorateStore } from '../../../lambdas/state/state-store';
import { useEngineRig } from '../../support/engine-rig';

const LIFECYCLE_SOURCES: ClubConfig['sources'] = [...FOUR_SOURCES];

describe('the lifecycle evaluation of a club poll', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 19,
      clubs: [{ clubId: 'club-1', timeZone: 'America/New_York', members: 200 }],
      historyDays: 2,
      startTime: '2026-03-05T14:20:00Z', // DST starts in New York on 2026-03-08
      activityScale: 4,
    },
  });

  const clubWith = (lifecycle: ClubConfig['lifecycle'], sources = LIFECYCLE_SOURCES): ClubConfig => ({
    ...rig.firstClub(),
    sources,
    ...(lifecycle ? { lifecycle } : {}),
  });
  const poll = (store: StateStore, sink: MemorySink, club: ClubConfig, extra = {}) =>
    pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, club, {
      deadlineMs: rig.deadline(),
      ...extra,
    });
  const lifecycleEvents = (sink: MemorySink) => sink.events.filter((e) => e.detail.source === 'lifecycle');

  it('evaluates silently first, once an hour after, and publishes the facts as they come due', async () => {
    // Prepare
    const store = await rig.newStore('hourly');
    const sink = new MemorySink();
    const club = clubWith({ enabled: true, inactiveDays: 2, expiringDays: 14, trialEndingHours: 24 });

    // Act: from a minute into the club's rebase slot hour (`lifecycleSlot`, club-lifecycle.ts), the baseline poll, a
    // second poll in the same hour, then 4 days polled every 3 hours.
    const id = club.clubId;
    const next = evaluationHourOf(id, rig.now()) + 1;
    const slotHour = next + ((((lifecycleSlot(id).rebaseHour - next) % 12) + 12) % 12);
    rig.sandbox.advance(evaluationHourStartMs(id, slotHour) + 60_000 - rig.now());
    const first = await poll(store, sink, club);
    rig.sandbox.advance(10 * 60_000);
    const sameHour = await poll(store, sink, club);
    const reports = [];
    for (let i = 0; i < 32; i++) {
      rig.sandbox.advance(3 * HOUR_MS);
      reports.push(await poll(store, sink, club));
    }

    // Assess
    // The first evaluation read the visit history of inactiveDays once (a few pages here).
    expect(first.lifecycle).toEqual({
      outcome: 'evaluated',
      published: 0,
      ms: expect.any(Number),
      read: 'all',
      nextAtMs: expect.any(Number),
      historyRequests: expect.any(Number),
    });
    expect(reports.every((r) => r.lifecycle?.outcome === 'evaluated' && !r.lifecycle.historyRequests)).toBe(
      true,
    );
    expect(sameHour.lifecycle).toBeUndefined();
    expect(reports.every((r) => r.lifecycle?.outcome === 'evaluated')).toBe(true);
    // What the polls noted in between, and everything every 12 hours (the 4th poll 3 hours apart).
    const reads = reports.map((r) => (r.lifecycle?.outcome === 'evaluated' ? r.lifecycle.read : '?'));
    expect(reads.join(' ')).toBe(Array.from({ length: 8 }, () => 'noted noted noted all').join(' '));
    const events = lifecycleEvents(sink);
    const types = new Set(events.map((e) => e.detailType));
    expect(types).toContain('Member Inactive');
    expect(types).toContain('Member Returned');
    expect(new Set(events.map((e) => e.detail.eventId)).size).toBe(events.length);
    const journal = rig.sandbox.journal.entries();
    const reactivated = (member: string | undefined, fromMs: number, toMs: number) =>
      journal.some(
        (j) =>
          j.kind === 'memberStatusChanged' &&
          j.memberNumber === member &&
          j.current === 'Active' &&
          Date.parse(j.at) > fromMs &&
          Date.parse(j.at) <= toMs,
      );
    for (const e of events.filter((x) => x.detailType === 'Member Inactive')) {
      // Announced by the first evaluation after its moment (the 3 hours between two polls), or by
      // the first after the member became Active again.
      const [occurred, observed] = [Date.parse(e.detail.occurredAt), Date.parse(e.detail.observedAt)];
      expect(observed).toBeGreaterThanOrEqual(occurred);
      if (!reactivated(e.detail.subject.memberNumber, occurred, observed))
        expect(observed - occurred).toBeLessThanOrEqual(3 * HOUR_MS);
      expect(e.detail).toMatchObject({ thresholdDays: 2 });
    }
    const stored = await store.parts.lifecycle.getLifecycle(club.clubId);
    expect(stored?.doc).toMatchObject({ version: 1, trackedSince: expect.any(String) });
  });

  it('a base this release cannot read (a later release, a damaged item) is replaced by a silent evaluation, not failed every hour', async () => {
    // Prepare: two evaluations, then a base of a release after this one.
    const store = await rig.newStore('unreadable-base');
    const sink = new MemorySink();
    const club = clubWith({ enabled: true, inactiveDays: 2, expiringDays: 14, trialEndingHours: 24 });
    await poll(store, sink, club);
    rig.sandbox.advance(3 * HOUR_MS);
    await poll(store, sink, club);
    const before = await store.parts.lifecycle.getLifecycle(club.clubId);
    await store.parts.lifecycle.putLifecycle(
      club.clubId,
      { version: 2, written: 'by a later release' },
      before!.version,
    );

    // Act
    rig.sandbox.advance(3 * HOUR_MS);
    const over = await poll(store, sink, club);
    rig.sandbox.advance(3 * HOUR_MS);
    const after = await poll(store, sink, club);

    // Assess: the unreadable base's evaluation is a silent first one, the next reads what was noted.
    expect(over.failures).toEqual([]);
    expect(over.lifecycle).toMatchObject({ outcome: 'evaluated', published: 0, read: 'all' });
    expect(after.lifecycle).toMatchObject({ outcome: 'evaluated', read: 'noted' });
    expect((await store.parts.lifecycle.getLifecycle(club.clubId))?.doc).toMatchObject({ version: 1 });
  });

  it('after a failure between publishing and keeping the document, publishes the same eventIds again, no other', async () => {
    // Prepare: a store whose lifecycle document cannot be written once its events are kept (the
    // write after publishing) while `broken` is set.
    const base = await rig.newStore('retry');
    let broken = false;
    const store = decorateStore(base, (method, args, call) => {
      const doc = args[1] as { facts?: unknown[] } | undefined;
      return method === 'putLifecycle' && broken && !doc?.facts
        ? Promise.reject(new StoreError('injected'))
        : call();
    });
    const club = clubWith({ enabled: true, inactiveDays: 1, expiringDays: 14, trialEndingHours: 24 });
    await poll(store, new MemorySink(), club);
    rig.sandbox.advance(26 * HOUR_MS);
    const failedSink = new MemorySink();

    // Act
    broken = true;
    const failed = await poll(store, failedSink, club);
    broken = false;
    rig.sandbox.advance(60_000); // the same hour: not marked evaluated, so evaluated again
    const retrySink = new MemorySink();
    const retried = await poll(store, retrySink, club);

    // Assess
    expect(failed.lifecycle).toMatchObject({ outcome: 'failed', error: expect.stringContaining('injected') });
    expect(failed.outcome).toBe('ok');
    const ids = (sink: MemorySink) => lifecycleEvents(sink).map((e) => e.detail.eventId);
    expect(ids(failedSink).length).toBeGreaterThan(0);
    expect(retried.lifecycle?.outcome).toBe('evaluated');
    // The retry finds the same facts; it may find more (visits of the minute), never another id for them.
    expect(ids(retrySink)).toEqual(expect.arrayContaining(ids(failedSink)));
    expect((await base.parts.lifecycle.getLifecycle(club.clubId))?.doc).not.toHaveProperty('facts');
    expect((await base.parts.lifecycle.getLifecycle(club.clubId, 'delta'))?.doc).not.toHaveProperty('facts');
    const again = new MemorySink();
    rig.sandbox.advance(HOUR_MS);
    await poll(store, again, club);
    expect(ids(again).filter((id) => ids(retrySink).includes(id))).toEqual([]);
  });

  it('waits while a source it reads is missing or has not completed; never runs when the club turns it off or in a backfill', async () => {
    // Prepare
    const store = await rig.newStore('ready');
    const sink = new MemorySink();

    // Act
    const noVisits = await poll(store, sink, clubWith(undefined, ['members', 'prospects']));
    const off = await poll(
      store,
      sink,
      clubWith({ enabled: false, inactiveDays: 14, expiringDays: 14, trialEndingHours: 24 }),
    );
    const backfill = await poll(store, sink, clubWith(undefined), { backfillFromMs: rig.now() - 86_400_000 });
    rig.sandbox.failNext(20, 503, { pathPrefix: '/members/attendance/visits' });
    const visitsFailing = await poll(store, sink, clubWith(undefined));
    rig.sandbox.clearFailures();

    // Assess
    expect(noVisits.lifecycle).toEqual({
      outcome: 'waiting',
      reason: 'lifecycle events need the members and visits sources',
    });
    expect(off.lifecycle).toBeUndefined();
    expect(backfill.lifecycle).toBeUndefined();
    expect(visitsFailing.lifecycle).toMatchObject({
      outcome: 'waiting',
      reason: expect.stringMatching(/visits/),
    });
    expect(await store.parts.lifecycle.getLifecycle(rig.firstClub().clubId)).toBeUndefined();
    expect(lifecycleEvents(sink)).toEqual([]);
  });
});
