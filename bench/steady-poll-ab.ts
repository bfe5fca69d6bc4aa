/**
 * The steady-state poll CPU of two checkouts of this repository, side by side in one process: each
 * checkout's typical club (its own sandbox process, its own copy of every module) takes its baseline
 * and warm-up, then the measured minutes alternate: a minute of one checkout's polls, the same
 * minute of the other's. Both meet the same machine at nearly the same moment, which a shared or
 * busy machine makes far steadier than comparing separate runs (steady-poll.ts). Each poll's CPU
 * is process.cpuUsage around it, as in steady-poll.ts.
 *
 *   LOG_LEVEL=ERROR npx tsx bench/steady-poll-ab.ts --base /path/to/other/checkout [--minutes 120]
 *     [--warmup 60] [--seed 5] [--rounds 3]
 *
 * The other checkout needs the same bench files (typical-club-rig.ts, club-poll-recorder.ts, plan.ts)
 * and its own node_modules (a symbolic link to this one's will do). Prints, per round and in all,
 * each side's CPU ms, ms a poll and µs a row (the two read the same rows: the same seed and data).
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { MINUTE_MS } from '../lambdas/common/time-units';
import { wholeNumberFlag } from './flags';

const HELP = `usage: LOG_LEVEL=ERROR npx tsx bench/steady-poll-ab.ts --base DIR [options]
  --base DIR    the other checkout (the "base" side; this checkout is the "head" side)
  --minutes N   simulated minutes measured per round (default 120)
  --warmup N    simulated minutes polled before measuring (default 60)
  --seed N      the sandbox's seed (default 5)
  --rounds N    rounds, each with fresh sandboxes (default 3)`;

/** What the two sides need of a checkout's bench: its rig and its poll recorder. */
interface Side {
  readonly name: 'base' | 'head';
  readonly rig: {
    host: { call<T>(method: string, ...args: unknown[]): Promise<T>; close(): Promise<unknown> };
    clock: { nowMs: number };
    path: { dispatch(): Promise<unknown>; queue: { drain(): unknown[] } };
    store: { take(): unknown };
  };
  readonly recorder: () => { poll(m: unknown): Promise<unknown>; polls: { cpuMs: number; rows: number }[] };
}

async function startSide(name: Side['name'], dir: string, options: Record<string, number>): Promise<Side> {
  const load = (file: string) => import(pathToFileURL(resolve(dir, 'bench', file)).href);
  const [{ startTypicalClub }, { ClubPollRecorder }, { QUICK_PLAN }] = await Promise.all([
    load('typical-club-rig.ts'),
    load('club-poll-recorder.ts'),
    load('plan.ts'),
  ]);
  const rig = await startTypicalClub({
    seed: options.seed,
    ...QUICK_PLAN.typicalClub,
    spanMs: ((options.warmup ?? 0) + (options.minutes ?? 0)) * MINUTE_MS,
    stepMs: 60_000,
    pollDeadlineMs: 100_000,
    startTime: '2026-03-02T00:00:00Z',
  });
  return { name, rig, recorder: () => new ClubPollRecorder(rig) };
}

/** One minute of a side: the sandbox advances, the dispatcher decides, its messages are polled. */
async function minute(side: Side, recorder: ReturnType<Side['recorder']>): Promise<void> {
  const advanced = await side.rig.host.call<{ nowMs: number }>('advance', 60_000);
  side.rig.clock.nowMs = advanced.nowMs;
  await side.rig.path.dispatch();
  side.rig.store.take();
  for (const message of side.rig.path.queue.drain()) await recorder.poll(message);
}

interface RoundFigures {
  polls: number;
  rows: number;
  cpuMs: number;
}

/** A round: both sides' baselines and warm-ups, then the measured minutes alternating. */
async function round(dirs: Record<Side['name'], string>, options: Record<string, number>) {
  const sides = [await startSide('base', dirs.base, options), await startSide('head', dirs.head, options)];
  try {
    for (const side of sides) {
      const warm = side.recorder();
      await side.rig.path.dispatch();
      for (const message of side.rig.path.queue.drain()) await warm.poll(message);
      for (let m = 0; m < (options.warmup ?? 0); m++) await minute(side, warm);
    }
    const recorders = sides.map((s) => s.recorder());
    for (let m = 0; m < (options.minutes ?? 0); m++) {
      // Which side goes first alternates too, so neither always follows the other's garbage.
      const order = m % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) await minute(sides[i]!, recorders[i]!);
    }
    const figures = (i: number): RoundFigures => {
      const polls = recorders[i]!.polls;
      return {
        polls: polls.length,
        rows: polls.reduce((a, p) => a + p.rows, 0),
        cpuMs: polls.reduce((a, p) => a + p.cpuMs, 0),
      };
    };
    return { base: figures(0), head: figures(1) };
  } finally {
    for (const side of sides) await side.rig.host.close();
  }
}

function line(name: string, f: RoundFigures): string {
  const perPoll = f.cpuMs / Math.max(1, f.polls);
  const perRow = (f.cpuMs * 1000) / Math.max(1, f.rows);
  return `${name}: ${f.polls} polls, ${f.rows} rows, ${f.cpuMs.toFixed(0)} ms CPU, ${perPoll.toFixed(2)} ms a poll, ${perRow.toFixed(2)} µs a row`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      minutes: { type: 'string' },
      warmup: { type: 'string' },
      seed: { type: 'string' },
      rounds: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (!values.base) throw new RangeError('--base DIR is required: the checkout to compare this one with');
  const options = {
    minutes: wholeNumberFlag(values.minutes, 'minutes', 120),
    warmup: wholeNumberFlag(values.warmup, 'warmup', 60),
    seed: wholeNumberFlag(values.seed, 'seed', 5),
  };
  const dirs = { base: resolve(values.base), head: fileURLToPath(new URL('..', import.meta.url)) };
  const total = { base: { polls: 0, rows: 0, cpuMs: 0 }, head: { polls: 0, rows: 0, cpuMs: 0 } };
  for (let r = 1; r <= wholeNumberFlag(values.rounds, 'rounds', 3); r++) {
    const result = await round(dirs, options);
    for (const side of ['base', 'head'] as const) {
      process.stdout.write(`round ${r} ${line(side, result[side])}\n`);
      for (const k of ['polls', 'rows', 'cpuMs'] as const) total[side][k] += result[side][k];
    }
  }
  process.stdout.write(`all ${line('base', total.base)}\nall ${line('head', total.head)}\n`);
  process.stdout.write(`head/base CPU: ${(total.head.cpuMs / total.base.cpuMs).toFixed(3)}\n`);
}

await main();
