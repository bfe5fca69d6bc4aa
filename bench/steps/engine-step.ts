/**
 * Step 1 of the bench: the large club. Engine throughput (in memory, on dynalite, PutEvents over
 * the SDK), the resumable backfill against the sandbox alone, and the CPU profile of a backfill.
 */

import { mkdir } from 'node:fs/promises';
import { DAY_MS } from '../../lambdas/common/time-units';
import {
  type BackfillRun,
  clientOnlyLoop,
  type FetchLoopRun,
  rawFetchLoop,
  resumableBackfill,
} from '../backfill';
import { type BigClub, startBigClub } from '../big-club';
import type { BenchPlan } from '../plan';
import { type ProfileSummary, profileBackfill } from '../profile';
import { say } from '../progress';
import type { BenchResults } from '../report/results';
import { median } from '../stats';
import {
  dynaliteBackfill,
  memoryBackfill,
  type PublishSdkRun,
  publishOverSdk,
  startDynaliteHost,
  type ThroughputRun,
} from '../throughput';

export interface EngineFigures {
  readonly throughput: BenchResults['throughput'];
  readonly backfill: BenchResults['backfill'];
  readonly profile: ProfileSummary;
}

/** Measures the large club; `keepProfileIn`: a directory for the raw .cpuprofile. */
export async function measureEngine(
  plan: BenchPlan,
  keepProfileIn: string | undefined,
): Promise<EngineFigures> {
  say(`starting the large club's sandbox (${plan.bigClub.members} members, ${plan.bigClub.visits} visits)`);
  const big = await startBigClub(plan.bigClub);
  try {
    const throughput = await measureThroughput(big, plan);
    const fromMs = big.info.nowMs - plan.backfillDays * DAY_MS;
    const backfill = await measureBackfill(big, plan, fromMs);
    if (keepProfileIn) await mkdir(keepProfileIn, { recursive: true });
    const profile = await profileBackfill(
      { clubsFile: big.info.clubsFile, nowMs: big.info.nowMs, fromMs },
      keepProfileIn,
    );
    say(
      `profiled ${profile.records} rows (${(profile.totalMs / 1000).toFixed(1)} s of samples)${profile.file ? `: ${profile.file}` : ''}`,
    );
    return { throughput, backfill, profile };
  } finally {
    await big.host.close();
  }
}

async function measureThroughput(big: BigClub, plan: BenchPlan): Promise<EngineFigures['throughput']> {
  const memory: ThroughputRun[] = [];
  const dynalite: ThroughputRun[] = [];
  const sdk: PublishSdkRun[] = [];
  for (let i = 0; i < plan.runs; i++) {
    const r = await memoryBackfill(big);
    memory.push(r);
    say(
      `throughput in memory ${i + 1}/${plan.runs}: ${r.records} rows in ${(r.wallMs / 1000).toFixed(1)} s, ${Math.round(r.recordsPerCpuSec)} rows per CPU-second`,
    );
  }
  const db = await startDynaliteHost();
  try {
    for (let i = 0; i < plan.runs; i++) {
      const r = await dynaliteBackfill(big, db, plan.dynaliteSliceMs);
      dynalite.push(r);
      say(
        `throughput on dynalite ${i + 1}/${plan.runs}: ${r.records} rows in ${(r.wallMs / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await db.close();
  }
  for (let i = 0; i < plan.runs; i++) sdk.push(await publishOverSdk(big, plan.sdkPublishEvents));
  say(`PutEvents over the SDK: ${Math.round(median(sdk.map((r) => r.eventsPerSec)))} events/s`);
  return { memory, dynalite, sdk };
}

async function measureBackfill(
  big: BigClub,
  plan: BenchPlan,
  fromMs: number,
): Promise<EngineFigures['backfill']> {
  const resumable: BackfillRun[] = [];
  const raw: FetchLoopRun[] = [];
  const clientOnly: FetchLoopRun[] = [];
  for (let i = 0; i < plan.runs; i++) {
    resumable.push(await resumableBackfill(big, fromMs, plan.invocationBudgetMs));
    raw.push(await rawFetchLoop(big, fromMs, 100_000));
    clientOnly.push(await clientOnlyLoop(big, fromMs, 100_000));
  }
  say(
    `resumable backfill: ${median(resumable.map((r) => r.pagesPerSec)).toFixed(0)} pages/s; sandbox raw ${median(raw.map((r) => r.pagesPerSec)).toFixed(0)} pages/s`,
  );
  return { resumable, raw, clientOnly, days: plan.backfillDays };
}
