/**
 * Heavy club polls, as many at a time per process as its memory budget holds. A club's first poll
 * (its silent baseline reads every record the API has), a backfill, or a lifecycle evaluation that
 * reads everything holds several MB per club while it runs: its sources' pages side by side, each
 * scan's identities and record times, its seen keys and the snapshots it wrote; the regular polls
 * of a minute hold a fraction of that. So a poll function takes HEAVY_POLL_SLOTS heavy clubs side
 * by side (below: one at 256 MB) and many more regular ones.
 *
 * A heavy poll waits for a slot, at most until its deadline's margin: then it polls nothing this
 * time (its sources report so) and the next dispatch brings it back. A slot is taken before any
 * page is read and given back when the club's poll is done, so it never waits while it holds a
 * page slot (lambdas/gym-api/body-budget.ts).
 *
 * The budget (docs/operations.md, "The poll function's memory"): the function's peak resident set
 * stays at or under three quarters of its memory, the quarter left free for what the bench does not
 * see (larger records, a few more fields, a slower GC). The bench measures the resident set of a
 * poll process under the heap flags Lambda gives the function (bench/invocation-memory.ts): one
 * heavy poll at a time peaks at about ONE_HEAVY_POLL_RSS_MB, each further one adds about
 * HEAVY_POLL_RSS_MB, and the same run varies by PEAK_SPREAD_MB between runs and machines. What
 * is left of the budget after the first heavy poll and the spread, in whole heavy polls, is the
 * number of further ones.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { Slots } from '../../common/slots';
import { lifecycleSettingsOf } from '../../lifecycle/club-lifecycle';
import type { ClubSession } from '../../state/state-store';
import type { Cursor, SourceName } from '../../state/store';

/** The poll function's memory, MB (lib/constructs/poller.ts; test/cdk checks they agree). */
export const POLL_FUNCTION_MEMORY_MB = 256;
/** The most a poll process may hold at its peak: a quarter of the function's memory kept free. */
export const POLL_PEAK_BUDGET_MB = (POLL_FUNCTION_MEMORY_MB * 3) / 4;
/**
 * Peak resident set of a poll process whose full batch of new clubs runs one heavy poll at a time,
 * MB: the bench's first poll of 20 new clubs at one slot, 171 MB with the sandbox's records and
 * with records twice their size. Most of it is the process itself, whatever the batch: Node and
 * the bundle (~85 MB), V8's young generation under Lambda's semi-space flag (~30 MB), the
 * optimising compiler's memory (~20 MB), and V8's late collection (garbage kept below its cap).
 */
export const ONE_HEAVY_POLL_RSS_MB = 171;
/**
 * What each further heavy poll adds to that peak, MB: a second one added 10 to 18 MB (13 on
 * average over five runs at both record sizes), a third about 10 more.
 */
export const HEAVY_POLL_RSS_MB = 13;
/**
 * How much the bench's peak of the same run varies between runs and machines, MB: 181 to 189 for
 * the same batch with two heavy polls here, 234 to 240 with ten on two machines.
 */
export const PEAK_SPREAD_MB = 10;

/**
 * Heavy polls a process of `budgetMb` takes side by side: the first, and as many more as the
 * budget holds past it and the spread. Never fewer than one: a heavy poll must be able to run.
 */
export function heavyPollSlotsFor(budgetMb: number): number {
  const room = budgetMb - PEAK_SPREAD_MB - ONE_HEAVY_POLL_RSS_MB;
  return 1 + Math.max(0, Math.floor(room / HEAVY_POLL_RSS_MB));
}

/** Heavy club polls side by side per process: 1 at 256 MB ((192 - 10 - 171) / 13 = 0 more). */
export const HEAVY_POLL_SLOTS = heavyPollSlotsFor(POLL_PEAK_BUDGET_MB);

/** The process's slots: shared by every club poll, as memory is. */
export const heavyPolls = new Slots(HEAVY_POLL_SLOTS);

/**
 * Whether the club's lifecycle evaluation reads everything: its events on and its notes `full`
 * (with them off the notes stay `full` and nothing reads them).
 */
export function lifecycleReadsAll(club: ClubConfig, session: Pick<ClubSession, 'lifecycleNotes'>): boolean {
  return lifecycleSettingsOf(club) !== undefined && session.lifecycleNotes().full === true;
}

/**
 * Whether this poll of the club is heavy: a source it polls has no completed baseline, it
 * backfills, or its lifecycle evaluation reads everything (lifecycle events on and notes `full`).
 */
export function isHeavyPoll(
  sources: readonly SourceName[],
  cursors: readonly Cursor[],
  also: { readonly backfill: boolean; readonly lifecycleReadsAll: boolean },
): boolean {
  if (also.backfill || also.lifecycleReadsAll) return true;
  const bySource = new Map(cursors.map((c) => [c.source, c]));
  return sources.some((s) => !bySource.get(s)?.baselineDone);
}
