/**
 * Writing a club's state item in a test as the bridge does, in a session of the club (the store has
 * no write outside one): a cursor, or requests added to a month's counter. The items a poll writes
 * besides (seen set, snapshots, quarantine, lifecycle documents) are seeded on the store's ports
 * (`store.parts.seen.putSeen(clubId, ...)`), which need no lease.
 */

import { pollSource } from '../../lambdas/engine/club-poll/poll-source';
import type { PollSourceDeps, SourceReport } from '../../lambdas/engine/scan/poll-types';
import type { ClubSession, StateStore } from '../../lambdas/state/state-store';
import { withClubSession } from '../../lambdas/state/state-store';
import type { Cursor } from '../../lambdas/state/store';

/** Puts `cursor` (versioned as a poll's write is) in a session of its club; returns it as stored. */
export function seedCursor(store: StateStore, cursor: Cursor): Promise<Cursor> {
  return withClubSession(store, cursor.clubId, 'test-seed', (session) => session.putCursor(cursor));
}

/** Adds `requests` to the club's counter for `month`; returns the new total. */
export function seedQuota(
  store: StateStore,
  clubId: string,
  month: string,
  requests: number,
): Promise<number> {
  return withClubSession(store, clubId, 'test-seed', (session) => session.addQuotaUsage(month, requests));
}

/** A session of the club for a test to hand to the engine's parts (closed by the test, or never: memory). */
export async function openSession(store: StateStore, clubId: string, owner = 'test'): Promise<ClubSession> {
  const session = await store.openClub(clubId, owner, 15 * 60_000, Date.now());
  if (!session) throw new Error(`club ${clubId} is held by another poller`);
  return session;
}

/**
 * `pollSource` as one invocation of the poll function runs it: in a session of the club, closed
 * after (its cursor changes written with the release).
 */
export function pollSourceInSession(
  deps: Omit<PollSourceDeps, 'store'> & { readonly store: StateStore },
  ...rest: Parameters<typeof pollSource> extends [unknown, ...infer R] ? R : never
): Promise<SourceReport> {
  const [ctx] = rest;
  return withClubSession(deps.store, ctx.clubId, deps.owner, (session) =>
    pollSource({ ...deps, store: session }, ...rest),
  );
}
