/**
 * The whole life of a source's cursor, as pure functions: cursor + what happened + time -> next
 * cursor. Nothing here reads or writes a store (cursor-writes.ts does, with these), so each rule is
 * unit-tested without a socket.
 *
 * - A scan's end (`cursorAfterRegularScan`, `cursorAfterBackfill`): the watermark is the highest
 *   record time seen, capped at the scan's start; it moves only when a scan completes. The backfill
 *   lane never touches the regular polls' watermark, scan, sweep timing or health.
 * - The sweep marks a scan's end leaves, read back (`lastWholeSweepMs`, `lastSweepWindowMs`): when
 *   the last whole sweep started, and which window the last sweep read (the plan and the cost
 *   estimate both ask).
 * - A failed poll (`cursorAfterFailure`): consecutive failures of one kind, the pause a 401 or 429
 *   starts.
 * - A missing endpoint (`cursorMarkedUnavailable`, `cursorWithoutUnavailable`): the unavailable
 *   mark, its episode keeping its first `since`.
 * - The stale notice (`cursorStaleNotified`) and a backfill request (`cursorWithBackfillRequest`).
 */

import type { ClubContext } from '../../sources/source';
import { type SourceDefinition, tailLookbackFor } from '../../sources/source';
import type { Cursor, SourceUnavailable } from '../../state/store';
import {
  type FailureKind,
  isPauseKind,
  pauseEndMs,
  UNAVAILABLE_RETRY_MS,
  type Unavailability,
} from '../club-poll/failure-policy';
import { type EngineScan, iso, maxOf, type SourceOutcome } from '../scan/scan-types';

/**
 * When the source's last sweep of its whole window started. Every sweep of a source without a paid
 * window is whole; a cursor from before paid windows has no mark of its own, so its next sweep is.
 */
export function lastWholeSweepMs(
  cursor: Cursor,
  sweep: NonNullable<SourceDefinition['sweep']>,
): number | undefined {
  return sweep.paidWindowMs ? cursor.stats?.lastWholeSweepAtMs : cursor.stats?.lastSweepAtMs;
}

/** The window the cursor's last sweep read: the paid window when it was one of those, else the whole. */
export function lastSweepWindowMs(cursor: Cursor, sweep: SourceDefinition['sweep']): number {
  if (!sweep) return 0;
  const whole = lastWholeSweepMs(cursor, sweep);
  const paid = sweep.paidWindowMs !== undefined && whole !== cursor.stats?.lastSweepAtMs;
  return paid ? sweep.paidWindowMs! : sweep.windowMs;
}

/** What one lane's run of a scan did in this invocation. */
export interface ScanResult {
  readonly scan: EngineScan;
  readonly outcome: SourceOutcome;
  /** Highest record time read (UTC ms), over the whole scan. */
  readonly maxRecordMs: number | undefined;
  readonly pages: number;
  readonly records: number;
  readonly events: number;
  readonly quarantined: number;
  readonly attempts: number;
}

type WatermarkSource = Pick<
  SourceDefinition,
  'recordTime' | 'filterZone' | 'tailLookbackMs' | 'unconfirmedZoneLookbackMs' | 'sweep'
>;

/**
 * The watermark a completed scan earns: the highest record time seen, capped at the scan's start,
 * and never less than `start - tailLookback` (a quiet source must still move on, or its seen keys
 * would age out inside its own query window; this tolerates an API clock up to 2x the lookback
 * behind ours). A baseline read everything up to its start, so it moves to the start: the next
 * tail query (start - lookback) then never reaches below what the baseline recorded. A source
 * whose filter field is not in the response also uses the start. Never moves backwards.
 */
export function nextWatermark(
  current: string | undefined,
  result: Pick<ScanResult, 'scan' | 'maxRecordMs'>,
  source: WatermarkSource,
  ctx: Pick<ClubContext, 'unstatedZoneConfirmed'>,
): string {
  const scanStartMs = Date.parse(result.scan.startedAt);
  const signpost = result.scan.mode === 'baseline' || source.recordTime === undefined;
  const lowest = scanStartMs - tailLookbackFor(source, ctx);
  const candidate = signpost
    ? scanStartMs
    : Math.min(scanStartMs, Math.max(result.maxRecordMs ?? Number.NEGATIVE_INFINITY, lowest));
  return iso(maxOf(current ? Date.parse(current) : undefined, candidate)!);
}

