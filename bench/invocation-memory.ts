/**
 * Memory of a poll invocation: the peak resident set of the poll function polling a batch of clubs
 * side by side, under the heap flags Lambda's Node runtime gives a function of its memory (its
 * bootstrap: a tenth of the memory for the young generation, half of that a semi-space, the rest
 * old space, and --expose-gc): V8 collects late below its cap, so the resident set, which Lambda's
 * limit counts, is what must fit, not the live heap. The budget is three quarters of the function's
 * memory (lambdas/engine/club-poll/heavy-polls.ts).
 *
 * What runs is what Lambda runs (./poll-function-run.ts): the poll handler's own bundle, built as
 * BridgeFunction builds it, invoked once with an SQS record holding the batch as one group message,
 * in a child process with the template's environment; its clubs in the state table's registry and
 * their credentials in Secrets Manager; the sandbox, and dynalite with the local EventBridge and
 * Secrets Manager, each in a process of its own. A preload samples the child's RSS every 10 ms and
 * notes, at its peak, V8's heap; it notes the CPU time too. The runs: the first poll of a full batch
 * of new clubs (every source's baseline, the worst a batch meets: heavy polls run HEAVY_POLL_SLOTS
 * at a time), the next poll of the same clubs two hours of sandbox activity later (a regular poll:
 * its tails, and the sweeps that come due), and the first poll of half a batch; then the first poll
 * and the next poll of a full batch again against a sandbox whose records are twice their size
 * (`recordScale` 2: fields the seed does not list, as a real API may add), and, for comparison, that
 * first poll through the CLI's `poll --once` bundled whole (the path earlier reports measured: the
 * same engine with every command's code loaded). A poll is given a long deadline
 * (FIRST_POLL_DEADLINE_SEC), so that a loaded machine slows the batch but does not cut it short:
 * the figure is the whole batch's.
 */

import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HANDLER_ENTRIES } from '../lambdas/common/deployment-contract';
import { HOUR_MS, MINUTE_MS } from '../lambdas/common/time-units';
import { HEAVY_POLL_SLOTS, POLL_PEAK_BUDGET_MB } from '../lambdas/engine/club-poll/heavy-polls';
import { SANDBOX_HOST, type SandboxInfo } from './big-club';
import type { DeploymentSettings } from './deployment';
import { bundleAsFunction, bundleEsm, FUNCTION_BUNDLES_DIR } from './esm-bundle';
import type { PollAwsEndpoints } from './hosts/poll-aws-host';
import { HostProcess } from './hosts/rpc';
import { machineInfo } from './machine';
import type { BenchPlan } from './plan';
import {
  BENCH_BUS,
  clubsOf,
  type FunctionSetup,
  invokePollFunction,
  RUNTIME,
  registerClubs,
} from './poll-function-run';
import { say } from './progress';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AWS_HOST = new URL('./hosts/poll-aws-host.ts', import.meta.url);
/** The sandbox's activity between the first poll of a batch and the next (two hours of it). */
const NEXT_POLL_GAP_MS = 2 * HOUR_MS;
/** A club poll's deadline in the runs, s: long enough that no club of the batch is cut short. */
const FIRST_POLL_DEADLINE_SEC = 1800;
/** The larger records' size, as a multiple of the sandbox's (sandbox/record-padding.ts). */
export const DOUBLE_RECORDS = 2;

/** V8's heap when the resident set peaked, MB. */
export interface HeapAtPeak {
  readonly heapTotalMb: number;
  readonly heapUsedMb: number;
  readonly externalMb: number;
}

export interface MemoryRun {
  readonly name: string;
  readonly clubs: number;
  readonly firstPoll: boolean;
  /** The served records' size as a multiple of the sandbox's (absent in reports from before: 1). */
  readonly recordScale?: number;
  readonly records: number;
  readonly rssPeakMb: number;
  readonly wallSec: number;
  /** The child's CPU time, user and system (absent in reports from before). */
  readonly cpuSec?: number;
  /** What ran: the poll function's bundle, or the CLI's (absent in reports from before: the CLI's). */
  readonly bundle?: 'function' | 'cli';
  /** V8's heap at the peak (absent in reports from before). */
  readonly atPeak?: HeapAtPeak;
}

