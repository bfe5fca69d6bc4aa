/**
 * Spreading a dispatch period (docs/scale.md, "Spreading the minute"): every club's poll starts at
 * its own second of the period (its phase, common/club-shard.ts), not all in the period's first
 * seconds. The dispatcher decides each club as of that moment and queues its message to become
 * visible then (SQS DelaySeconds), so the fleet's polls, DynamoDB requests and PutEvents calls are
 * flat over the period.
 *
 * A club's phase never changes, so its polls stay one period apart: its last poll started at the
 * same second of the previous period, and the scheduler (engine/schedule/scheduling.ts) finds it due again
 * when it is decided at that second. A run that starts late (a cold start, a slow shard) queues
 * with no delay the clubs whose moment has passed: they are polled as soon as possible, never
 * before their moment.
 */
import { clubPhaseSeconds } from '../../common/club-shard';

/** When a club's poll of the period starting at `periodStartMs` starts: its phase into the period. */
export function pollMomentMs(clubId: string, periodStartMs: number, spreadSeconds: number): number {
  return periodStartMs + clubPhaseSeconds(clubId, spreadSeconds) * 1000;
}

/**
 * The clubs in the order their moments come (then by id): a dispatcher reads and queues them in
 * this order, so the early moments are queued first.
 */
export function inPhaseOrder<T extends { readonly clubId: string }>(
  clubs: readonly T[],
  spreadSeconds: number,
): T[] {
  if (spreadSeconds <= 1) return [...clubs];
  const phased = clubs.map((club) => ({ club, phase: clubPhaseSeconds(club.clubId, spreadSeconds) }));
  phased.sort((a, b) => a.phase - b.phase || (a.club.clubId < b.club.clubId ? -1 : 1));
  return phased.map((p) => p.club);
}