/** The regular lane's cursor after its scan: watermark, scan progress, health and stats. */
export function cursorAfterRegularScan(
  cursor: Cursor,
  result: ScanResult,
  source: WatermarkSource,
  ctx: Pick<ClubContext, 'unstatedZoneConfirmed'>,
  startMs: number,
): Cursor {
  const next: Cursor = { ...cursor, health: { ...cursor.health } };
  const nowIso = iso(startMs);
  next.health.lastPollAt = nowIso;
  if (result.outcome === 'completed') {
    next.watermark = nextWatermark(cursor.watermark, result, source, ctx);
    next.baselineDone = true;
    delete next.scan;
    if (result.scan.mode === 'sweep' && result.scan.paid) {
      // A sweep of the paid window: its rows, how many pages the next such sweep may ask for ahead.
      next.stats = { ...next.stats, lastSweepAtMs: startMs, paidSweepRows: result.records };
    } else if (result.scan.mode === 'sweep' || result.scan.mode === 'baseline') {
      // The rows of the window: how many pages the next sweep may ask for ahead (pages-ahead.ts).
      const stats = { ...next.stats, lastSweepAtMs: startMs, sweepRows: result.records };
      next.stats = source.sweep?.paidWindowMs ? { ...stats, lastWholeSweepAtMs: startMs } : stats;
    }
    next.health.lastSuccessAt = nowIso;
    next.health.consecutiveFailures = 0;
    delete next.health.lastError;
    delete next.health.pausedUntil;
  } else if (result.outcome === 'incomplete') {
    // Events of the distinct records were published; the watermark stays, so the next poll
    // re-reads the same window.
    delete next.scan;
    next.health.lastError = {
      kind: 'incomplete-scan',
      message: `rows moved while paging in ${result.attempts} attempts; watermark kept`,
      at: nowIso,
    };
  } else if (result.outcome === 'partial' && result.pages > 0 && result.records > 0) {
    // A long scan that read pages and saved its progress is healthy; one that read nothing (out of
    // time before its first page) is not a success, or a source that never advances would look fine.
    next.health.lastSuccessAt = nowIso;
  }
  next.stats = {
    ...next.stats,
    lastPages: result.pages,
    lastRecords: result.records,
    lastEvents: result.events,
    totalEvents: (next.stats?.totalEvents ?? 0) + result.events,
    totalQuarantined: (next.stats?.totalQuarantined ?? 0) + result.quarantined,
  };
  return next;
}

/**
 * The backfill lane's cursor: only its own fields (`backfillFrom`, `backfillScan`) and counters.
 * Completed: the backfill is done. Incomplete (rows moved under every attempt): it starts again
 * next poll. Partial: its progress (already saved) resumes next poll.
 */
export function cursorAfterBackfill(cursor: Cursor, result: ScanResult): Cursor {
  const next: Cursor = { ...cursor };
  const stats: Record<string, number> = {
    ...cursor.stats,
    // This invocation's backfill pages: what a scheduler can expect the next backfill poll to cost.
    lastBackfillPages: result.pages,
    totalEvents: (cursor.stats?.totalEvents ?? 0) + result.events,
    totalQuarantined: (cursor.stats?.totalQuarantined ?? 0) + result.quarantined,
  };
  if (result.outcome === 'completed') {
    delete next.backfillFrom;
    delete next.backfillScan;
    stats.lastBackfillAtMs = Date.parse(result.scan.startedAt);
    if (result.scan.backfillFromMs !== undefined) stats.lastBackfillFromMs = result.scan.backfillFromMs;
  } else if (result.outcome === 'incomplete') {
    delete next.backfillScan;
  }
  next.stats = stats;
  return next;
}

/** What a failed poll reports of itself. */
export interface PollFailure {
  readonly kind: FailureKind;
  readonly message: string;
  readonly retryAfterMs?: number;
}

/** The cursor after a failed poll: consecutive failures of one kind, the pause a 401 or 429 starts. */
export function cursorAfterFailure(cursor: Cursor, failure: PollFailure, nowMs: number): Cursor {
  const { kind, message, retryAfterMs } = failure;
  const failures = (cursor.health.lastError?.kind === kind ? cursor.health.consecutiveFailures : 0) + 1;
  const at = iso(nowMs);
  const health = {
    ...cursor.health,
    lastPollAt: at,
    consecutiveFailures: failures,
    lastError: { kind, message: message.slice(0, 500), at },
    ...(isPauseKind(kind) ? { pausedUntil: iso(pauseEndMs(kind, failures, nowMs, retryAfterMs)) } : {}),
  };
  return { ...cursor, health };
}

/** The mark of a source found unavailable at `nowMs` (the episode keeps its first `since`). */
export function unavailableMark(
  previous: SourceUnavailable | undefined,
  cause: Unavailability,
  error: string,
  nowMs: number,
): SourceUnavailable {
  const at = iso(nowMs);
  return {
    kind: cause.kind,
    reason: error.slice(0, 500),
    ...(cause.status === undefined ? {} : { status: cause.status }),
    since: previous?.since ?? at,
    checkedAt: at,
    retryAt: iso(nowMs + UNAVAILABLE_RETRY_MS),
  };
}

/** The cursor of a source found unavailable at `nowMs`, with its mark. */
export function cursorMarkedUnavailable(
  cursor: Cursor,
  cause: Unavailability,
  error: string,
  nowMs: number,
): Cursor {
  const mark = unavailableMark(cursor.health.unavailable, cause, error, nowMs);
  return { ...cursor, health: { ...cursor.health, lastPollAt: iso(nowMs), unavailable: mark } };
}

/** The cursor without its unavailable mark (the same cursor when it has none). */
export function cursorWithoutUnavailable(cursor: Cursor): Cursor {
  if (!cursor.health.unavailable) return cursor;
  const { unavailable: _cleared, ...health } = cursor.health;
  return { ...cursor, health };
}

/** The cursor noting that its stale episode was announced at `nowMs`. */
export function cursorStaleNotified(cursor: Cursor, nowMs: number): Cursor {
  return { ...cursor, health: { ...cursor.health, staleNotifiedAt: iso(nowMs) } };
}

/**
 * The cursor asked to backfill from `fromMs`: recorded before anything else is read, so that a poll
 * that fails or runs out of time leaves it pending. A different start drops the progress of the
 * previous backfill; the same start keeps it. Undefined when the cursor already asks for it.
 */
export function cursorWithBackfillRequest(cursor: Cursor, fromMs: number): Cursor | undefined {
  const from = iso(fromMs);
  if (cursor.backfillFrom === from) return undefined;
  const { backfillScan: _dropped, ...rest } = cursor;
  return { ...rest, backfillFrom: from };
}
