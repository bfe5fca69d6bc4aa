/**
 * A fast-lane probe (engine/schedule/fast-lane.ts decides when): between two of the minute's polls,
 * it asks for the club's visits past the rows the last full tail counted: one request of up to
 * LANE_PAGE_ROWS rows, at the offset just past them, with the same filter (the question the tail
 * probe asks, scan/tail-probe.ts, with the rows in the answer). An empty answer ends the probe: it
 * has written nothing. Rows open the club's session, which detects and publishes those rows only
 * (scan/lane-page.ts: no second request, no tail read, the cursor left as it is) and commits, with
 * a short deadline and no lifecycle evaluation.
 *
 * What a quiet probe costs: one eventually consistent read of the club state item (half a read
 * unit), one API request, no write. Its request is paid for by the minute's poll it follows: that
 * poll counts its probes in the quota with its own requests and marks the visits cursor paid until
 * the next minute (`withProbesPaid`); a probe that finds no such mark asks nothing.
 *
 * Why nothing is lost across the lane's switches: the minute's poll asks past the same count and
 * reads the whole visits tail at least every `tailProbe.fullEveryMs` (scan/tail-probe.ts), so a
 * probe that is skipped, fails, reads a stale state item or gets no whole page leaves that visit to
 * the next minute's poll, and a change a count cannot see (a row replaced, one removed and another
 * added) to its next whole tail. A page with a row published before (an API that ignored the offset
 * or does not append at the end) moves no count (scan/lane-page.ts).
 * A probe never writes without the club's lease: what it finds is published under the lease by a
 * session, one poller per club.
 */
import type { ClubConfig } from '../../clubs/club-config';
import { logger } from '../../common/logger';
import { monthOf, SECOND_MS } from '../../common/time-units';
import type { Page } from '../../gym-api';
import type { OperationName } from '../../gym-api/operations';
import { SOURCES } from '../../sources';
import { toFilterValue } from '../../sources/record-time';
import type { ClubSession } from '../../state/state-store';
import type { Cursor } from '../../state/store';
import { LANE_PAGE_ROWS } from '../scan/lane-page';
import type { SourceReport } from '../scan/poll-types';
import { ScanPageReader } from '../scan/scan-pages';
import { iso } from '../scan/scan-types';
import { cursorWithoutProbes, rowsPastCount, tailCountOf } from '../scan/tail-probe';
import { probesPaidUntil, steadyForProbes, withProbesPaid } from '../schedule/fast-lane';
import { clubContext } from './club-context';
import { type ClubReport, idleReport, type PollClubDeps, skippedReport } from './club-report';
import { activePause } from './failure-policy';

/** The deadline of a probe's session: a visit published well before the next probe. */
export const FAST_SESSION_MS = 10 * SECOND_MS;

export interface ProbeRun {
  /** Real-time epoch ms by which the probe (and its session, if any) must return. */
  readonly deadlineMs: number;
  readonly pageSize?: number;
}

/** Why a probe does not ask, or undefined when it may. */
function notReady(cursors: readonly Cursor[], visits: Cursor | undefined, nowMs: number): string | undefined {
  const paidUntil = probesPaidUntil(visits);
  if (paidUntil === undefined || paidUntil < nowMs) return 'no minute poll paid for this probe';
  if (activePause(cursors, nowMs)) return 'the club is paused';
  if (!steadyForProbes(visits))
    return 'visits are not in steady state (first poll, scan, backfill or failures)';
  if (!tailCountOf(visits!)) return 'no full tail counted yet';
  return undefined;
}

/** The probe's own report: one request, nothing read past it. */
function probedReport(visits: Cursor): SourceReport {
  return {
    source: 'visits',
    outcome: 'completed',
    mode: 'probe',
    pages: 1,
    records: 0,
    events: 0,
    quarantined: 0,
    attempts: 1,
    ...(visits.watermark ? { watermark: visits.watermark } : {}),
  };
}

