/** The bench's DynamoDB unit model checked against what dynalite says each call consumed (issue 20). */
import { HOUR_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { DeploymentSettings } from '../deployment';
import type { BenchPlan } from '../plan';
import { say } from '../progress';
import { checkUnitModel, type UnitsCheck } from '../units-check';

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

export async function measureUnits(plan: BenchPlan, deployment: DeploymentSettings): Promise<UnitsCheck> {
  const { hours, ...club } = plan.unitsCheck;
  const check = await checkUnitModel({
    seed: plan.simSeeds[0]!,
    ...club,
    spanMs: hours * HOUR_MS,
    stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    startTime: '2026-03-02T00:00:00Z',
  });
  say(
    `unit model vs dynalite's consumed capacity, ${hours} h of a ${club.members}-member club: reads ${pct(check.error.read)}, writes ${pct(check.error.write)}, priced ${pct(check.error.priced)}`,
  );
  return check;
}