export interface InvocationMemory {
  readonly functionMb: number;
  readonly oldSpaceMb: number;
  readonly semiSpaceMb: number;
  readonly batchSize: number;
  readonly heavySlots: number;
  readonly club: BenchPlan['memory'];
  readonly runs: MemoryRun[];
  /** The peak the runs must stay under, MB (absent in reports from before the budget). */
  readonly budgetMb?: number;
  /** When and on what the step ran, with the machine's 1-minute load average before and after. */
  readonly measured?: { readonly date: string; readonly commit: string; readonly loadAverage: number[] };
}

const SAMPLER = `let peak = 0;
let atPeak;
const sample = () => {
  const rss = process.memoryUsage.rss();
  if (rss <= peak) return;
  peak = rss;
  const m = process.memoryUsage();
  atPeak = { heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external };
};
setInterval(sample, 10).unref();
process.on('exit', () => {
  sample();
  const { user, system } = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.RSS_OUT, JSON.stringify({ peak, atPeak, cpuUs: user + system }));
});
`;

/** Lambda's Node runtime's heap flags for a function of `functionMb` (its bootstrap script). */
export function lambdaHeapFlags(functionMb: number) {
  const youngMb = Math.floor(functionMb / 10);
  const semiSpaceMb = Math.floor(youngMb / 2);
  const oldSpaceMb = functionMb - youngMb;
  const flags = ['--expose-gc', '--max-http-header-size', '81920'];
  flags.push(`--max-semi-space-size=${semiSpaceMb}`, `--max-old-space-size=${oldSpaceMb}`);
  return { semiSpaceMb, oldSpaceMb, flags };
}

/** What the sampler wrote, as the run's figures. */
async function sampled(file: string): Promise<Pick<MemoryRun, 'rssPeakMb' | 'cpuSec' | 'atPeak'>> {
  const s = JSON.parse(await readFile(file, 'utf8')) as {
    peak: number;
    cpuUs: number;
    atPeak?: { heapTotal: number; heapUsed: number; external: number };
  };
  const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const at = s.atPeak;
  return {
    rssPeakMb: s.peak / 1024 / 1024,
    cpuSec: s.cpuUs / 1e6,
    ...(at
      ? {
          atPeak: { heapTotalMb: mb(at.heapTotal), heapUsedMb: mb(at.heapUsed), externalMb: mb(at.external) },
        }
      : {}),
  };
}

/** Where the runs happen: the function, the CLI's bundle, the sampler, the sandbox's clubs. */
interface Rig {
  readonly fn: FunctionSetup;
  readonly cli: string;
  readonly sampler: string;
  readonly recordScale: number;
  readonly clubsFile: string;
  readonly clubs: ReturnType<typeof clubsOf>;
}

interface RunSpec {
  readonly name: string;
  readonly table: string;
  readonly clubs: number;
  readonly firstPoll: boolean;
}

/** One invocation of the poll function polling the first `clubs` clubs from `table`, its RSS sampled. */
async function functionRun(rig: Rig, spec: RunSpec): Promise<MemoryRun> {
  const clubs = rig.clubs.slice(0, spec.clubs);
  if (spec.firstPoll) await registerClubs(rig.fn, spec.table, clubs);
  const out = join(rig.fn.dir, `${spec.table}.rss`);
  const t0 = performance.now();
  const invocation = await invokePollFunction(rig.fn, spec.table, clubs, { preload: rig.sampler, out });
  const wallSec = (performance.now() - t0) / 1000;
  if (invocation.incomplete > 0 || invocation.itemFailures > 0)
    say(
      `invocation memory: ${spec.name}: ${invocation.incomplete} clubs incomplete, ${invocation.itemFailures} retried`,
    );
  return report(rig, spec, 'function', { records: invocation.records, wallSec, ...(await sampled(out)) });
}

