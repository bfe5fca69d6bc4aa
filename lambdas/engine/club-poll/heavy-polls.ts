/**
 * Heavy club polls, a few at a time per process. A club's first poll (its silent baseline reads
 * every record the API has), a backfill, or a lifecycle evaluation that reads everything holds
 * several MB per club while it runs (measured: a first poll of a typical club, ~11,700 records, about
 * 4.3 MB of live heap); the regular polls of a minute hold a fraction of that. So a poll function
 * can take HEAVY_POLL_SLOTS heavy clubs side by side and many more regular ones: a batch of 20 new
 * clubs runs its baselines in two waves within its deadline, and a batch of 20 regular polls shares
 * its waits (docs/deploy.md, "Sizing for a fleet"; the measurement in docs/benchmarks.md).
 *
 * A heavy poll waits for a slot, at most until its deadline's margin: then it polls nothing this
 * time (its sources report so) and the next dispatch brings it back. A slot is taken before any
 * page is read and given back when the club's poll is done, so it never waits while it holds a
 * page slot (lambdas/gym-api/body-budget.ts).
 */

import type { ClubConfig } from '../../clubs/club-config';
import { Slots } from '../../common/slots';
import type { ClubSession, Cursor, SourceName } from '../../state/store';
import { lifecycleSettingsOf } from '../lifecycle/club-lifecycle';

/**
 * Heavy club polls side by side per process: the first polls of 10 typical clubs fit a 256 MB poll
 * function.
 */
export const HEAVY_POLL_SLOTS = 10;

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
