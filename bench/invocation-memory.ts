/**
 * Memory of a poll invocation: the peak resident set of a process that polls a batch of clubs side
 * by side, as the poll function does, under the heap flags Lambda's Node runtime gives a function
 * of its memory (old space 90%, semi-space 5%): V8 collects late below its cap, so the resident set,
 * which Lambda's limit counts, is what must fit, not the live heap. The budget is three quarters of
 * the function's memory (lambdas/engine/club-poll/heavy-polls.ts).
 *
 * The CLI's `poll --once` (every club of the file side by side through pollClub, the poll
 * function's path) is bundled with esbuild, as the deployed functions are, and run in a child
 * process against the sandbox and dynalite, each in a process of its own; a preload samples the
 * child's RSS every 10 ms and notes its CPU time. The runs: the first poll of a full batch of new
 * clubs (every source's baseline, the worst a batch meets: heavy polls run HEAVY_POLL_SLOTS at a
 * time), the next poll of the same clubs two hours of sandbox activity later (a regular poll: its
 * tails, and the sweeps that come due), and the first poll of half a batch; then the first poll
 * and the next poll of a full batch again against a sandbox whose records are twice their size
 * (`recordScale` 2: fields the seed does not list, as a real API may add). A poll is given a long
 * deadline (FIRST_POLL_DEADLINE_SEC), so that a loaded machine slows the batch but does not cut it
 * short: the figure is the whole batch's.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HEAVY_POLL_SLOTS, POLL_PEAK_BUDGET_MB } from '../lambdas/engine/club-poll/heavy-polls';
import { SANDBOX_HOST, type SandboxInfo } from './big-club';
import type { DeploymentSettings } from './deployment';
import { bundleEsm } from './esm-bundle';
import { HostProcess } from './hosts/rpc';
import { machineInfo } from './machine';
import type { BenchPlan } from './plan';
import { say } from './progress';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DYNALITE_HOST = new URL('./hosts/dynalite-host.ts', import.meta.url);
/** The sandbox's activity between the first poll of a batch and the next (two hours of it). */
const NEXT_POLL_GAP_MS = 2 * 3_600_000;
/** A club poll's deadline in the runs, s: long enough that no club of the batch is cut short. */
const FIRST_POLL_DEADLINE_SEC = 1800;
/** The larger records' size, as a multiple of the sandbox's (lambdas/sandbox/record-padding.ts). */
export const DOUBLE_RECORDS = 2;

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
const sample = () => { peak = Math.max(peak, process.memoryUsage().rss); };
setInterval(sample, 10).unref();
process.on('exit', () => {
  sample();
  const { user, system } = process.cpuUsage();
  require('node:fs').writeFileSync(process.env.RSS_OUT, JSON.stringify({ peak, cpuUs: user + system }));
});
`;

/** The CLI bundled as the functions are (one ESM file, dependencies inside). */
function bundleCli(dir: string): Promise<string> {
  return bundleEsm(join(ROOT, 'lambdas/cli/main.ts'), join(dir, 'cli.mjs'));
}

/** Where the child polls: the bundle, its clubs file, the table's endpoint and the heap flags. */
interface PollSetup {
  readonly dir: string;
  readonly cli: string;
  readonly clubsFile: string;
  readonly endpoint: string;
  readonly functionMb: number;
  readonly heapFlags: readonly string[];
  readonly recordScale: number;
}

/** One `poll --once` of the first `clubs` clubs into `table`, its RSS sampled. */
async function pollRun(
  setup: PollSetup,
  name: string,
  table: string,
  clubs: number,
  firstPoll: boolean,
): Promise<MemoryRun> {
  const { dir, endpoint, recordScale } = setup;
  const rssOut = join(dir, `${table}.rss`);
  const only = Array.from({ length: clubs }, (_, i) => ['--club', `club-${i + 1}`]).flat();
  const args = [...setup.heapFlags, '--require', join(dir, 'rss.cjs'), setup.cli, 'poll', '--once'];
  args.push('--clubs', setup.clubsFile, ...only, '--table', table, ...(firstPoll ? ['--create-table'] : []));
  args.push('--events-file', join(dir, 'events.jsonl'), '--deadline', String(FIRST_POLL_DEADLINE_SEC));
  const t0 = performance.now();
  const { stdout } = await run(process.execPath, args, {
    env: {
      ...process.env,
      RSS_OUT: rssOut,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  const wallSec = (performance.now() - t0) / 1000;
  const records = [...stdout.matchAll(/, (\d+) records,/g)].reduce((n, m) => n + Number(m[1]), 0);
  const sampled = JSON.parse(await readFile(rssOut, 'utf8')) as { peak: number; cpuUs: number };
  const rssPeakMb = sampled.peak / 1024 / 1024;
  say(
    `invocation memory: ${name}: ${clubs} clubs, ${records} records, RSS peak ${rssPeakMb.toFixed(0)} MB of ${setup.functionMb}`,
  );
  const cpuSec = sampled.cpuUs / 1e6;
  return { name, clubs, firstPoll, recordScale, records, rssPeakMb, wallSec, cpuSec };
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
    // The CLI polls on the real clock: the sandbox's present is two hours before it, and moves to
    // about now before the next poll, so that poll's tails find the activity in between.
    startTime: new Date(Math.floor((Date.now() - NEXT_POLL_GAP_MS) / 60_000) * 60_000).toISOString(),
    recordScale,
  };
}

/**
 * The runs against one sandbox (records `recordScale` times the sandbox's size): the first poll of
 * a full batch and the next poll of it, and (at the sandbox's size) the first poll of half a batch.
 */
async function runsAt(
  base: Omit<PollSetup, 'clubsFile' | 'recordScale'>,
  plan: BenchPlan,
  batch: number,
  recordScale: number,
): Promise<MemoryRun[]> {
  const sandbox = HostProcess.start(SANDBOX_HOST, 4096);
  try {
    const info = await sandbox.call<SandboxInfo>('start', sandboxOptions(plan, batch, recordScale));
    const clubsFile = join(base.dir, `clubs-${recordScale}.json`);
    await writeFile(clubsFile, JSON.stringify(info.clubsFile));
    const setup: PollSetup = { ...base, clubsFile, recordScale };
    const larger = recordScale === 1 ? '' : `, records ${recordScale}x`;
    const table = recordScale === 1 ? 'full' : `full-x${recordScale}`;
    const runs = [await pollRun(setup, `first poll of a full batch${larger}`, table, batch, true)];
    await sandbox.call('advance', NEXT_POLL_GAP_MS);
    runs.push(await pollRun(setup, `the next poll of that batch${larger}`, table, batch, false));
    if (recordScale === 1)
      runs.push(await pollRun(setup, 'first poll of half a batch', 'half', Math.ceil(batch / 2), true));
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
  const oldSpaceMb = Math.floor(functionMb * 0.9);
  const semiSpaceMb = Math.floor(functionMb * 0.05);
  const batch = deployment.pollBatchSize;
  const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-memory-'));
  const db = HostProcess.start(DYNALITE_HOST, 4096);
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const [cli, { endpoint }] = await Promise.all([bundleCli(dir), db.call<{ endpoint: string }>('start')]);
    await writeFile(join(dir, 'rss.cjs'), SAMPLER);
    const heapFlags = [`--max-old-space-size=${oldSpaceMb}`, `--max-semi-space-size=${semiSpaceMb}`];
    const base = { dir, cli, endpoint, functionMb, heapFlags };
    const runs = [
      ...(await runsAt(base, plan, batch, 1)),
      ...(await runsAt(base, plan, batch, DOUBLE_RECORDS)),
    ];
    const { date, commit } = machineInfo();
    return {
      functionMb,
      oldSpaceMb,
      semiSpaceMb,
      batchSize: batch,
      heavySlots: HEAVY_POLL_SLOTS,
      club: plan.memory,
      runs,
      budgetMb: POLL_PEAK_BUDGET_MB,
      measured: { date, commit, loadAverage: [loadBefore, loadavg()[0] ?? 0] },
    };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The peak of the first poll of a full batch at a record size (1: the sandbox's), MB, if measured. */
export function firstBatchPeakMb(m: InvocationMemory | undefined, recordScale: number): number | undefined {
  const run = m?.runs.find(
    (r) => r.firstPoll && r.clubs === m.batchSize && (r.recordScale ?? 1) === recordScale,
  );
  return run?.rssPeakMb;
}
