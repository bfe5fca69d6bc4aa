/**
 * Samples of the lifecycle events (docs/lifecycle.md): a sandbox club polled with the four sources
 * the evaluation reads, its clock moved on hours at a time so that lapses, expiries and trial ends
 * come due, each poll evaluating the rules of the new hour as the deployed bridge does. The club's
 * thresholds are its defaults; only Member Inactive and Member Returned get a shorter lapse
 * (`inactiveDays` 3) so that a sample does not need weeks of simulated polls.
 */
import { HOUR_MS } from '../../lambdas/common/time-units';
import { type BridgeEvent, DETAIL_TYPES, type DetailType } from '../../lambdas/events/catalog';
import { LIFECYCLE_SOURCES } from '../../lambdas/lifecycle/club-lifecycle';
import { LIFECYCLE_DEFAULTS } from '../../lambdas/lifecycle/rules';
import { collect, pollEvery, type SampleOptions, withRig } from './rig';

export const LIFECYCLE_TYPES: readonly DetailType[] = [
  DETAIL_TYPES.MemberFirstVisit,
  DETAIL_TYPES.MemberInactive,
  DETAIL_TYPES.MemberReturned,
  DETAIL_TYPES.MembershipExpiring,
  DETAIL_TYPES.PaymentRecovered,
  DETAIL_TYPES.ProspectTrialEnding,
];

/** A lapse this long comes due within a sample's budget; the other thresholds are the defaults. */
const SAMPLE_INACTIVE_DAYS = 3;
/** Simulated time between two polls of the sample (each evaluates the rules); expiries are days apart. */
const STEP_MS = 4 * HOUR_MS;
const EXPIRY_STEP_MS = 12 * HOUR_MS;

export async function lifecycleEvents(options: SampleOptions): Promise<BridgeEvent[]> {
  const lapses =
    options.detailType === DETAIL_TYPES.MemberInactive || options.detailType === DETAIL_TYPES.MemberReturned;
  const club = {
    sources: [...LIFECYCLE_SOURCES],
    lifecycle: {
      ...LIFECYCLE_DEFAULTS,
      enabled: true,
      ...(lapses ? { inactiveDays: SAMPLE_INACTIVE_DAYS } : {}),
    },
  };
  return withRig(options, { members: 400, activityScale: 2 }, club, async (rig) => {
    await rig.poll(); // the silent baseline, and the first (silent) evaluation
    const step = options.detailType === DETAIL_TYPES.MembershipExpiring ? EXPIRY_STEP_MS : STEP_MS;
    return collect(rig, options, pollEvery(rig, step), (60 * 24 * HOUR_MS) / step); // 60 simulated days at most
  });
}
