/**
 * What a poll process keeps of the time zones it converts in (lambdas/common/zoned-time.ts): the
 * offsets of an hour, not of each minute, on the sandbox (real HTTP) and dynalite. A club's regular
 * poll a day after its first reads a day of records whose times fall on hundreds of distinct
 * minutes; the process keeps an entry or two per hour they span, so a batch of clubs in many zones
 * holds kilobytes a zone for the life of the process, not megabytes (per minute, a month of a
 * typical club's records held about 1.5 MB a zone: docs/operations.md, "The poll function's memory").
 */
import { describe, expect, it } from 'vitest';
import { zoneCacheEntries } from '../../../lambdas/common/zoned-time';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { useEngineRig } from '../../support/engine-rig';

const ZONE = 'Australia/Adelaide';
const DAY_MS = 86_400_000;

describe("the process's time-zone caches", () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 23,
      clubs: [{ clubId: 'club-1', members: 1000, timeZone: ZONE }],
      historyDays: 30,
      // No transition in the month before nor in the day after (Adelaide: October to April is summer).
      startTime: '2026-11-20T02:00:00Z',
    },
    pollMs: 120_000,
  });

  it("a day's records cost an entry or two an hour of that day, not one a minute", async () => {
    // Prepare: the club's first poll, then a day of its activity
    const store = await rig.newStore('zones');
    const club = rig.firstClub();
    const deps = { store, sink: new MemorySink(), clients: rig.clients, now: rig.now, owner: 'zones' };
    const first = await pollClub(deps, club, { deadlineMs: rig.deadline() });
    rig.sandbox.advance(DAY_MS);
    const before = zoneCacheEntries(ZONE);

    // Act
    const next = await pollClub(deps, club, { deadlineMs: rig.deadline() });
    const added = zoneCacheEntries(ZONE) - before;

    // Assess: both polls complete; the day's records read; at most an offset, a local reading and a
    // neighbour's offset an hour of the day (and its edges), however many minutes the records fall on
    expect(club.timeZone).toBe(ZONE);
    for (const report of [first, next])
      expect(report.sources.every((s) => s.outcome === 'completed')).toBe(true);
    const records = next.sources.reduce((n, s) => n + (s.records ?? 0), 0);
    expect(records).toBeGreaterThan(500);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(3 * 26);
  }, 180_000);
});
