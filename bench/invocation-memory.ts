/**
 * Memory of a poll invocation: the peak resident set of a process that polls a batch of clubs side
 * by side, as the poll function does, under the heap flags Lambda's Node runtime gives a function
 * of its memory (old space 90%, semi-space 5%): V8 collects late below its cap, so the resident set,
 * which Lambda's limit counts, is what must fit, not the live heap.
 *
 * The CLI's `poll --once` (every club of the file side by side through pollClub, the poll
 * function's path) is bundled with esbuild, as the deployed functions are, and run in a child
 * process against the sandbox and dynalite, each in a process of its own; a preload samples the
 * child's RSS every 10 ms. Three runs: the first poll of a full batch of new clubs (every source's
 * baseline, the worst a batch meets: heavy polls run HEAVY_POLL_SLOTS at a time), the next poll of
 * the same clubs two hours of sandbox activity later (a regular poll: its tails, and the sweeps
 * that come due), and the first poll of half a batch.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { HEAVY_POLL_SLOTS } from '../lambdas/engine/club-poll/heavy-polls';
import { SANDBOX_HOST, type SandboxInfo } from './big-club';
import type { DeploymentSettings } from './deployment';
import { HostProcess } from './hosts/rpc';
import type { BenchPlan } from './plan';
import { say } from './progress';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DYNALITE_HOST = new URL('./hosts/dynalite-host.ts', import.meta.url);
/** The sandbox's activity between the first poll of a batch and the next (two hours of it). */
const NEXT_POLL_GAP_MS = 2 * 3_600_000;

export interface MemoryRun {
  readonly name: string;
  readonly clubs: number;
  readonly firstPoll: boolean;
  readonly records: number;
  readonly rssPeakMb: number;
  readonly wallSec: number;
}

export interface InvocationMemory {
  readonly functionMb: number;
  readonly oldSpaceMb: number;
  readonly semiSpaceMb: number;
  readonly batchSize: number;
  readonly heavySlots: number;
  readonly club: BenchPlan['memory'];
  readonly runs: MemoryRun[];
}

const SAMPLER = `let peak = 0;
const sample = () => { peak = Math.max(peak, process.memoryUsage().rss); };
setInterval(sample, 10).unref();
process.on('exit', () => { sample(); require('node:fs').writeFileSync(process.env.RSS_OUT, String(peak)); });
`;

/** The CLI bundled as the functions are (one ESM file, dependencies inside). */
async function bundleCli(dir: string): Promise<string> {
  const outfile = join(dir, 'cli.mjs');
  await build({
    entryPoints: [join(ROOT, 'lambdas/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return outfile;
}

/** Where the child polls: the bundle, its clubs file, the table's endpoint and the heap flags. */
interface PollSetup {
  readonly dir: string;
  readonly cli: string;
  readonly clubsFile: string;
  readonly endpoint: string;
  readonly functionMb: number;
  readonly heapFlags: readonly string[];
}

/** One `poll --once` of the first `clubs` clubs into `table`, its RSS sampled. */
async function pollRun(
  setup: PollSetup,
  name: string,
  table: string,
  clubs: number,
  firstPoll: boolean,
): Promise<MemoryRun> {
  const { dir, endpoint } = setup;
  const rssOut = join(dir, `${table}.rss`);
  const only = Array.from({ length: clubs }, (_, i) => ['--club', `club-${i + 1}`]).flat();
  const args = [...setup.heapFlags, '--require', join(dir, 'rss.cjs'), setup.cli, 'poll', '--once'];
  args.push('--clubs', setup.clubsFile, ...only, '--table', table, ...(firstPoll ? ['--create-table'] : []));
  args.push('--events-file', join(dir, 'events.jsonl'));
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
  const rssPeakMb = Number(await readFile(rssOut, 'utf8')) / 1024 / 1024;
  say(
    `invocation memory: ${name}: ${clubs} clubs, ${records} records, RSS peak ${rssPeakMb.toFixed(0)} MB of ${setup.functionMb}`,
  );
  return { name, clubs, firstPoll, records, rssPeakMb, wallSec };
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
  const sandbox = HostProcess.start(SANDBOX_HOST, 4096);
  const db = HostProcess.start(DYNALITE_HOST, 4096);
  try {
    const [cli, info, { endpoint }] = await Promise.all([
      bundleCli(dir),
      sandbox.call<SandboxInfo>('start', {
        seed: 7,
        clubs: Array.from({ length: batch }, (_, i) => ({
          clubId: `club-${i + 1}`,
          members: plan.memory.members,
        })),
        historyDays: plan.memory.historyDays,
        // The CLI polls on the real clock: the sandbox's present is two hours before it, and moves
        // to about now before the next poll, so that poll's tails find the activity in between.
        startTime: new Date(Math.floor((Date.now() - NEXT_POLL_GAP_MS) / 60_000) * 60_000).toISOString(),
      }),
      db.call<{ endpoint: string }>('start'),
    ]);
    const clubsFile = join(dir, 'clubs.json');
    await writeFile(clubsFile, JSON.stringify(info.clubsFile));
    await writeFile(join(dir, 'rss.cjs'), SAMPLER);
    const heapFlags = [`--max-old-space-size=${oldSpaceMb}`, `--max-semi-space-size=${semiSpaceMb}`];
    const setup: PollSetup = { dir, cli, clubsFile, endpoint, functionMb, heapFlags };
    const runs = [
      await pollRun(setup, 'first poll of a full batch', 'full', batch, true),
      await sandbox
        .call('advance', NEXT_POLL_GAP_MS)
        .then(() => pollRun(setup, 'the next poll of that batch', 'full', batch, false)),
      await pollRun(setup, 'first poll of half a batch', 'half', Math.ceil(batch / 2), true),
    ];
    return {
      functionMb,
      oldSpaceMb,
      semiSpaceMb,
      batchSize: batch,
      heavySlots: HEAVY_POLL_SLOTS,
      club: plan.memory,
      runs,
    };
  } finally {
    await Promise.all([sandbox.close(), db.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}
