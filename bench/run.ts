/**
 * `npm run bench`: every benchmark of issue 6 in one run, writing docs/benchmarks.md (the report),
 * docs/benchmarks.json (raw figures) and docs/charts/*.svg. See docs/benchmarks.md for what each
 * figure means and how it is measured.
 *
 *   npm run bench                      # the full run (about 45 minutes on 2 cores)
 *   npm run bench -- --quick           # small sizes, one run each: a smoke test of the harness
 *   npm run bench -- --cpu-prof        # also keep the raw .cpuprofile (bench/profiles/)
 *   npm run bench -- --out DIR         # write the report elsewhere (default: docs)
 *   npm run bench -- --memory-only     # only the invocation-memory step, into DIR's report
 *   npm run bench -- --only lifecycle  # the lifecycle steps alone, into the report that is there
 *   npm run bench -- --only webhooks   # only the webhook step, into the report in DIR (issue 35)
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { logger } from '../lambdas/common/logger';
import { MINUTE_MS } from '../lambdas/common/time-units';
import { type CpuCalibration, lambdaMsPerBenchMs } from './cpu-calibration';
import { measureCpuCalibration } from './cpu-timing';
import { type DeploymentSettings, readDeploymentSettings } from './deployment';
import { measureInvocationMemory } from './invocation-memory';
import { measureLifecycleBigClub } from './lifecycle-big-club';
import { machineInfo } from './machine';
import { type BenchPlan, FULL_PLAN, QUICK_PLAN } from './plan';
import { measureFingerprintHashing } from './profile';
import { elapsedMs, say } from './progress';
import type { BenchResults } from './report/results';
import { writeReport } from './report/write-report';
import { median } from './stats';
import { measureCosts } from './steps/cost-step';
import { measureEngine } from './steps/engine-step';
import { measureFleetAtScale, measureScale } from './steps/scale-step';
import { measureLifecycle, measureTypicalClub } from './steps/typical-club-step';
import { measureUnits } from './steps/units-step';
import { measureWebhooks, type WebhookFigures } from './steps/webhooks-step';

const HELP = `usage: npm run bench -- [--quick] [--cpu-prof] [--out DIR] [--render FILE]
                             [--only lifecycle|webhooks] [--memory-only]

  --quick           small sizes and one run of each benchmark (a smoke test, minutes less)
  --cpu-prof        keep the raw CPU profile of the profiled backfill in bench/profiles/
  --out DIR         directory for benchmarks.md, benchmarks.json and charts/ (default: docs)
  --render FILE     measure nothing: write the report again from a benchmarks.json
  --only lifecycle  measure the lifecycle steps alone (the typical club's added cost, the big
                    club): their figures replace those of the benchmarks.json in the --out DIR,
                    the rest is kept, and the report is written again
  --only webhooks   measure the webhook step alone and put it into DIR's benchmarks.json and report
  --memory-only     measure only the memory of a poll invocation (minutes, not the full run) and
                    write the report again from DIR's benchmarks.json with that section replaced`;

/** The steps --only runs. */
const ONLY = ['lifecycle', 'webhooks'] as const;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Flags {
  quick?: boolean;
  only?: string;
  'cpu-prof'?: boolean;
  out?: string;
  render?: string;
  'memory-only'?: boolean;
  help?: boolean;
}

