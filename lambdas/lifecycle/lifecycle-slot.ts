/**
 * When a club's lifecycle evaluation runs in the hour, and in which hours it reads everything
 * (docs/lifecycle.md, "State and schedule"). A fleet starts together, so without a slot every club
 * would evaluate in the first minute of each UTC hour and rebase in the same hour every 12 hours
 * (each base rewritten 12 hours after the first evaluation): ~18 strongly consistent read units a
 * club at :00, and ~320 a club in one minute twice a day. Provisioned capacity holds the mean, not
 * such a minute. Each club gets a fixed slot from its id instead (one of 720: a minute of the hour
 * and one of 12 rebase hours), so the fleet's evaluations and rebases are spread evenly.
 */
import { clubSlot } from '../../common/club-shard';
import { HOUR_MS, MINUTE_MS } from '../../common/time-units';

/** An evaluation reads everything and rewrites the base at least this often (the notes' safety net). */
export const REBASE_EVERY_MS = 12 * HOUR_MS;
const REBASE_HOURS = REBASE_EVERY_MS / HOUR_MS;
const MINUTES_AN_HOUR = 60;
/** Names the lifecycle's slot among a club's slots (club-shard.ts). */
const LIFECYCLE_SALT = 0x6c696665;

export interface LifecycleSlot {
  /** How far past each UTC hour the club's evaluation hour starts, ms (a whole minute, 0..59). */
  readonly offsetMs: number;
  /** The evaluation hours (epoch hour mod 12) in which the club rebases. */
  readonly rebaseHour: number;
}

export function lifecycleSlot(clubId: string): LifecycleSlot {
  const slot = clubSlot(clubId, MINUTES_AN_HOUR * REBASE_HOURS, LIFECYCLE_SALT);
  return { offsetMs: (slot % MINUTES_AN_HOUR) * MINUTE_MS, rebaseHour: Math.floor(slot / MINUTES_AN_HOUR) };
}

/** The club's evaluation hour at an instant (an epoch hour number, shifted by its slot's offset). */
export function evaluationHourOf(clubId: string, ms: number): number {
  return Math.floor((ms - lifecycleSlot(clubId).offsetMs) / HOUR_MS);
}

/** When the club's evaluation hour `hour` starts (epoch ms). */
export function evaluationHourStartMs(clubId: string, hour: number): number {
  return hour * HOUR_MS + lifecycleSlot(clubId).offsetMs;
}

/**
 * Whether an evaluation in `hour` rebases a base written at `baseWrittenAtMs`: in the club's rebase
 * hours (every 12th evaluation hour) when the base was written before the hour began, so a base
 * written off the slot (by a first evaluation) moves onto it at the next slot hour; and whenever the
 * base is a whole period old (a slot hour without an evaluation: the club waited, or did not poll).
 */
export function rebaseDue(clubId: string, hour: number, baseWrittenAtMs: number, nowMs: number): boolean {
  if (nowMs - baseWrittenAtMs >= REBASE_EVERY_MS) return true;
  const fromSlot = hour - lifecycleSlot(clubId).rebaseHour;
  const inSlot = ((fromSlot % REBASE_HOURS) + REBASE_HOURS) % REBASE_HOURS === 0;
  return inSlot && baseWrittenAtMs < evaluationHourStartMs(clubId, hour);
}
