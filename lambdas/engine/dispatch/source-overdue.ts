/**
 * Which club/sources are overdue: no successful poll for longer than their cadence allows.
 *
 * The dispatcher reads every enabled club's cursors every run anyway; this turns what it read into
 * the fleet-wide freshness signal behind the SourceOverdue alarm (metrics `SourcesOverdue` and
 * `OldestSuccessAgeSeconds`, service-wide only, so the cost does not grow with the number of clubs)
 * and into one log line per overdue club/source, which a Logs Insights query lists.
 *
 * A source is overdue when `now - reference > allowance`, where
 * - `reference` is the latest of: its last successful poll (`health.lastSuccessAt`), the club
 *   record's last write (`updatedAt`: onboarding, re-enabling or new credentials restart the
 *   clock, and a source that never succeeded is measured from there), and the end of a pause that
 *   is over (a club resumed after a 6-hour pause gets its allowance again before it counts);
 * - `allowance` is `max(OVERDUE_CADENCE_FACTOR x cadence x quota stretch, minimum)`: the cadence is
 *   the source's interval (SOURCE_CADENCE), stretched as the scheduler stretches it for a
 *   club saving quota, and `minimum` is the deployment's setting (SOURCE_OVERDUE_MINUTES, default
 *   DEFAULT_SOURCE_OVERDUE_MINUTES). Failure back-off does NOT widen the allowance: a source that
 *   keeps failing is exactly what this must catch.
 *
 * Not counted (each has its own signal):
 * - sources of a club paused now after a 401 or a 429 (`health.pausedUntil` in the future): the
 *   CredentialsRejected and QuotaHigh alarms, and the Club Credentials Rejected / Club Quota Low
 *   events, already say so; counting them would keep SourceOverdue firing for the whole pause;
 * - sources the scheduler holds back because the month's quota budget is spent
 *   ('quota-exhausted'): QuotaHigh;
 * - sources marked unavailable for the club (`health.unavailable`: the endpoint answered 404/400/403
 *   or an unusable shape; re-tried rarely, reported by `status` and an operational event).
 */
import type { ClubRecord } from '../../clubs/club-record';
import { DEFAULT_SOURCE_OVERDUE_MINUTES, OVERDUE_CADENCE_FACTOR } from '../../common/deployment-contract';
import type { Cursor, SourceName } from '../../state/store';
import { SOURCE_CADENCE } from '../schedule/cadence';
import type { ClubSchedule } from '../schedule/scheduling';

export {
  DEFAULT_SOURCE_OVERDUE_MINUTES,
  OVERDUE_CADENCE_FACTOR,
  SOURCE_OVERDUE_LOG_MESSAGE,
} from '../../common/deployment-contract';

import { MINUTE_MS } from '../../common/time-units';

export interface OverdueSource {
  readonly clubId: string;
  readonly source: SourceName;
  /** Seconds since the reference (last success, or see above). */
  readonly sinceSuccessSeconds: number;
  /** The source's cadence (longest interval, quota stretch applied), seconds. */
  readonly cadenceSeconds: number;
  /** What it was allowed, seconds. */
  readonly allowedSeconds: number;
  /** Absent: the source never completed a poll. */
  readonly lastSuccessAt?: string;
  readonly consecutiveFailures: number;
  /** Kind and time of the last error the engine stored (absent: none stored). */
  readonly lastErrorKind?: string;
  readonly lastErrorAt?: string;
  /**
   * Why it is overdue, always set: the last error's text as the engine stored it (redacted there,
   * never a credential), or what is known when no error is stored (never succeeded, not polled).
   */
  readonly reason: string;
}

export interface ClubOverdueAssessment {
  /** Sources checked (enabled, not paused, not unavailable, not held back by the quota). */
  readonly checked: number;
  readonly overdue: readonly OverdueSource[];
  /** Largest `now - reference` among the checked sources, seconds (undefined when none has one). */
  readonly oldestSuccessAgeSeconds?: number;
}