/** What a probe came to: a report, or a session to open (rows came, or the API refused the probe). */
export type ProbeResult =
  | { readonly report: ClubReport }
  | {
      readonly session: {
        readonly deadlineMs: number;
        /** The rows past the count (absent when the API refused the probe). */
        readonly page?: Page<OperationName>;
        readonly probeRefused: boolean;
        readonly requests: number;
        readonly tokenRequests: number;
      };
    };

/** One probe of the club's visits. Never throws for an API failure: the minute's poll meets it too. */
export async function probeVisits(deps: PollClubDeps, club: ClubConfig, run: ProbeRun): Promise<ProbeResult> {
  const startMs = (deps.now ?? Date.now)();
  if (!club.enabled) return { report: idleReport(club.clubId, 'disabled') };
  const skip = (reason: string) =>
    idleReport(club.clubId, 'ok', { sources: [skippedReport('visits', reason)] });
  const states = await deps.store.readClubStates([club.clubId], monthOf(startMs));
  const cursors = states.get(club.clubId)?.cursors ?? [];
  const visits = cursors.find((c) => c.source === 'visits');
  const reason = notReady(cursors, visits, startMs);
  if (reason !== undefined || !visits) return { report: skip(reason ?? 'visits never polled') };
  const count = tailCountOf(visits)!;
  const source = SOURCES.visits;
  const ctx = { ...clubContext(club), observedAtMs: startMs };
  let requests = 0;
  let tokenRequests = 0;
  const client = deps.clients.forClub(club, (e) => {
    if (e.kind === 'data') requests++;
    else tokenRequests++;
  });
  const probe = {
    mode: 'tail' as const,
    fromdate: toFilterValue(count.fromMs, source.filterZone, ctx),
    nextOffset: count.rows,
    startedAt: iso(startMs),
    pages: 0,
    records: 0,
  };
  let answer: Awaited<ReturnType<typeof rowsPastCount>>;
  try {
    const reader = new ScanPageReader(client, source, ctx, run);
    answer = await rowsPastCount(reader, probe, LANE_PAGE_ROWS, { clubId: club.clubId, source: 'visits' });
  } catch (err) {
    logger.info('fast-lane probe failed: the minute poll reads visits as usual', {
      clubId: club.clubId,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return { report: { ...skip('probe failed'), requests, tokenRequests } };
  }
  if (answer === undefined) {
    // Out of time, or a page cut by the response cap (a huge record): the minute's poll reads it.
    return { report: { ...skip('no whole page came: left to the minute poll'), requests, tokenRequests } };
  }
  if (answer !== 'refused' && answer.rawCount === 0) {
    const report = idleReport(club.clubId, 'ok', { sources: [probedReport(visits)] });
    return { report: { ...report, requests, tokenRequests } };
  }
  const deadlineMs = Math.min(run.deadlineMs, Date.now() + FAST_SESSION_MS);
  if (answer === 'refused') {
    return { session: { deadlineMs, probeRefused: true, requests, tokenRequests } };
  }
  return { session: { deadlineMs, page: answer, probeRefused: false, requests, tokenRequests } };
}

/**
 * The fast lane's marks on the visits cursor, written with the session: the probes this (minute)
 * poll pays for, or probing turned off after the API refused a probe (a 400 to an offset past the
 * end: the lane stays off for the club, docs/operations.md).
 */
export async function markFastLane(
  session: Pick<ClubSession, 'getCursor' | 'putCursor'>,
  marks: { readonly probesPaidUntilMs?: number; readonly probeRefused?: boolean },
): Promise<void> {
  if (marks.probesPaidUntilMs === undefined && !marks.probeRefused) return;
  const visits = await session.getCursor('visits');
  if (visits.version === 0) return;
  let next = visits;
  if (marks.probesPaidUntilMs !== undefined) next = withProbesPaid(next, marks.probesPaidUntilMs);
  if (marks.probeRefused) next = cursorWithoutProbes(next);
  await session.putCursor(next);
}
