/**
 * Sweeps a few at a time (lambdas/engine/scan/sweep-slots.ts), on the sandbox (real HTTP) and
 * dynalite. A full batch of clubs whose sweeps come due together (a day after their first polls,
 * records twice the sandbox's size) polled side by side: every window is swept within one poll,
 * and the sweeps' reads, seen on the wire, never overlap more than SWEEP_SLOTS at once. A sweep
 * that gets no slot before its deadline is skipped: it says why (report and log), writes nothing
 * (its cursor as it was, no failure, no notice), and the next poll sweeps it, so the two polls
 * publish exactly what one poll without the wait publishes, nothing twice.
 */
import { describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { MAX_CLUBS_PER_MESSAGE } from '../../../lambdas/common/deployment-contract';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { NO_SWEEP_SLOT_REASON, SWEEP_SLOTS, sweepSlots } from '../../../lambdas/engine/scan/sweep-slots';
import { MemorySink } from '../../../lambdas/events/publisher';
import type { DynamoDbStateStore } from '../../../lambdas/state';
import { useEngineRig } from '../../support/engine-rig';
import { captureLogs } from '../../support/log-capture';

const CLUBS = MAX_CLUBS_PER_MESSAGE;
const DAY_MS = 86_400_000;
/** A read whose window starts this long before now is a sweep's (payments: 10 days; POS, disbursements: 7). */
const SWEEP_WINDOW_MS = 3 * DAY_MS;

/**
 * The sweeps' reads as the wire sees them: per club (API key), operation and window, the time from
 * its first request to its last answer, recorded while `recording` is set.
 */
class SweepReads {
  recording = false;
  readonly #spans = new Map<string, { from: number; to: number }>();

  constructor(private readonly nowMs: () => number) {}

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const fromdate = url.searchParams.get('fromdate');
    const sweep = this.recording && !!fromdate && Date.parse(fromdate) < this.nowMs() - SWEEP_WINDOW_MS;
    const startMs = performance.now();
    const response = await fetch(input, init);
    if (sweep) {
      const headers = new Headers(init?.headers);
      const key = `${headers.get('x-api-key')}|${url.pathname}|${fromdate}`;
      const span = this.#spans.get(key);
      if (span) span.to = performance.now();
      else this.#spans.set(key, { from: startMs, to: performance.now() });
    }
    return response;
  };

  get sweeps(): number {
    return this.#spans.size;
  }

  /** The most sweeps reading at one moment. */
  mostAtOnce(): number {
    const moments = [...this.#spans.values()].flatMap((s) => [
      { at: s.from, step: 1 },
      { at: s.to, step: -1 },
    ]);
    moments.sort((a, b) => a.at - b.at || a.step - b.step);
    let now = 0;
    let most = 0;
    for (const m of moments) {
      now += m.step;
      most = Math.max(most, now);
    }
    return most;
  }
}