/** One `poll --once` of the CLI's bundle, the first `clubs` clubs into `table`, its RSS sampled. */
async function cliRun(rig: Rig, spec: RunSpec): Promise<MemoryRun> {
  const out = join(rig.fn.dir, `${spec.table}.rss`);
  const only = Array.from({ length: spec.clubs }, (_, i) => ['--club', `club-${i + 1}`]).flat();
  const args = [...rig.fn.heapFlags, '--require', rig.sampler, rig.cli, 'poll', '--once'];
  args.push(
    '--clubs',
    rig.clubsFile,
    ...only,
    '--table',
    spec.table,
    ...(spec.firstPoll ? ['--create-table'] : []),
  );
  args.push('--events-file', join(rig.fn.dir, 'events.jsonl'), '--deadline', String(FIRST_POLL_DEADLINE_SEC));
  const t0 = performance.now();
  const { stdout } = await run(process.execPath, args, {
    env: {
      ...process.env,
      RSS_OUT: out,
      AWS_ENDPOINT_URL_DYNAMODB: rig.fn.endpoints.dynamodb,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  const wallSec = (performance.now() - t0) / 1000;
  const records = [...stdout.matchAll(/, (\d+) records,/g)].reduce((n, m) => n + Number(m[1]), 0);
  return report(rig, spec, 'cli', { records, wallSec, ...(await sampled(out)) });
}

function report(
  rig: Rig,
  spec: RunSpec,
  bundle: 'function' | 'cli',
  figures: Pick<MemoryRun, 'records' | 'wallSec' | 'rssPeakMb' | 'cpuSec' | 'atPeak'>,
): MemoryRun {
  const { name, clubs, firstPoll } = spec;
  say(
    `invocation memory: ${name}: ${clubs} clubs, ${figures.records} records, RSS peak ${figures.rssPeakMb.toFixed(0)} MB of ${rig.fn.functionMb}`,
  );
  return { name, clubs, firstPoll, recordScale: rig.recordScale, bundle, ...figures };
}

/** Where the runs' clubs come from: a batch of typical clubs, their records `recordScale` times as large. */
function sandboxOptions(plan: BenchPlan, batch: number, recordScale: number) {
  return {
    seed: 7,
    clubs: Array.from({ length: batch }, (_, i) => ({
      clubId: `club-${i + 1}`,
      members: plan.memory.members,
    })),
    historyDays: plan.memory.historyDays,
    // The polls run on the real clock: the sandbox's present is two hours before it, and moves to
    // about now before the next poll, so that poll's tails find the activity in between.
    startTime: new Date(Math.floor((Date.now() - NEXT_POLL_GAP_MS) / MINUTE_MS) * MINUTE_MS).toISOString(),
    recordScale,
  };
}

/**
 * The runs against one sandbox (records `recordScale` times the sandbox's size): the first poll of
 * a full batch and the next poll of it; at the sandbox's size the first poll of half a batch, at a
 * larger size the CLI's first poll of the full batch.
 */
async function runsAt(
  base: Omit<Rig, 'clubsFile' | 'clubs' | 'recordScale'>,
  plan: BenchPlan,
  batch: number,
  recordScale: number,
): Promise<MemoryRun[]> {
  const sandbox = HostProcess.start(SANDBOX_HOST, 4096);
  try {
    const info = await sandbox.call<SandboxInfo>('start', sandboxOptions(plan, batch, recordScale));
    const clubsFile = join(base.fn.dir, `clubs-${recordScale}.json`);
    await writeFile(clubsFile, JSON.stringify(info.clubsFile));
    const rig: Rig = { ...base, clubsFile, clubs: clubsOf(info.clubsFile), recordScale };
    const larger = recordScale === 1 ? '' : `, records ${recordScale}x`;
    const table = recordScale === 1 ? 'full' : `full-x${recordScale}`;
    const first = { name: `first poll of a full batch${larger}`, table, clubs: batch, firstPoll: true };
    const runs = [await functionRun(rig, first)];
    if (recordScale !== 1)
      runs.push(
        await cliRun(rig, { ...first, name: `${first.name}, the CLI`, table: `cli-x${recordScale}` }),
      );
    await sandbox.call('advance', NEXT_POLL_GAP_MS);
    runs.push(
      await functionRun(rig, { ...first, name: `the next poll of that batch${larger}`, firstPoll: false }),
    );
    if (recordScale === 1) {
      const half = Math.ceil(batch / 2);
      runs.push(
        await functionRun(rig, {
          name: 'first poll of half a batch',
          table: 'half',
          clubs: half,
          firstPoll: true,
        }),
      );
    }
    return runs;
  } finally {
    await sandbox.close();
  }
}

export async function measureInvocationMemory(
  plan: BenchPlan,
  deployment: DeploymentSettings,
): Promise<InvocationMemory> {
  const functionMb = deployment.poll.memoryMb;
  const heap = lambdaHeapFlags(functionMb);
  const batch = deployment.pollBatchSize;
  const dir = join(FUNCTION_BUNDLES_DIR, `memory-${process.pid}`);
  await mkdir(dir, { recursive: true });
  const aws = HostProcess.start(AWS_HOST, 4096);
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const [bundle, cli, endpoints] = await Promise.all([
      bundleAsFunction(HANDLER_ENTRIES.poll, join(dir, 'poll')),
      bundleEsm(join(ROOT, 'cli/main.ts'), join(dir, 'cli.mjs')),
      aws.call<PollAwsEndpoints>('start', { bus: BENCH_BUS }),
    ]);
    const runtime = join(dir, 'runtime.mjs');
    const sampler = join(dir, 'rss.cjs');
    await Promise.all([writeFile(runtime, RUNTIME), writeFile(sampler, SAMPLER)]);
    const fn: FunctionSetup = {
      dir,
      bundle,
      runtime,
      aws,
      endpoints,
      environment: deployment.poll.environment ?? {},
      functionMb,
      heapFlags: heap.flags,
      deadlineMs: FIRST_POLL_DEADLINE_SEC * 1000,
    };
    const base = { fn, cli, sampler };
    const runs = [
      ...(await runsAt(base, plan, batch, 1)),
      ...(await runsAt(base, plan, batch, DOUBLE_RECORDS)),
    ];
    const { date, commit } = machineInfo();
    return {
      functionMb,
      oldSpaceMb: heap.oldSpaceMb,
      semiSpaceMb: heap.semiSpaceMb,
      batchSize: batch,
      heavySlots: HEAVY_POLL_SLOTS,
      club: plan.memory,
      runs,
      budgetMb: POLL_PEAK_BUDGET_MB,
      measured: { date, commit, loadAverage: [loadBefore, loadavg()[0] ?? 0] },
    };
  } finally {
    await aws.call('close').catch(() => undefined);
    await aws.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The runs of the poll function (a report from before measured the CLI's bundle only: all of them). */
export function functionRuns(m: InvocationMemory): MemoryRun[] {
  const fn = m.runs.filter((r) => r.bundle === 'function');
  return fn.length > 0 ? fn : m.runs;
}

/** The peak of the first poll of a full batch at a record size (1: the sandbox's), MB, if measured. */
export function firstBatchPeakMb(m: InvocationMemory | undefined, recordScale: number): number | undefined {
  const run =
    m &&
    functionRuns(m).find(
      (r) => r.firstPoll && r.clubs === m.batchSize && (r.recordScale ?? 1) === recordScale,
    );
  return run?.rssPeakMb;
}
