/**
 * The CPU of a typical club's steady-state polls, and where it goes: the typical club (the bench's
 * plan) in its sandbox, its baseline, a warm-up, then minute after minute of the dispatcher's
 * decisions polled through the production path. Only the measured polls count: their process CPU
 * (process.cpuUsage around each poll; the sandbox runs in its own process) and their rows. With
 * `--profile`, the V8 profiler runs during those polls only and its self time is summed by function
 * (profile.ts); a profiled run's CPU includes the profiler's own, so compare CPU between unprofiled
 * runs with the same flags on the same machine.
 *
 *   LOG_LEVEL=ERROR npx tsx bench/steady-poll.ts [--minutes 120] [--warmup 60] [--seed 5] [--profile]
 *
 * Prints one JSON document: polls, rows, CPU ms, µs per row, and (profiled) the top functions
 * (LOG_LEVEL=ERROR keeps the polls' INFO lines off stdout).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { MINUTE_MS } from '../lambdas/common/time-units';
import { ClubPollRecorder } from './club-poll-recorder';
import { wholeNumberFlag } from './flags';
import { QUICK_PLAN } from './plan';
import { type HotSpot, summariseProfile } from './profile';
import { startTypicalClub, type TypicalClubRig } from './typical-club-rig';

const HELP = `usage: LOG_LEVEL=ERROR npx tsx bench/steady-poll.ts [options]
  --minutes N   simulated minutes measured, one dispatch step each (default 120)
  --warmup N    simulated minutes polled before measuring (default 60)
  --seed N      the sandbox's seed (default 5)
  --profile     run the V8 CPU profiler during the measured polls; print the top functions
  --top N       functions listed when profiled (default 25)
  --keep FILE   with --profile: also write the measured polls' profile (.cpuprofile) to FILE`;

interface SteadyPollFigures {
  readonly seed: number;
  readonly minutes: number;
  readonly polls: number;
  readonly rows: number;
  readonly cpuMs: number;
  readonly usPerRow: number;
  readonly cpuMsPerPoll: number;
  readonly rowsBySource: Record<string, number>;
  readonly profile?: { totalMs: number; byArea: Record<string, number>; top: HotSpot[] };
}

type Profile = Parameters<typeof summariseProfile>[0];

/** The V8 profiler, on only while a poll runs: one profile piece per poll, merged at the end. */
class PollProfiler {
  readonly #session = new Session();
  readonly #pieces: Profile[] = [];

  async start(): Promise<void> {
    this.#session.connect();
    await this.#session.post('Profiler.enable');
    await this.#session.post('Profiler.setSamplingInterval', { interval: 100 });
  }

  async around(poll: () => Promise<unknown>): Promise<void> {
    await this.#session.post('Profiler.start');
    await poll();
    this.#pieces.push((await this.#session.post('Profiler.stop')).profile as Profile);
  }

  /** The pieces as one profile: node ids renumbered per piece, samples and deltas concatenated. */
  merged(): Profile {
    this.#session.disconnect();
    const merged: Profile = { nodes: [], samples: [], timeDeltas: [] };
    let base = 0;
    for (const part of this.#pieces) {
      let top = 0;
      for (const node of part.nodes) {
        const children = node.children?.map((c) => c + base);
        merged.nodes.push({ ...node, id: node.id + base, ...(children ? { children } : {}) });
        top = Math.max(top, node.id);
      }
      // A piece's first delta runs from Profiler.start to its first tick (the profiler starting,
      // tens of ms): that sample is left out.
      part.samples.forEach((id, i) => {
        if (i === 0) return;
        merged.samples.push(id + base);
        merged.timeDeltas.push(part.timeDeltas[i] ?? 0);
      });
      base += top + 1;
    }
    return merged;
  }
}

/** One dispatch step: the sandbox advances a minute, the dispatcher decides, its messages are polled. */
async function step(rig: TypicalClubRig, recorder: ClubPollRecorder, profiler?: PollProfiler): Promise<void> {
  const advanced = await rig.host.call<{ nowMs: number }>('advance', 60_000);
  rig.clock.nowMs = advanced.nowMs;
  await rig.path.dispatch();
  rig.store.take();
  for (const message of rig.path.queue.drain()) {
    if (profiler) await profiler.around(() => recorder.poll(message));
    else await recorder.poll(message);
  }
}

function readFlags() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      warmup: { type: 'string' },
      seed: { type: 'string' },
      top: { type: 'string' },
      keep: { type: 'string' },
      profile: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.keep && !values.profile) throw new RangeError('--keep needs --profile');
  return {
    help: values.help,
    profile: values.profile,
    keep: values.keep,
    minutes: wholeNumberFlag(values.minutes, 'minutes', 120),
    warmup: wholeNumberFlag(values.warmup, 'warmup', 60),
    seed: wholeNumberFlag(values.seed, 'seed', 5),
    top: wholeNumberFlag(values.top, 'top', 25),
  };
}

/** The typical club's baseline and warm-up, then the measured minutes. */
async function measureSteadyPolls(
  options: { seed: number; warmup: number; minutes: number },
  profiler?: PollProfiler,
): Promise<Omit<SteadyPollFigures, 'profile'>> {
  const rig = await startTypicalClub({
    seed: options.seed,
    ...QUICK_PLAN.typicalClub,
    spanMs: (options.warmup + options.minutes) * MINUTE_MS,
    stepMs: 60_000,
    pollDeadlineMs: 100_000,
    startTime: '2026-03-02T00:00:00Z',
  });
  try {
    const warm = new ClubPollRecorder(rig);
    await rig.path.dispatch();
    for (const message of rig.path.queue.drain()) await warm.poll(message); // the baseline
    for (let m = 0; m < options.warmup; m++) await step(rig, warm);
    await profiler?.start();
    const recorder = new ClubPollRecorder(rig);
    for (let m = 0; m < options.minutes; m++) await step(rig, recorder, profiler);
    const rows = recorder.polls.reduce((a, p) => a + p.rows, 0);
    const cpuMs = recorder.polls.reduce((a, p) => a + p.cpuMs, 0);
    return {
      seed: options.seed,
      minutes: options.minutes,
      polls: recorder.polls.length,
      rows,
      cpuMs,
      usPerRow: (cpuMs * 1000) / Math.max(1, rows),
      cpuMsPerPoll: cpuMs / Math.max(1, recorder.polls.length),
      rowsBySource: Object.fromEntries(Object.entries(recorder.bySource).map(([s, t]) => [s, t.rows])),
    };
  } finally {
    await rig.host.close();
  }
}

async function main(): Promise<void> {
  const flags = readFlags();
  if (flags.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const profiler = flags.profile ? new PollProfiler() : undefined;
  const figures = await measureSteadyPolls(flags, profiler);
  let result: SteadyPollFigures = figures;
  if (profiler) {
    const merged = profiler.merged();
    if (flags.keep) await writeFile(flags.keep, JSON.stringify(merged));
    const { totalMs, byArea, top } = summariseProfile(merged, figures.rows, flags.top);
    result = { ...figures, profile: { totalMs, byArea, top } };
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