describe('sweeps a few at a time', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 43,
      clubs: Array.from({ length: CLUBS }, (_, i) => ({ clubId: `club-${i + 1}`, members: 30 })),
      historyDays: 12,
      startTime: '2026-05-04T08:00:00Z',
      recordScale: 2,
    },
    pollMs: 120_000,
  });

  /** The clubs' first polls into `store` (a day of activity after them makes every sweep due); the poll's deps. */
  async function firstPolls(store: DynamoDbStateStore, clubs: readonly ClubConfig[], clients = rig.clients) {
    const deps = { store, sink: new MemorySink(), clients, now: rig.now };
    for (const [i, club] of clubs.entries()) {
      await pollClub({ ...deps, owner: `first-${i}` }, club, { deadlineMs: rig.deadline() });
    }
    return deps;
  }

  it('a full batch with its sweeps due: every window swept in one poll, at most SWEEP_SLOTS reading at once', async () => {
    // Prepare
    const reads = new SweepReads(rig.now);
    const clients = new GymApiClientFactory({ fetch: reads.fetch });
    const store = await rig.newStore('sweeps');
    const clubs = parseClubsFile(rig.sandbox.clubsFile());
    const deps = await firstPolls(store, clubs, clients);
    rig.sandbox.advance(DAY_MS);
    let leastFree = SWEEP_SLOTS;
    const sampler = setInterval(() => {
      leastFree = Math.min(leastFree, sweepSlots.free);
    }, 1);

    // Act
    reads.recording = true;
    const reports = await Promise.all(
      clubs.map((club, i) => pollClub({ ...deps, owner: `next-${i}` }, club, { deadlineMs: rig.deadline() })),
    ).finally(() => clearInterval(sampler));

    // Assess: every source completed, every club's payments swept, never more than SWEEP_SLOTS at once
    expect(reports.every((r) => r.sources.every((s) => s.outcome === 'completed'))).toBe(true);
    for (const report of reports) {
      expect(report.sources.find((s) => s.source === 'paymentHistory')?.mode).toBe('sweep');
    }
    expect(reads.sweeps).toBeGreaterThanOrEqual(CLUBS);
    expect(reads.mostAtOnce()).toBeLessThanOrEqual(SWEEP_SLOTS);
    expect(leastFree).toBe(0);
    expect(sweepSlots.free).toBe(SWEEP_SLOTS);
    for (const club of clubs) {
      const payments = (await store.view(club.clubId).listCursors()).find(
        (c) => c.source === 'paymentHistory',
      );
      expect(payments?.stats?.lastSweepAtMs).toBe(rig.now());
    }
  }, 240_000);

  it('no slot before the deadline: skipped, said, nothing written; the next poll sweeps, nothing lost or twice', async () => {
    // Prepare: one club's first poll in two tables, a day of activity, every sweep slot held elsewhere
    const club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    const waiting = await firstPolls(await rig.newStore('sweep-wait'), [club]);
    const control = await firstPolls(await rig.newStore('sweep-control'), [club]);
    rig.sandbox.advance(DAY_MS);
    const before = await waiting.store.view(club.clubId).listCursors();
    const held = await Promise.all(
      Array.from({ length: SWEEP_SLOTS }, () => sweepSlots.acquire({ waitMs: 0 })),
    );
    const firstEvents = waiting.sink.events.length;
    const logs = captureLogs();

    // Act: a deadline just past the wait's margin; then, the slots free, the next poll (and the
    // control table's one poll, without a wait)
    const waited = await pollClub({ ...waiting, owner: 'waiting' }, club, {
      deadlineMs: Date.now() + 6_000,
    }).finally(() => logs.stop());
    const afterWait = await waiting.store.view(club.clubId).listCursors();
    for (const release of held) if (typeof release === 'function') release();
    const next = await pollClub({ ...waiting, owner: 'next' }, club, { deadlineMs: rig.deadline() });
    const controlFirst = control.sink.events.length;
    await pollClub({ ...control, owner: 'control' }, club, { deadlineMs: rig.deadline() });

    // Assess: the sweeps skipped, why said; their cursors untouched; no failure, no notice
    const skipped = waited.sources.filter((s) => s.outcome === 'skipped');
    expect(skipped.map((s) => s.source)).toContain('paymentHistory');
    expect(skipped.every((s) => s.mode === 'sweep' && s.reason === NO_SWEEP_SLOT_REASON)).toBe(true);
    expect(skipped.every((s) => s.pages === 0 && s.records === 0 && s.events === 0)).toBe(true);
    for (const s of skipped) {
      const said = logs.lines.find(
        (l) => l.message === 'sweep skipped: it sweeps next poll' && l.source === s.source,
      );
      expect(said).toMatchObject({ level: 'INFO', clubId: club.clubId, reason: NO_SWEEP_SLOT_REASON });
    }
    const cursorOf = (cursors: typeof before, source: string) => cursors.find((c) => c.source === source);
    for (const s of skipped) expect(cursorOf(afterWait, s.source)).toEqual(cursorOf(before, s.source));
    expect(waited).toMatchObject({ outcome: 'ok', failures: [], operationalEvents: [] });
    // The next poll sweeps them; the two polls published what the control's one did, nothing twice
    for (const s of skipped) {
      expect(next.sources.find((n) => n.source === s.source)).toMatchObject({
        outcome: 'completed',
        mode: 'sweep',
      });
    }
    const ids = waiting.sink.events.slice(firstEvents).map((e) => e.detail.eventId);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    const controlIds = control.sink.events.slice(controlFirst).map((e) => e.detail.eventId);
    expect(new Set(ids)).toEqual(new Set(controlIds));
    expect(sweepSlots.free).toBe(SWEEP_SLOTS);
  }, 240_000);

  it('a sweep that fails gives its slot back', async () => {
    // Prepare: a day after the first poll, an API that answers 5xx (no retry)
    const club = parseClubsFile(rig.sandbox.clubsFile())[0]!;
    const deps = await firstPolls(await rig.newStore('sweep-fails'), [club]);
    rig.sandbox.advance(DAY_MS);
    const clients = new GymApiClientFactory({ retry: { maxAttempts: 1, baseDelayMs: 1 } });
    rig.sandbox.faults.errorRate5xx = 1;

    // Act
    const failed = await pollClub({ ...deps, clients, owner: 'fails' }, club, {
      deadlineMs: rig.deadline(),
      sources: ['paymentHistory'],
    }).finally(() => {
      rig.sandbox.faults.errorRate5xx = 0;
    });

    // Assess
    expect(failed.failures.map((f) => f.source)).toEqual(['paymentHistory']);
    expect(sweepSlots.free).toBe(SWEEP_SLOTS);
  }, 120_000);
});
