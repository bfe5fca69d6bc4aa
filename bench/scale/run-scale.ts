/**
 * The scale step on its own (issue 20), without the rest of `npm run bench` (46 minutes): a short
 * typical-club simulation for the steady-state cursors, a small fleet hour for the minute's shape,
 * then the fleet at scale, every dispatch shard measured. The poll invocation time and the PutEvents
 * rate come from the last full run (docs/benchmarks.json) unless given. It writes a JSON of the
 * figures (default tmp/scale-run.json), never docs/: the full bench regenerates the report.
 *
 *   npx tsx bench/scale/run-scale.ts [--clubs 50000] [--fleet-clubs 60] [--fleet-minutes 5]
 *     [--template-hours 2] [--poll-invocation-seconds S] [--out FILE]
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spreadSecondsFor } from '../../lambdas/common/club-shard';
import { logger } from '../../lambdas/common/logger';
import { HOUR_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import { simulateClub } from '../club-simulation';
import { CLUBS_PER_SECRET } from '../cost';
import { readDeploymentSettings } from '../deployment';
import { FULL_PLAN } from '../plan';
import { say } from '../progress';
import { perPollOf } from '../steps/scale-step';
import { fleetAtScale, stageAtScale } from './fleet-at-scale';
import { fleetHour } from './fleet-hour';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The last full run's poll invocation seconds and PutEvents requests per club-month. */
async function lastRun(): Promise<{ pollInvocationSeconds: number; putEventsPerClubMonth: number }> {
  const json = JSON.parse(await readFile(join(ROOT, 'docs', 'benchmarks.json'), 'utf8'));
  const big = json.scale.atScale ?? json.scale.fleet5000;
  return {
    pollInvocationSeconds: json.cost.default.pollBilledMsPerInvocation / 1000,
    putEventsPerClubMonth: (big.rates.putEventsRequestsPerSecond * 30 * 86_400) / big.clubs,
  };
}

/** The flags, checked: a bad number names its flag. */
function readFlags() {
  const { values } = parseArgs({
    options: {
      clubs: { type: 'string', default: String(FULL_PLAN.scaleClubs) },
      'fleet-clubs': { type: 'string', default: '60' },
      'fleet-minutes': { type: 'string', default: '5' },
      'template-hours': { type: 'string', default: '2' },
      'poll-invocation-seconds': { type: 'string' },
      out: { type: 'string', default: join(ROOT, 'tmp', 'scale-run.json') },
    },
    strict: true,
  });
  const number = (flag: keyof typeof values) => {
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`--${flag} must be a positive number, got ${values[flag]}`);
    return n;
  };
  return { values, number };
}

/** The typical club's steady-state cursors, and the small fleet hour's minute. */
async function templateAndFleet(flags: ReturnType<typeof readFlags>) {
  const { values, number } = flags;
  const deployment = readDeploymentSettings('prod');
  const previous = await lastRun();
  const sim = await simulateClub({
    seed: FULL_PLAN.simSeeds[0]!,
    ...FULL_PLAN.typicalClub,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    startTime: '2026-03-02T00:00:00Z',
    spanMs: number('template-hours') * HOUR_MS,
    stepMs: deployment.scheduleRateMinutes * MINUTE_MS,
  });
  await sim.host.close();
  say(`template: the typical club after ${values['template-hours']} h (${sim.cursors.length} cursors)`);
  const fleet = await fleetHour({
    ...FULL_PLAN.fleet,
    clubs: number('fleet-clubs'),
    minutes: number('fleet-minutes'),
    workers: deployment.pollMaxConcurrency,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    seed: 9,
    spreadSeconds: spreadSecondsFor(deployment.scheduleRateMinutes * 60),
  });
  say(
    `fleet: ${fleet.polls} polls; polls a second peak/mean ${fleet.minuteShape.polls.peakToMean.toFixed(2)}`,
  );
  return { deployment, previous, sim, fleet };
}

async function main(): Promise<void> {
  const flags = readFlags();
  const { values, number } = flags;
  logger.setLogLevel('ERROR');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const clubs = number('clubs');
  const { previous, sim, fleet } = await templateAndFleet(flags);
  const stage = stageAtScale(clubs);
  const result = await fleetAtScale({
    template: sim.cursors,
    nowMs: sim.endSimMs + 60_000,
    clubs,
    stage,
    pollInvocationSeconds: values['poll-invocation-seconds']
      ? number('poll-invocation-seconds')
      : previous.pollInvocationSeconds,
    putEventsRequestsPerClubMonth: previous.putEventsPerClubMonth,
    getSecretValuePerSecond: (stage.pollMaxConcurrency * Math.ceil(clubs / CLUBS_PER_SECRET)) / 1800,
    perPoll: perPollOf(fleet),
  });
  const { minutes, ...fleetSummary } = fleet;
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(
    values.out,
    `${JSON.stringify({ atScale: result, fleet: { ...fleetSummary, minutes: minutes.length } }, null, 2)}\n`,
  );
  say(
    `${result.clubs} clubs, ${result.dispatchShards} shards: slowest ${result.dispatchSeconds.toFixed(1)} s of ${result.dispatchTimeoutSeconds} s; poll concurrency ${result.pollConcurrencyNeeded.toFixed(0)} needed / ${result.pollConcurrencyConfigured} configured; wrote ${values.out}`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `scale run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
