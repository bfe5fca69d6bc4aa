/**
 * `npm run bench`: every benchmark of issue 6 in one run, writing docs/benchmarks.md (the report),
 * docs/benchmarks.json (raw figures) and docs/charts/*.svg. See docs/benchmarks.md for what each
 * figure means and how it is measured.
 *
 *   npm run bench                      # the full run (about 10 minutes on 2 cores)
 *   npm run bench -- --quick           # small sizes, one run each: a smoke test of the harness
 *   npm run bench -- --cpu-prof        # also keep the raw .cpuprofile (bench/profiles/)
 *   npm run bench -- --out DIR         # write the report elsewhere (default: docs)
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { logger } from '../lambdas/common/logger';
import { pollConcurrencyFor } from '../lib/stage-config';
import {
  type BackfillRun,
  clientOnlyLoop,
  type FetchLoopRun,
  rawFetchLoop,
  resumableBackfill,
} from './backfill';
import { startBigClub } from './big-club';
import { simulateClub } from './club-simulation';
import { CLUBS_PER_SECRET, type ClubCost, clubCost } from './cost';

/** The fleet the cost per club is quoted for (docs/benchmarks.json `costPerClubMonthUsd`). */
const COST_FLEET_CLUBS = 1000;
/** Fleets the fixed costs are divided over in the report. */
const FLEET_SIZES = [100, 1000, 5000] as const;

import { readDeploymentSettings } from './deployment';
import { machineInfo } from './machine';
import { runNaivePoller } from './naive-poller';
import { FULL_PLAN, QUICK_PLAN } from './plan';
import { measureFingerprintHashing, type ProfileSummary, profileBackfill } from './profile';
import type { BenchResults } from './report/results';
import { writeReport } from './report/write-report';
import { type DispatchRun, dispatchInMemory, dispatchOnDynalite } from './scale/dispatch';
import { fleet5000 } from './scale/fleet-5000';
import { fleetHour } from './scale/fleet-hour';
import { median, medianRun } from './stats';
import {
  dynaliteBackfill,
  memoryBackfill,
  type PublishSdkRun,
  publishOverSdk,
  startDynaliteHost,
  type ThroughputRun,
} from './throughput';
import { summariseRun, type TypicalClubRun } from './typical-club';

const HELP = `usage: npm run bench -- [--quick] [--cpu-prof] [--out DIR] [--render FILE]

  --quick        small sizes and one run of each benchmark (a smoke test, minutes less)
  --cpu-prof     keep the raw CPU profile of the profiled backfill in bench/profiles/
  --out DIR      directory for benchmarks.md, benchmarks.json and charts/ (default: docs)
  --render FILE  measure nothing: write the report again from a benchmarks.json`;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const say = (text: string) =>
  process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);

