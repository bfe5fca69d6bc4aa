/**
 * A snapshot's time is when the bridge read the page that holds it (lambdas/engine/scan/
 * state-detection.ts), not when the poll began: a record read later in a poll may show a change made
 * after the poll began, and the lifecycle rules take the snapshot's time as the moment its subject
 * came to qualify (docs/lifecycle.md, "Baseline and late qualifiers"). Here the clock moves on 20
 * seconds while a poll reads the prospects: the pages read after it carry the later time. Sandbox
 * over HTTP, dynalite, real SDK.
 */
import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../lambdas/events/publisher';
import { useEngineRig } from '../../support/engine-rig';

const JUMP_MS = 20_000;
const PAGE = 3;

/** Set by the test: called after each prospects page the bridge fetched. */
let afterProspectsPage: (() => void) | undefined;

const rig = useEngineRig({
  sandbox: { seed: 5, clubs: [{ clubId: 'club-1', members: 120 }] },
  clients: {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (/\/prospects/i.test(String(input))) afterProspectsPage?.();
      return response;
    },
  },
});

describe('snapshot times', () => {
  it('are the time each page was read, so a change read late in a poll is not dated at its start', async () => {
    // Prepare
    const store = await rig.newStore('read-time');
    const club: ClubConfig = { ...rig.firstClub(), sources: ['prospects'] };
    const ids = rig.sandbox.records('club-1', 'prospects').map((p) => String(p.Number ?? p.ProspectNumber));
    expect(ids.length).toBeGreaterThan(2 * PAGE);
    const startMs = rig.now();
    let pages = 0;
    afterProspectsPage = () => {
      pages++;
      if (pages === 1) rig.sandbox.advance(JUMP_MS);
    };

    // Act
    const report = await pollClub(
      { store, sink: new MemorySink(), clients: rig.clients, owner: 't', now: rig.now },
      club,
      { deadlineMs: rig.deadline(), pageSize: PAGE },
    );
    afterProspectsPage = undefined;

    // Assess: the first page's snapshots at the poll's start, every later page's after the jump.
    expect(report.failures).toEqual([]);
    expect(pages).toBeGreaterThan(2);
    const snapshots = await store.parts.snapshots.getSnapshots(club.clubId, 'PROSPECT', ids);
    const times = [...snapshots.values()].map((s) => Date.parse(s.updatedAt));
    expect(times.length).toBeGreaterThan(2 * PAGE);
    expect(times.filter((t) => t === startMs).length).toBeLessThanOrEqual(PAGE);
    expect(times.filter((t) => t >= startMs + JUMP_MS).length).toBeGreaterThanOrEqual(times.length - PAGE);
    for (const t of times) expect(t).toBeLessThanOrEqual(rig.now());
  });
});
