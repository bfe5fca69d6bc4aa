/**
 * Polling a club: every enabled source in turn (README, "What it does"), with the club-level rules
 * around it: a club whose credentials are rejected or whose quota is spent is paused with back-off
 * instead of hammering the API, operations hears about it once (Club Credentials Rejected, Club
 * Quota Low, Club Data Stale), and every data request is counted against the club's monthly quota.
 *
 * A source whose endpoint is missing for the club is not a failure of the club: a 404, or a 403
 * that blames no credential (EndpointUnavailableError), marks that source unavailable on its cursor
 * (`health.unavailable`), and so do, for an experimental source only, a 400 and a response that is
 * not a usable page (InvalidResponseError). For a source the API document describes, a 400 is more
 * likely a bug of ours (a bad query) and an unusable page a broken upstream: those stay failures.
 * An unavailable source is logged once (WARN), announced once (Club Source Unavailable), reported
 * with outcome 'unavailable', and not polled again before its `retryAt` (every
 * UNAVAILABLE_RETRY_MS); a poll that then succeeds clears the mark. The club's other sources poll
 * and publish as usual, and the club's outcome stays 'ok'.
 *
 * Operational events are delivered at least once: each is written as owed with the state it
 * announces and removed once published; a poll first delivers what earlier polls owe
 * (announcer.ts, docs/publishing.md "Operational events").
 *
 * Where the parts live: the failure policy (kinds, pauses, back-off, unavailability, the pause rule)
 * in failure-policy.ts; the operational events and when each is due in operational-events.ts, their
 * delivery in announcer.ts; the run of the sources under the club lease in
 * club-poll-run.ts, what follows each source's outcome in source-outcomes.ts,
 * the cursor health writes in cursor/cursor-writes.ts, the quota count in quota-check.ts,
 * the poll order in poll-order.ts.
 */

import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { monthOf } from '../../common/time-units';
import { type LifecycleReport, lifecycleSettingsOf, runClubLifecycle } from '../../lifecycle/club-lifecycle';
import { enabledSources } from '../../sources';
import { DEFAULT_STALE_AFTER_MS } from '../../sources/operational-events';
import type { ClubSession } from '../../state/state-store';
import type { Cursor, SourceName } from '../../state/store';
import { sweepIntervals } from '../schedule/sweep-budget';
import { Announcer } from './announcer';
import { ClubPollRun } from './club-poll-run';
import {
  type ClubReport,
  idleReport,
  type PollClubDeps,
  type PollClubOptions,
  skippedReport,
} from './club-report';
import { activePause } from './failure-policy';
import { markFastLane } from './fast-lane-probe';
import { heavyPolls, isHeavyPoll, lifecycleReadsAll } from './heavy-polls';
import { pollOrder } from './poll-order';
import { countQuotaUsage } from './quota-check';
import { sourcesStillDue } from './stale-sources';

export { SOURCE_CONCURRENCY } from './club-poll-run';
export type {
  ClubReport,
  ClubSourceReport,
  PollClubDeps,
  PollClubOptions,
  SourceFailure,
  UnavailableSourceReport,
} from './club-report';
export {
  activePause,
  type ClubPause,
  type FailureKind,
  failureKind,
  MAX_RETRY_AFTER_MS,
  pauseMs,
  UNAVAILABLE_RETRY_MS,
  unavailability,
} from './failure-policy';

export { pollOrder } from './poll-order';

/** Lease name of a club poll in the per-source layout of earlier releases (docs/state.md, "Upgrading"). */
export const CLUB_LEASE = 'CLUB';
/** The lifecycle evaluation is not started this close to the poll's deadline. */
const LIFECYCLE_MARGIN_MS = 5000;
/** A heavy poll gives up waiting for its slot this long before its deadline. */
const HEAVY_WAIT_MARGIN_MS = 5000;

export async function pollClub(
  deps: PollClubDeps,
  club: ClubConfig,
  options: PollClubOptions,
): Promise<ClubReport> {
  const startMs = (deps.now ?? Date.now)();
  if (!club.enabled) return idleReport(club.clubId, 'disabled');
  const enabled = enabledSources(club).filter((s) => !options.sources || options.sources.includes(s));
  // One conditional write takes the club's lease and reads its cursors and quota counter: the
  // sources' polls run under it, and one more write at the end stores what changed and releases it.
  const leaseTtl = Math.max(60_000, options.deadlineMs - Date.now() + 60_000);
  const session = await deps.store.openClub(club.clubId, deps.owner, leaseTtl, Date.now());
  if (!session) {
    const order = pollOrder(enabled, []);
    const sources = order.map((name) => skippedReport(name, 'another poller holds the club lease'));
    return idleReport(club.clubId, 'ok', { sources });
  }
  let report: ClubReport;
  try {
    report = await pollUnderLease(deps, club, options, session, enabled, startMs);
  } catch (err) {
    await session.close().catch((closeErr: unknown) => {
      logger.error('could not store the club state and release its lease', {
        clubId: club.clubId,
        error: describe(closeErr),
      });
    });
    throw err;
  }
  // What the poll changed (cursors, a backfill's progress, the quota count) is stored here: a
  // close that fails fails the club's poll, so its message comes back and nothing is lost silently.
  // The events already published are published again with the same eventIds at worst.
  await session.close();
  return report;
}

/**
 * The poll once the lease is taken, on the cursors its write returned: first what earlier polls
 * announced and could not deliver (club-poll/announcer.ts), then the sources a later poll already
 * covered left out (a message's `dispatchedAt`, club-poll/stale-sources.ts: none left, nothing
 * polled), a paused club left alone, else every source due and the hour's lifecycle evaluation; a
 * heavy poll (a first poll, a backfill, a lifecycle reading everything) once it has one of the
 * process's slots (club-poll/heavy-polls.ts).
 */