async function main(): Promise<number> {
  let flags: { quick?: boolean; 'cpu-prof'?: boolean; out?: string; render?: string; help?: boolean };
  try {
    flags = parseArgs({
      args: process.argv.slice(2),
      options: {
        quick: { type: 'boolean' },
        'cpu-prof': { type: 'boolean' },
        out: { type: 'string' },
        render: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n\n${HELP}\n`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
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

  const machine = machineInfo();
  say(`machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; plan: ${plan.name}`);
  const deployment = readDeploymentSettings('prod');
  say(
    `deployment (lib/, prod): poll ${deployment.poll.memoryMb} MB ${deployment.poll.architecture}, dispatch ${deployment.dispatch.memoryMb} MB, every ${deployment.scheduleRateMinutes} min, batch ${deployment.pollBatchSize}, max concurrency ${deployment.pollMaxConcurrency}`,
  );

  // 1. Throughput, backfill and profile: the large club.
  say(`starting the large club's sandbox (${plan.bigClub.members} members, ${plan.bigClub.visits} visits)`);
  const big = await startBigClub(plan.bigClub);
  const memoryRuns: ThroughputRun[] = [];
  const dynaliteRuns: ThroughputRun[] = [];
  const sdkRuns: PublishSdkRun[] = [];
  const backfillRuns: BackfillRun[] = [];
  const rawRuns: FetchLoopRun[] = [];
  const clientRuns: FetchLoopRun[] = [];
  let profile: ProfileSummary;
  try {
    for (let i = 0; i < plan.runs; i++) {
      const r = await memoryBackfill(big);
      memoryRuns.push(r);
      say(
        `throughput in memory ${i + 1}/${plan.runs}: ${r.records} rows in ${(r.wallMs / 1000).toFixed(1)} s, ${Math.round(r.recordsPerCpuSec)} rows per CPU-second`,
      );
    }
    const db = await startDynaliteHost();
    try {
      for (let i = 0; i < plan.runs; i++) {
        const r = await dynaliteBackfill(big, db, plan.dynaliteSliceMs);
        dynaliteRuns.push(r);
        say(
          `throughput on dynalite ${i + 1}/${plan.runs}: ${r.records} rows in ${(r.wallMs / 1000).toFixed(1)} s`,
        );
      }
    } finally {
      await db.close();
    }
    for (let i = 0; i < plan.runs; i++) sdkRuns.push(await publishOverSdk(big, plan.sdkPublishEvents));
    say(`PutEvents over the SDK: ${Math.round(median(sdkRuns.map((r) => r.eventsPerSec)))} events/s`);
    const fromMs = big.info.nowMs - plan.backfillDays * 86_400_000;
    for (let i = 0; i < plan.runs; i++) {
      backfillRuns.push(await resumableBackfill(big, fromMs, plan.invocationBudgetMs));
      rawRuns.push(await rawFetchLoop(big, fromMs, 100_000));
      clientRuns.push(await clientOnlyLoop(big, fromMs, 100_000));
    }
    say(
      `resumable backfill: ${median(backfillRuns.map((r) => r.pagesPerSec)).toFixed(0)} pages/s; sandbox raw ${median(rawRuns.map((r) => r.pagesPerSec)).toFixed(0)} pages/s`,
    );
    const keep = flags['cpu-prof'] ? join(ROOT, 'bench', 'profiles') : undefined;
    if (keep) await mkdir(keep, { recursive: true });
    profile = await profileBackfill({ clubsFile: big.info.clubsFile, nowMs: big.info.nowMs, fromMs }, keep);
    say(
      `profiled ${profile.records} rows (${(profile.totalMs / 1000).toFixed(1)} s of samples)${profile.file ? `: ${profile.file}` : ''}`,
    );
  } finally {
    await big.host.close();
  }

  // 2. The typical club over simulated days: API efficiency, freshness, costs; and the naive poller.
  const typicalRuns: TypicalClubRun[] = [];
  let templateCursors: Awaited<ReturnType<typeof simulateClub>>['cursors'] = [];
  let templateNowMs = 0;
  for (const seed of plan.simSeeds) {
    const sim = await simulateClub({
      seed,
      ...plan.typicalClub,
      spanMs: plan.simDays * 86_400_000,
      stepMs: deployment.scheduleRateMinutes * 60_000,
      pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
      startTime: '2026-03-02T00:00:00Z',
    });
    try {
      const naive = await runNaivePoller(
        sim.host,
        sim.club,
        plan.naiveCycles,
        deployment.scheduleRateMinutes * 60_000,
        sim.lastSeq,
      );
      const run = summariseRun(sim, naive, seed);
      typicalRuns.push(run);
      if (templateCursors.length === 0) {
        templateCursors = sim.cursors;
        templateNowMs = sim.endSimMs;
      }
      say(
        `typical club, seed ${seed}: ${plan.simDays} days in ${(sim.wallMs / 1000).toFixed(0)} s; p95 freshness ${run.freshness.p95.toFixed(0)} s, ${(run.quotaShareBasic * 100).toFixed(1)}% of Basic, ${run.rowsPerChange.toFixed(0)} rows/change (naive ${run.naive?.rowsPerChange.toFixed(0)})`,
      );
    } finally {
      await sim.host.close();
    }
  }
  const alt = await simulateClub({
    seed: plan.simSeeds[0]!,
    ...plan.typicalClub,
    spanMs: plan.altScheduleHours * 3_600_000,
    stepMs: 60_000,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    startTime: '2026-03-02T00:00:00Z',
    zoneConfirmed: false,
  });
  await alt.host.close();
  const altRun = summariseRun(alt, undefined, plan.simSeeds[0]!);
  say(
    `zone reading not confirmed: p95 ${altRun.freshness.p95.toFixed(0)} s at ${(altRun.quotaShareBasic * 100).toFixed(1)}% of Basic`,
  );

  // 3. Scale.
  const dispatchMemory = await dispatchInMemory(
    templateCursors,
    templateNowMs + 60_000,
    plan.dispatchClubs,
    plan.runs,
  );
  say(
    `dispatch of ${plan.dispatchClubs} clubs in memory: ${median(dispatchMemory.map((r) => r.wallMs)).toFixed(0)} ms`,
  );
  const db = await startDynaliteHost();
  let dispatchDynalite: { runs: DispatchRun[]; seedMs: number };
  try {
    dispatchDynalite = await dispatchOnDynalite(
      db,
      templateCursors,
      templateNowMs + 60_000,
      plan.dynaliteDispatchClubs,
      plan.runs,
    );
  } finally {
    await db.close();
  }
  say(
    `dispatch of ${plan.dynaliteDispatchClubs} clubs on dynalite: ${median(dispatchDynalite.runs.map((r) => r.wallMs)).toFixed(0)} ms`,
  );
  const fleet = await fleetHour({
    ...plan.fleet,
    workers: deployment.pollMaxConcurrency,
    pollDeadlineMs: deployment.pollDeadlineMs ?? 100_000,
    seed: 9,
  });
  say(
    `fleet: ${fleet.clubs} clubs for ${fleet.minutes.length} simulated minutes: ${fleet.polls} polls in ${(fleet.wallMs / 1000).toFixed(1)} s`,
  );

  // 4. Cost per club, at the default schedule (median run), with the latency sensitivity.
  const dispatchShare = {
    cpuMsPerClub: median(dispatchMemory.map((r) => r.cpuMs)) / plan.dispatchClubs,
    requestsPerClub: 1 / 100,
    logBytesPerRun: 600,
  };
  const costFor = (run: TypicalClubRun, options: { apiMs?: number; clubs?: number } = {}): ClubCost =>
    clubCost(
      run.monthly,
      deployment,
      dispatchShare,
      options.clubs ?? COST_FLEET_CLUBS,
      options.apiMs === undefined ? {} : { gymApiRequest: options.apiMs },
    );
  const costRun = medianRun(typicalRuns, (r) => costFor(r).total);
  const costs = {
    default: costFor(costRun),
    noLatency: costFor(costRun, { apiMs: 0 }),
    slowApi: costFor(costRun, { apiMs: 1000 }),
    unconfirmedZone: costFor(altRun),
    byFleet: FLEET_SIZES.map((clubs) => ({ clubs, cost: costFor(costRun, { clubs }) })),
    perRun: typicalRuns.map((r) => ({ seed: r.seed, total: costFor(r).total })),
    seed: costRun.seed,
  };

  const secretsPerSecond =
    (pollConcurrencyFor(plan.dispatchClubs, deployment.pollBatchSize) *
      Math.ceil(plan.dispatchClubs / CLUBS_PER_SECRET)) /
    1800;
  const fleetOf5000 = await fleet5000({
    template: templateCursors,
    nowMs: templateNowMs + 60_000,
    clubs: plan.dispatchClubs,
    dispatchMemoryMb: deployment.dispatch.memoryMb,
    dispatchTimeoutSeconds: deployment.dispatch.timeoutSec,
    batchSize: deployment.pollBatchSize,
    pollConcurrencyConfigured: pollConcurrencyFor(plan.dispatchClubs, deployment.pollBatchSize),
    pollInvocationSeconds: costs.default.pollBilledMsPerInvocation / 1000,
    putEventsRequestsPerClubMonth: costRun.monthly.putEventsRequests,
    getSecretValuePerSecond: secretsPerSecond,
  });
  say(
    `fleet of ${fleetOf5000.clubs}: dispatch ${fleetOf5000.dispatchSeconds.toFixed(1)} s of ${fleetOf5000.dispatchTimeoutSeconds} s at the CPU share; poll concurrency needed ${fleetOf5000.pollConcurrencyNeeded.toFixed(1)}, configured ${fleetOf5000.pollConcurrencyConfigured}`,
  );

  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    durationSec: (Date.now() - started) / 1000,
    plan,
    machine,
    deployment,
    throughput: { memory: memoryRuns, dynalite: dynaliteRuns, sdk: sdkRuns },
    backfill: { resumable: backfillRuns, raw: rawRuns, clientOnly: clientRuns, days: plan.backfillDays },
    profile,
    fingerprintHashing: await measureFingerprintHashing(),
    typical: { runs: typicalRuns, unconfirmedZone: altRun },
    scale: { dispatchMemory, dispatchDynalite, fleet, fleet5000: fleetOf5000 },
    cost: costs,
  };
  await writeReport(results, outDir);
  say(
    `wrote ${join(outDir, 'benchmarks.md')}, benchmarks.json and charts/ in ${((Date.now() - started) / 60_000).toFixed(1)} min`,
  );
  return 0;
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