/** The flags, or the exit code when there is nothing to run (bad flags: 2, --help: 0). */
function parseFlags(args: string[]): Flags | number {
  try {
    const flags: Flags = parseArgs({
      args,
      options: {
        quick: { type: 'boolean' },
        'cpu-prof': { type: 'boolean' },
        out: { type: 'string' },
        render: { type: 'string' },
        'memory-only': { type: 'boolean' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
    if (flags.only !== undefined && !(ONLY as readonly string[]).includes(flags.only))
      throw new Error(`--only takes ${ONLY.join(', ')}, got '${flags.only}'`);
    if (!flags.help) return flags;
    process.stdout.write(`${HELP}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${HELP}\n`);
    return 2;
  }
}

/** The invocation-memory step alone, its section replaced in the report of `outDir`'s JSON. */
async function memoryOnly(outDir: string): Promise<number> {
  const file = join(outDir, 'benchmarks.json');
  const results = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const invocationMemory = await measureInvocationMemory(results.plan, readDeploymentSettings('prod'));
  await writeReport({ ...results, scale: { ...results.scale, invocationMemory } }, outDir);
  say(
    `wrote the memory section of ${join(outDir, 'benchmarks.md')} in ${(elapsedMs() / MINUTE_MS).toFixed(1)} min`,
  );
  return 0;
}

/** This machine's CPU calibration (the reference workload, a few seconds), said on the console. */
function calibrationSaid(): CpuCalibration {
  const c = measureCpuCalibration();
  const r = c.lambdaMsPerBenchMs;
  say(
    `CPU calibration: reference workload ${c.referenceMs.toFixed(0)} ms (the reference core: ${c.pinnedReferenceMs} ms, Node ${c.pinnedNode}); Lambda arm64 ms a measured ms ${r.low.toFixed(2)} / ${r.middle.toFixed(2)} / ${r.top.toFixed(2)}, priced at the ${c.pricedAt}`,
  );
  return c;
}

/** The lifecycle steps: what lifecycle events add to the typical club, and the big club's hour. */
async function measureLifecycleSteps(plan: BenchPlan, deployment: DeploymentSettings, lambdaCpu: number) {
  const lifecycle = await measureLifecycle(plan, deployment, lambdaCpu);
  const lifecycleBigClub = await measureLifecycleBigClub(plan.lifecycleBigClub, deployment);
  return { lifecycle, lifecycleBigClub };
}

/** `--only lifecycle`: the lifecycle steps' figures replace those of the report in `outDir`. */
async function runOnly(plan: BenchPlan, outDir: string): Promise<number> {
  const file = join(outDir, 'benchmarks.json');
  const before = JSON.parse(await readFile(file, 'utf8')) as BenchResults;
  const deployment = readDeploymentSettings('prod');
  const calibration = calibrationSaid();
  const steps = await measureLifecycleSteps(plan, deployment, lambdaMsPerBenchMs(calibration));
  const stepsSec = elapsedMs() / 1000;
  const m = machineInfo();
  const again = { steps: 'lifecycle', date: m.date, commit: m.commit, seconds: stepsSec };
  const results: BenchResults = {
    ...before,
    ...steps,
    remeasured: [...(before.remeasured ?? []).filter((x) => x.steps !== again.steps), again],
    plan: { ...before.plan, lifecycleDays: plan.lifecycleDays, lifecycleBigClub: plan.lifecycleBigClub },
  };
  await writeReport(results, outDir);
  say(
    `wrote the lifecycle steps into ${join(outDir, 'benchmarks.md')} and benchmarks.json in ${stepsSec.toFixed(0)} s`,
  );
  return 0;
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  if (typeof flags === 'number') return flags;
  const plan = flags.quick ? QUICK_PLAN : FULL_PLAN;
  const outDir = flags.out ?? join(ROOT, 'docs');
  if (flags.render) {
    await writeReport(JSON.parse(await readFile(flags.render, 'utf8')) as BenchResults, outDir);
    say(`wrote ${join(outDir, 'benchmarks.md')} from ${flags.render}`);
    return 0;
  }
  // The engine's warnings (e.g. a scan re-read) are expected in places; keep the output to progress.
  logger.setLogLevel('ERROR');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  if (flags['memory-only']) return memoryOnly(outDir);
  if (flags.only === 'webhooks') return onlyWebhooks(plan, outDir);
  if (flags.only) return runOnly(plan, outDir);

  const machine = machineInfo();
  say(`machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; plan: ${plan.name}`);
  const deployment = readDeploymentSettings('prod');
  say(
    `deployment (lib/, prod): poll ${deployment.poll.memoryMb} MB ${deployment.poll.architecture}, dispatch ${deployment.dispatch.memoryMb} MB, every ${deployment.scheduleRateMinutes} min, batch ${deployment.pollBatchSize}, max concurrency ${deployment.pollMaxConcurrency}`,
  );
  const calibration = calibrationSaid();
  const engine = await measureEngine(plan, flags['cpu-prof'] ? join(ROOT, 'bench', 'profiles') : undefined);
  const typical = await measureTypicalClub(plan, deployment);
  const lambdaCpu = lambdaMsPerBenchMs(calibration);
  const { lifecycle, lifecycleBigClub } = await measureLifecycleSteps(plan, deployment, lambdaCpu);
  const units = await measureUnits(plan, deployment);
  const scale = await measureScale(plan, deployment, typical);
  const cost = measureCosts(plan, deployment, typical, scale.dispatchMemory, undefined, calibration);
  const atScale = await measureFleetAtScale(plan, typical, cost, scale.fleet);
  const invocationMemory = await measureInvocationMemory(plan, deployment);
  const webhooks = await measureWebhooks(plan, deployment, median(typical.runs.map((r) => r.perDay.events)));

  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    durationSec: elapsedMs() / 1000,
    plan,
    machine,
    ...(cost.cpuCalibration ? { cpuCalibration: cost.cpuCalibration } : {}),
    deployment,
    throughput: engine.throughput,
    backfill: engine.backfill,
    profile: engine.profile,
    fingerprintHashing: await measureFingerprintHashing(),
    typical: { runs: typical.runs, unconfirmedZone: typical.unconfirmedZone, laneOff: typical.laneOff },
    lifecycle,
    lifecycleBigClub,
    units,
    scale: { ...scale, atScale, invocationMemory },
    cost: cost.costs,
    webhooks,
  };
  await writeReport(results, outDir);
  say(
    `wrote ${join(outDir, 'benchmarks.md')}, benchmarks.json and charts/ in ${(elapsedMs() / MINUTE_MS).toFixed(1)} min`,
  );
  return 0;
}
/**
 * `--only webhooks`: the webhook step measured alone and put into the report in `outDir` (its
 * benchmarks.json: the rest of it as it was, the `webhooks` key replaced), the report rendered again.
 */
async function onlyWebhooks(plan: BenchPlan, outDir: string): Promise<number> {
  const file = join(outDir, 'benchmarks.json');
  const previous = JSON.parse(await readFile(file, 'utf8')) as BenchResults & Record<string, unknown>;
  const eventsPerDay = median(previous.typical.runs.map((r) => r.perDay.events));
  say(
    `webhooks only, plan ${plan.name}; the typical club's ${eventsPerDay.toFixed(0)} events a day from ${file}`,
  );
  const webhooks = await measureWebhooks(plan, readDeploymentSettings('prod'), eventsPerDay);
  const results = { ...withWebhooks(previous, webhooks), webhooks } as BenchResults;
  await writeReport(results, outDir, { json: withWebhooks(previous, webhooks) });
  say(
    `wrote the webhook figures into ${file} and ${join(outDir, 'benchmarks.md')} in ${(elapsedMs() / MINUTE_MS).toFixed(1)} min`,
  );
  return 0;
}

/** The JSON with `webhooks` after the other keys compared run to run (in place if it was there). */
function withWebhooks(json: Record<string, unknown>, webhooks: WebhookFigures): Record<string, unknown> {
  const entries = Object.entries(json).filter(([k]) => k !== 'webhooks');
  const at = entries.findIndex(([k]) => k === 'generatedAt');
  entries.splice(at < 0 ? entries.length : at, 0, ['webhooks', webhooks]);
  return Object.fromEntries(entries);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