async function pollUnderLease(
  deps: PollClubDeps,
  club: ClubConfig,
  options: PollClubOptions,
  session: ClubSession,
  enabled: readonly SourceName[],
  startMs: number,
): Promise<ClubReport> {
  const announcer = new Announcer({ store: session, sink: deps.sink, club, now: deps.now ?? Date.now });
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const cursors = await announcer.catchUp(await session.listCursors(), staleAfterMs);
  const operationalEvents = announcer.delivered;
  const due =
    options.dispatchedAt === undefined ? enabled : sourcesStillDue(cursors, enabled, options.dispatchedAt);
  if (due.length === 0) return idleReport(club.clubId, 'ok', { stale: true, operationalEvents });
  const pause = activePause(cursors, startMs);
  if (pause && !options.ignorePause) {
    return idleReport(club.clubId, 'paused', { pausedUntil: pause.until, pause, operationalEvents });
  }
  const order = pollOrder(due, cursors);
  // A first poll, a backfill or a lifecycle that reads everything: HEAVY_POLL_SLOTS at a time.
  const heavy = isHeavyPoll(due, cursors, {
    backfill: options.backfillFromMs !== undefined,
    lifecycleReadsAll: lifecycleReadsAll(club, session),
  });
  const slot = heavy
    ? await heavyPolls.acquire({ waitMs: options.deadlineMs - HEAVY_WAIT_MARGIN_MS - Date.now() })
    : () => {};
  if (typeof slot !== 'function') {
    const sources = order.map((name) =>
      skippedReport(name, 'no heavy-poll slot came free before the deadline'),
    );
    return idleReport(club.clubId, 'ok', { sources, operationalEvents });
  }
  try {
    const run = { cursors, order, due, startMs, announcer };
    return await pollSourcesAndLifecycle(deps, club, options, session, run);
  } finally {
    slot();
  }
}

async function pollSourcesAndLifecycle(
  deps: PollClubDeps,
  club: ClubConfig,
  options: PollClubOptions,
  session: ClubSession,
  at: {
    cursors: readonly Cursor[];
    order: SourceName[];
    due: readonly SourceName[];
    startMs: number;
    announcer: Announcer;
  },
): Promise<ClubReport> {
  const { cursors, order, due, startMs, announcer } = at;
  // Sweeps the quota the plan leaves unused pays for (the scheduler counts the same ones).
  const sweeps = sweepIntervals({
    plan: club.plan,
    sources: due,
    cursors,
    quotaUsed: await session.getQuotaUsage(monthOf(startMs)),
    nowMs: startMs,
  });
  // With lifecycle events off nothing evaluates the notes: once on again, the first reads everything.
  if (!lifecycleSettingsOf(club)) session.noteLifecycle({ full: true });
  const run = new ClubPollRun({ ...deps, store: session }, club, options, startMs, announcer, sweeps);
  await run.pollSources(order, new Map(cursors.map((c) => [c.source, c])));
  await markFastLane(session, {
    ...(options.probes ? { probesPaidUntilMs: options.probes.untilMs } : {}),
    ...(options.probeRefused ? { probeRefused: true } : {}),
  });
  return clubReport(run, order, await lifecycleOf(run, session));
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * The hour's lifecycle evaluation (lambdas/lifecycle/club-lifecycle.ts), after the sources: not in a
 * poll the club's pause stopped, nor in a backfill (lifecycle events are never backfilled), nor in
 * a fast-lane session (the minute's polls evaluate), nor past the deadline's margin.
 */
async function lifecycleOf(run: ClubPollRun, session: ClubSession): Promise<LifecycleReport | undefined> {
  const { options } = run;
  if (run.pause() || options.backfillFromMs !== undefined || options.lane === 'fast') return undefined;
  if (Date.now() > options.deadlineMs - LIFECYCLE_MARGIN_MS) return undefined;
  const reports = [...run.reports.values()];
  const poll = {
    polled: new Set(reports.map((r) => r.source as SourceName)),
    completed: new Set(
      reports
        .filter((r) => r.outcome === 'completed' || r.outcome === 'partial')
        .map((r) => r.source as SourceName),
    ),
  };
  const api = { client: run.client, deadlineMs: options.deadlineMs };
  const deps = { store: run.deps.store, sink: run.deps.sink, session, nowMs: run.now(), poll, api };
  return runClubLifecycle(deps, run.club, await session.listCursors());
}

async function clubReport(
  run: ClubPollRun,
  order: readonly SourceName[],
  lifecycle?: LifecycleReport,
): Promise<ClubReport> {
  const sources = order.flatMap((name) => run.reports.get(name) ?? []);
  const quotaUsed = await countQuotaUsage(
    {
      store: run.deps.store,
      club: run.club,
      nowMs: run.now(),
      ...(run.options.quotaAlertShare === undefined ? {} : { alertShare: run.options.quotaAlertShare }),
      announcer: run.announcer,
    },
    // The fast-lane probes this poll pays for are counted with its own requests (fast-lane-probe.ts).
    run.requests + (run.options.probes?.count ?? 0),
  );
  const pause = run.pause();
  return {
    clubId: run.club.clubId,
    outcome: run.failures.length > 0 ? 'failed' : 'ok',
    sources,
    failures: run.failures,
    requests: run.requests,
    tokenRequests: run.tokenRequests,
    ...(quotaUsed === undefined ? {} : { quotaUsed }),
    ...(pause ? { pausedUntil: pause.until, pause } : {}),
    operationalEvents: run.operationalEvents,
    ...(lifecycle ? { lifecycle } : {}),
  };
}
