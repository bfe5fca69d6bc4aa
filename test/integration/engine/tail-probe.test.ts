/**
 * The tail probe (scan/tail-probe.ts, docs/state.md "Tail probes"): disbursements' 32-hour tail is
 * read whole only when a one-row request past the last full tail's count finds a row, or every
 * `fullEveryMs`. Sandbox over HTTP (its daily settlement run at 06:00 local), dynalite, the real SDK.
 */

import { describe, expect, it } from 'vitest';
import { LANE_PAGE_ROWS } from '../../../lambdas/engine/scan/lane-page';
import { MemorySink } from '../../../lambdas/events/publisher';
import { SOURCES } from '../../../lambdas/sources';
import { clubContext, useEngineRig } from '../../support/engine-rig';
import { pollSourceInSession } from '../../support/state-seeds';

const MINUTE = 60_000;
const source = SOURCES.disbursements;
const fullEveryMs = source.kind === 'append' ? (source.tailProbe?.fullEveryMs ?? 0) : 0;

describe('the tail probe', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 11,
      clubs: [{ clubId: 'club-1', timeZone: 'UTC', members: 150 }],
      historyDays: 3,
      startTime: '2026-05-04T05:52:00Z', // the settlement run is at 06:00 local (UTC here)
      activityScale: 4,
    },
  });

  const setUp = async (name: string) => {
    const store = await rig.newStore(name);
    const sink = new MemorySink();
    const club = { ...rig.firstClub(), sources: ['disbursements' as const] };
    const deps = { store, sink, client: rig.clients.forClub(club, () => {}), now: rig.now, owner: 'p' };
    const poll = () => pollSourceInSession(deps, clubContext(club), source, { deadlineMs: rig.deadline() });
    const requests = () => rig.sandbox.requestCounts(club.clubId).used;
    return { store, sink, club, poll, requests };
  };

  it("reads the tail once, then probes: one request a poll, nothing read; the settlement run's rows come in the probe's answer", async () => {
    // Prepare: the baseline and a first (whole) tail.
    expect(fullEveryMs).toBeGreaterThan(5 * MINUTE);
    const { sink, poll, requests } = await setUp('probe');
    await poll();
    rig.sandbox.advance(MINUTE);
    const whole = await poll();

    // Act: quiet minutes, then past 06:00 (the run pays yesterday's payments out).
    const quiet = [];
    for (let i = 0; i < 3; i++) {
      rig.sandbox.advance(MINUTE);
      const before = requests();
      quiet.push({ report: await poll(), requests: requests() - before });
    }
    rig.sandbox.advance(5 * MINUTE); // 06:01, 8 minutes after the whole tail: a probe is due
    const beforeRun = requests();
    const settled = await poll();
    const runRequests = requests() - beforeRun;
    rig.sandbox.advance(MINUTE);
    const after = await poll();

    // Assess
    expect(whole).toMatchObject({ outcome: 'completed', mode: 'tail' });
    expect(whole.records).toBeGreaterThan(0);
    for (const q of quiet) {
      expect(q.report).toMatchObject({ outcome: 'completed', mode: 'probe', records: 0, events: 0 });
      expect(q.requests).toBe(1);
    }
    // Fewer rows than a probe asks for: detected from its answer alone, no tail read.
    expect(settled).toMatchObject({ outcome: 'completed', mode: 'lane', pages: 1 });
    expect(settled.records).toBeLessThan(LANE_PAGE_ROWS);
    expect(runRequests).toBe(1);
    expect(settled.events).toBeGreaterThan(0);
    expect(sink.events.filter((e) => e.detailType === 'Disbursement Recorded')).toHaveLength(settled.events);
    expect(after.mode).toBe('probe');
  });

  it('reads the whole tail every fullEveryMs whatever the probes say', async () => {
    const { poll } = await setUp('full-every');
    rig.sandbox.advance(10 * MINUTE); // past the settlement run: no row comes meanwhile
    await poll();
    rig.sandbox.advance(MINUTE);
    await poll(); // whole: its count is kept
    const modes: string[] = [];
    for (let t = 2 * MINUTE; t <= fullEveryMs + 2 * MINUTE; t += 4 * MINUTE) {
      rig.sandbox.advance(4 * MINUTE);
      modes.push(String((await poll()).mode));
    }
    expect(modes.slice(0, -1).every((m) => m === 'probe')).toBe(true);
    expect(modes.at(-1)).toBe('tail');
  });

  it('a bad record the count passed, pushed past it by rows sorted before it: the count stays and every new row is published', async () => {
    // Prepare: a bad disbursement (its date an object: quarantined, never in the seen set) stored
    // at 05:5x, then the whole tail that counts it. The settlement run's rows are dated yesterday:
    // an API that sorts by date puts them before it, so the rows past the count are the bad
    // record and all but the first new row.
    const { store, club, sink, poll } = await setUp('bad-row-moved');
    await poll();
    rig.sandbox.faults.poison = {
      stored: 30,
      operations: ['disbursements'],
      variants: ['wrongType/object-for-date'],
    };
    try {
      rig.sandbox.advance(2 * MINUTE);
    } finally {
      rig.sandbox.faults.poison = false;
    }
    const baselineSeq = rig.sandbox.journal.lastSeq;
    const whole = await poll();
    expect(whole).toMatchObject({ outcome: 'completed', mode: 'tail' });
    expect(whole.quarantined).toBeGreaterThan(0);
    const counted = (await store.view(club.clubId).getCursor('disbursements')).stats?.probeRows ?? 0;

    // Act: past 06:00, the run.
    rig.sandbox.advance(8 * MINUTE);
    const settled = await poll();

    // Assess: every row the run added is published, and the count is no higher than the window's.
    const paid = rig.sandbox.journal.entries(baselineSeq).filter((e) => e.kind === 'disbursement');
    expect(paid.length).toBeGreaterThan(1);
    const published = sink.events.filter((e) => e.detailType === 'Disbursement Recorded');
    expect(published).toHaveLength(paid.length);
    const rows = (await store.view(club.clubId).getCursor('disbursements')).stats?.probeRows;
    if (rows !== undefined) expect(rows).toBeLessThanOrEqual(counted + paid.length);
    expect(settled.outcome).toBe('completed');
  });

  it('an API that refuses a probe (400) stops probing for the source: the tail is read as before', async () => {
    const { store, club, poll } = await setUp('refused');
    await poll();
    rig.sandbox.advance(MINUTE);
    await poll();
    rig.sandbox.advance(MINUTE);
    const body = JSON.stringify({ error: 'offset out of range' });
    rig.sandbox.failNext(1, 400, { body, contentType: 'application/json', pathPrefix: '/financial' });

    const refused = await poll();
    rig.sandbox.advance(MINUTE);
    const next = await poll();

    expect(refused).toMatchObject({ outcome: 'completed', mode: 'tail' });
    expect(next.mode).toBe('tail');
    const cursor = await store.view(club.clubId).getCursor('disbursements');
    expect(cursor.stats?.probeOff).toBe(1);
  });
});
