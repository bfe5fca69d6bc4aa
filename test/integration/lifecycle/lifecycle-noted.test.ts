/**
 * The lifecycle evaluation reads what the polls noted (docs/lifecycle.md, "What an evaluation
 * reads"): the kept view and the subjects written since, the visits since the base and the payments
 * filed since. It must find exactly what reading everything finds: two stores poll the same sandbox
 * club at the same moments, one evaluating from its notes, the other reading everything every hour,
 * and publish the same lifecycle eventIds. A poll that stops without its closing write (its notes
 * lost) makes the next evaluation read everything. Sandbox over HTTP, dynalite, the real SDK.
 */

import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { HOUR_MS } from '../../../lambdas/common/time-units';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { LIFECYCLE_SOURCES } from '../../../lambdas/lifecycle/club-lifecycle';
import { type BridgeStateStore, decorateStore } from '../../../lambdas/state/state-store';
import type { ClubStateSession, ClubStateStore } from '../../../lambdas/state/store';
import { useEngineRig } from '../../support/engine-rig';

/** The store whose sessions answer `key` with `replaced` (the rest is the session's own). */
function sessionsWith(
  inner: BridgeStateStore,
  key: keyof ClubStateSession,
  replaced: unknown,
): BridgeStateStore {
  return decorateStore(inner, (_method, _args, call) => call(), {
    openClub: async (...args: Parameters<ClubStateStore['openClub']>) => {
      const session = await inner.parts.clubs.openClub(...args);
      if (!session) return session;
      return new Proxy(session, {
        get: (target, name) => {
          if (name === key) return replaced;
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  });
}

/** Every session's notes say `full`: each evaluation reads everything. */
const readingEverything = (inner: BridgeStateStore) =>
  sessionsWith(inner, 'lifecycleNotes', () => ({ full: true }));
/** The sessions never write their close: the poll's process stopped before it. */
const stoppingBeforeClose = (inner: BridgeStateStore) =>
  sessionsWith(inner, 'close', () => Promise.reject(new Error('the process stopped')));

describe('the lifecycle evaluation from the notes', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 23,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', members: 200 }],
      historyDays: 2,
      startTime: '2026-04-02T09:10:00Z', // DST ends in Sydney on 2026-04-05
      activityScale: 4,
    },
  });
  const club = (): ClubConfig => ({
    ...rig.firstClub(),
    sources: [...LIFECYCLE_SOURCES],
    lifecycle: { enabled: true, inactiveDays: 1, expiringDays: 30, trialEndingHours: 48 },
  });
  const poll = (store: BridgeStateStore, sink: MemorySink) =>
    pollClub({ store, sink, clients: rig.clients, owner: 't', now: rig.now }, club(), {
      deadlineMs: rig.deadline(),
    });
  // A stop publishes the same events again: the same ids.
  const ids = (sink: MemorySink) =>
    [
      ...new Set(sink.events.filter((e) => e.detail.source === 'lifecycle').map((e) => e.detail.eventId)),
    ].sort();

  it('publishes exactly the eventIds reading everything does, and reads everything after a stop', async () => {
    // Prepare
    const noted = await rig.newStore('noted');
    const everything = readingEverything(await rig.newStore('everything'));
    const [notedSink, everythingSink] = [new MemorySink(), new MemorySink()];

    // Act: both poll at the same moments, hourly for two days; one noted poll stops before its close.
    const reads: string[] = [];
    let afterStop: string | undefined;
    for (let hour = 0; hour < 40; hour++) {
      const stop = hour === 20;
      const report = await poll(stop ? stoppingBeforeClose(noted) : noted, notedSink).catch(() => undefined);
      await poll(everything, everythingSink);
      if (report?.lifecycle?.outcome === 'evaluated') reads.push(report.lifecycle.read);
      rig.sandbox.advance(stop ? 60_000 : HOUR_MS);
      if (stop) {
        const next = await poll(noted, notedSink);
        afterStop = next.lifecycle?.outcome === 'evaluated' ? next.lifecycle.read : next.lifecycle?.outcome;
        rig.sandbox.advance(HOUR_MS - 60_000);
      }
    }

    // Assess
    expect(ids(everythingSink).length).toBeGreaterThan(5);
    expect(ids(notedSink)).toEqual(ids(everythingSink));
    expect(reads.filter((r) => r === 'noted').length).toBeGreaterThan(30);
    expect(afterStop).toBe('all');
  });
});