export interface AssessOverdueInput {
  readonly record: Pick<ClubRecord, 'clubId' | 'updatedAt'>;
  readonly cursors: readonly Cursor[];
  readonly schedule: ClubSchedule;
  readonly nowMs: number;
  /** Minimum allowance. @default DEFAULT_SOURCE_OVERDUE_MINUTES minutes */
  readonly minimumMs?: number;
}

const parseMs = (iso: string | undefined): number | undefined => {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
};

/**
 * True when the cursor says the source is unavailable for this club. Read loosely: the field
 * (`health.unavailable`, e.g. `{ reason, since, retryAt }`) belongs to the state module and the
 * dispatcher only needs to know it is set.
 */
export function isMarkedUnavailable(cursor: Cursor | undefined): boolean {
  const unavailable = (cursor?.health as { unavailable?: unknown } | undefined)?.unavailable;
  return unavailable !== undefined && unavailable !== null && unavailable !== false;
}

/** The overdue sources of one club, from what the dispatcher already read. */
export function assessOverdue(input: AssessOverdueInput): ClubOverdueAssessment {
  const { nowMs, schedule } = input;
  const minimumMs = input.minimumMs ?? DEFAULT_SOURCE_OVERDUE_MINUTES * MINUTE_MS;
  if (schedule.pausedUntilMs !== undefined && schedule.pausedUntilMs > nowMs) {
    return { checked: 0, overdue: [] };
  }
  const bySource = new Map(input.cursors.map((c) => [c.source, c]));
  const updatedMs = parseMs(input.record.updatedAt);
  const overdue: OverdueSource[] = [];
  let checked = 0;
  let oldest: number | undefined;
  for (const s of schedule.sources) {
    if (s.reason === 'quota-exhausted' || s.reason === 'paused') continue;
    const cursor = bySource.get(s.source);
    if (isMarkedUnavailable(cursor)) continue;
    checked++;
    const health = cursor?.health;
    const successMs = parseMs(health?.lastSuccessAt);
    const pauseEndedMs = parseMs(health?.pausedUntil);
    const candidates = [
      successMs,
      updatedMs,
      pauseEndedMs !== undefined && pauseEndedMs <= nowMs ? pauseEndedMs : undefined,
    ];
    const referenceMs = Math.max(...candidates.filter((ms): ms is number => ms !== undefined));
    if (!Number.isFinite(referenceMs)) continue; // nothing to measure from (no success, no record time)
    const sinceMs = Math.max(0, nowMs - referenceMs);
    oldest = Math.max(oldest ?? 0, sinceMs);
    const cadenceMs = SOURCE_CADENCE[s.source].intervalMs * schedule.stretch;
    const allowedMs = Math.max(OVERDUE_CADENCE_FACTOR * cadenceMs, minimumMs);
    if (sinceMs <= allowedMs) continue;
    const lastError = health?.lastError;
    const reason = lastError?.message
      ? lastError.message
      : successMs === undefined
        ? 'no poll of this source has succeeded yet, and no error is stored'
        : `no error is stored; the last successful poll was ${Math.round(sinceMs / 60_000)} minutes ago (not polled since?)`;
    overdue.push({
      clubId: input.record.clubId,
      source: s.source,
      sinceSuccessSeconds: Math.round(sinceMs / 1000),
      cadenceSeconds: Math.round(cadenceMs / 1000),
      allowedSeconds: Math.round(allowedMs / 1000),
      ...(health?.lastSuccessAt ? { lastSuccessAt: health.lastSuccessAt } : {}),
      consecutiveFailures: health?.consecutiveFailures ?? 0,
      ...(lastError ? { lastErrorKind: lastError.kind, lastErrorAt: lastError.at } : {}),
      reason,
    });
  }
  return {
    checked,
    overdue,
    ...(oldest === undefined ? {} : { oldestSuccessAgeSeconds: Math.round(oldest / 1000) }),
  };
}
