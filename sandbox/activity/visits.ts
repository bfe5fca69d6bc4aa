/** Visits: door scans of members, shaped by the local hour and the club's opening hours. */
import { DAY_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { ClubProfile } from '../club-profile';
import { DOORS } from '../vocabulary';
import type { SimulationContext } from './context';

/** Relative visit (and walk-in) traffic per local hour. */
export const HOURLY_TRAFFIC = [
  0.25, 0.15, 0.12, 0.12, 0.3, 1.2, 2.2, 2.0, 1.5, 1.1, 0.8, 0.8, 1.1, 0.9, 0.6, 0.7, 1.1, 2.0, 2.2, 1.6, 1.0,
  0.6, 0.4, 0.3,
];

/**
 * How busy the club is at a local time (naive ms), relative to its average open hour: 0 when
 * closed, the hour's share of the open hours' traffic times 24 otherwise.
 */
export function trafficFactor(profile: ClubProfile, localMs: number): number {
  const localMinute = Math.floor((localMs % DAY_MS) / MINUTE_MS);
  if (!profile.open24h && (localMinute < profile.openMinute || localMinute >= profile.closeMinute)) return 0;
  let sum = 0;
  for (let h = 0; h < 24; h++) {
    const open = profile.open24h || (h * 60 + 59 >= profile.openMinute && h * 60 < profile.closeMinute);
    if (open) sum += HOURLY_TRAFFIC[h] ?? 0;
  }
  return ((HOURLY_TRAFFIC[Math.floor(localMinute / 60)] ?? 0) / sum) * 24;
}

/** One visit at each of `times` (sorted), by a member let in at the door. */
export function visitBatch(ctx: SimulationContext, times: readonly number[]): void {
  const { rng, store } = ctx;
  const active = store.memberStatusSet('Active');
  const issue = store.memberStatusSet('PaymentIssue');
  const doorWeights = DOORS.map((d, i) => [i, d[2]] as const);
  for (const at of times) {
    // Access control usually still lets members with a payment issue in.
    const set = issue.size > 0 && rng.chance(0.05) ? issue : active;
    const member = set.pick(rng);
    if (member === undefined) continue;
    const visitAt = ctx.recordTime(at);
    if (trafficFactor(store.profile, store.local(visitAt)) === 0) continue;
    store.addVisit(member, rng.weighted(doorWeights), visitAt, at);
  }
}
