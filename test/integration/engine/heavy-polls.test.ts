/**
 * Heavy club polls a few at a time (lambdas/engine/club-poll/heavy-polls.ts), on the sandbox (real
 * HTTP) and dynalite: a full batch of new clubs (the most a poll message carries, records twice the
 * sandbox's size) polled side by side all record their baselines within one poll's deadline, never
 * more than HEAVY_POLL_SLOTS at once; a heavy poll that gets no slot before its deadline polls
 * nothing, says why, and releases its lease, and its next poll records the baseline. Regular polls
 * take no slot.
 */
import { describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../lambdas/clubs/club-config';
import { MAX_CLUBS_PER_MESSAGE } from '../../../lambdas/common/deployment-contract';
import { HEAVY_POLL_SLOTS, heavyPolls } from '../../../lambdas/engine/club-poll/heavy-polls';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { useEngineRig } from '../../support/engine-rig';

/** A full batch: the most clubs one poll message (one invocation's share) carries. */
const CLUBS = MAX_CLUBS_PER_MESSAGE;

describe('heavy club polls', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 41,
      clubs: Array.from({ length: CLUBS }, (_, i) => ({ clubId: `club-${i + 1}`, members: 30 })),
      historyDays: 1,
      startTime: '2026-05-04T08:00:00Z',
      recordScale: 2,
    },
    pollMs: 60_000,
  });

  it('a full batch of new clubs: every baseline recorded in one poll, at most HEAVY_POLL_SLOTS at once', async () => {
    // Prepare
    const store = await rig.newStore('heavy');
    const clubs = parseClubsFile(rig.sandbox.clubsFile());
    let leastFree = HEAVY_POLL_SLOTS;
    const sampler = setInterval(() => {
      leastFree = Math.min(leastFree, heavyPolls.free);
    }, 1);
    const deps = { store, sink: new MemorySink(), clients: rig.clients, now: rig.now };

    // Act
    const reports = await Promise.all(
      clubs.map((club, i) =>
        pollClub({ ...deps, owner: `heavy-${i}` }, club, { deadlineMs: rig.deadline() }),
      ),
    ).finally(() => clearInterval(sampler));
    const regular = await pollClub({ ...deps, owner: 'regular' }, clubs[0]!, { deadlineMs: rig.deadline() });

    // Assess: all completed; the slots ran out and came back; a regular poll took none
    expect(CLUBS).toBeGreaterThan(HEAVY_POLL_SLOTS);
    expect(reports.map((r) => r.outcome)).toEqual(clubs.map(() => 'ok'));
    for (const report of reports) {
      expect(report.sources.every((s) => s.outcome === 'completed')).toBe(true);
      expect(report.sources.every((s) => s.quarantined === 0)).toBe(true);
    }
    for (const club of clubs) {
      const cursors = await store.view(club.clubId).listCursors();
      expect(cursors.length).toBeGreaterThan(0);
      expect(cursors.every((c) => c.baselineDone)).toBe(true);
    }
    expect(leastFree).toBe(0);
    expect(heavyPolls.free).toBe(HEAVY_POLL_SLOTS);
    expect(regular.sources.every((s) => s.outcome === 'completed')).toBe(true);
  }, 120_000);

  it('no slot before the deadline: nothing polled, the reason said, the lease released', async () => {
    // Prepare: every slot held elsewhere
    const store = await rig.newStore('heavy-wait');
    const club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    const held = await Promise.all(
      Array.from({ length: HEAVY_POLL_SLOTS }, () => heavyPolls.acquire({ waitMs: 0 })),
    );
    const deps = { store, sink: new MemorySink(), clients: rig.clients, now: rig.now };

    // Act: a deadline just past the wait margin
    const waited = await pollClub({ ...deps, owner: 'waiting' }, club, { deadlineMs: Date.now() + 5_200 });
    for (const release of held) if (typeof release === 'function') release();
    const next = await pollClub({ ...deps, owner: 'next' }, club, { deadlineMs: rig.deadline() });

    // Assess
    expect(waited.outcome).toBe('ok');
    expect(waited.requests).toBe(0);
    expect(waited.sources.length).toBeGreaterThan(0);
    expect(new Set(waited.sources.map((s) => s.reason))).toEqual(
      new Set(['no heavy-poll slot came free before the deadline']),
    );
    expect(next.sources.every((s) => s.outcome === 'completed')).toBe(true);
    expect((await store.view(club.clubId).listCursors()).every((c) => c.baselineDone)).toBe(true);
  }, 60_000);
});
