/**
 * The events the webhook bench delivers: what the typical club really publishes (its simulation,
 * bench/club-simulation.ts, a few hours of an afternoon), so bodies, sizes and the mix of
 * detail-types are the bridge's own. The load replays them for 1,000 clubs, each copy with its
 * club and a new eventId.
 */
import { HOUR_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import { simulateClub } from '../club-simulation';
import type { DeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';

export interface EventPool {
  readonly events: readonly { readonly detailType: string; readonly detail: Record<string, unknown> }[];
  /** Simulated hours they were published in. */
  readonly hours: number;
  readonly byType: Record<string, number>;
}

export async function captureClubEvents(
  plan: BenchPlan,
  deployment: DeploymentSettings,
  hours: number,
): Promise<EventPool> {
  const events: BridgeEvent[] = [];
  const sim = await simulateClub({
    seed: plan.simSeeds[0]!,
    ...plan.typicalClub,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    pollBatchSize: deployment.pollBatchSize,
    // 11:00 in Sydney: the club's opening hours, when its members visit.
    startTime: '2026-03-02T00:00:00Z',
    spanMs: hours * HOUR_MS,
    stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
    onEvents: (batch) => events.push(...batch),
  });
  await sim.host.close();
  const byType: Record<string, number> = {};
  for (const e of events) byType[e.detailType] = (byType[e.detailType] ?? 0) + 1;
  return {
    events: events.map((e) => ({
      detailType: e.detailType,
      detail: e.detail as unknown as Record<string, unknown>,
    })),
    hours,
    byType,
  };
}
