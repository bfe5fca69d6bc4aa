/**
 * The long chaos profile: `npm run test:chaos` runs 1,000 seeded chaos runs (test/chaos/harness.ts)
 * in parallel worker processes (one per core, each with its own dynalite) and writes the figures
 * to docs/reliability.md. Exit 0 when every run passed, 1 otherwise (the failing seeds are printed).
 *
 *   npm run test:chaos                                  # seeds 1..1000, docs/reliability.md
 *   npm run test:chaos -- --runs 200 --from 5000 --workers 2 --out /tmp/reliability.md
 *   npm run test:chaos -- --seed 123                    # one seed, its failures in full
 *   npm run test:chaos -- --summaries runs.json         # also keep every run's figures
 *   npm run test:chaos -- --render runs.json            # rewrite the report from kept figures
 */
import { fork } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, release, type } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

// Before the engine's modules load: their logger reads LOG_LEVEL once.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    from: { type: 'string', default: '1' },
    workers: { type: 'string', default: String(Math.max(1, cpus().length)) },
    seed: { type: 'string' },
    out: { type: 'string', default: 'docs/reliability.md' },
    summaries: { type: 'string' },
    render: { type: 'string' },
    worker: { type: 'boolean', default: false },
  },
  strict: true,
});

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`test:chaos: --${name} must be a positive integer, got '${text}'\n`);
    process.exit(2);
  }
  return n;
}

type FromParent = { seed: number } | { stop: true };

/**
 * Seeds a worker process runs before it is replaced: one process and one in-memory store for
 * hundreds of runs grew slower with each (a run of 1,000 on 2 workers went from about 5 s a seed
 * in a worker to 24 by seed 650).
 */
const WORKER_SEEDS = 50;

/** A worker: runs the seeds it is sent, one at a time, and sends back each summary. */
async function worker(): Promise<void> {
  const { startDynalite } = await import('../support/dynalite');
  const { runChaos } = await import('./harness');
  const { summarise } = await import('./run-summary');
  const db = await startDynalite();
  process.on('message', (message: FromParent) => {
    if ('stop' in message) {
      void db.close().then(() => process.exit(0));
      return;
    }
    runChaos(message.seed, { dynamoEndpoint: db.endpoint }).then(
      (result) => process.send?.({ summary: summarise(result) }),
      (err: unknown) =>
        process.send?.({
          error: {
            seed: message.seed,
            message: err instanceof Error ? (err.stack ?? err.message) : String(err),
          },
        }),
    );
  });
  process.send?.({ ready: true });
}

async function replay(seed: number): Promise<number> {
  const { startDynalite } = await import('../support/dynalite');
  const { runChaos } = await import('./harness');
  const db = await startDynalite();
  try {
    const result = await runChaos(seed, { dynamoEndpoint: db.endpoint });
    process.stdout.write(`${JSON.stringify({ ...result, scenario: result.scenario }, null, 2)}\n`);
    return result.ok ? 0 : 1;
  } finally {
    await db.close();
  }
}

type Summary = import('./run-summary').RunSummary;

/** Runs the seeds on `workerCount` worker processes at a time, each replaced after WORKER_SEEDS. */
async function runSeeds(
  seeds: number[],
  workerCount: number,
  out: { summaries: Summary[]; crashed: string[]; readonly started: number; readonly runs: number },
): Promise<void> {
  const { summaries, crashed, started, runs } = out;
  const self = fileURLToPath(import.meta.url);
  /** One worker process: up to WORKER_SEEDS seeds, then it stops (a fresh store and heap for the next). */
  const workerRun = () =>
    new Promise<void>((resolve, reject) => {
      const child = fork(self, ['--worker'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      let sent = 0;
      const next = () => {
        const seed = sent < WORKER_SEEDS ? seeds.shift() : undefined;
        if (seed !== undefined) sent++;
        child.send(seed === undefined ? { stop: true } : { seed });
      };
      child.on(
        'message',
        (message: { ready?: true; summary?: Summary; error?: { seed: number; message: string } }) => {
          if (message.summary) {
            summaries.push(message.summary);
            const s = message.summary;
            if (!s.ok)
              process.stdout.write(`  seed ${s.seed} FAILED: ${s.failures.join('; ').slice(0, 400)}\n`);
            if (summaries.length % 50 === 0) {
              const rate = (Date.now() - started) / summaries.length;
              process.stdout.write(
                `  ${summaries.length}/${runs} runs, ${summaries.filter((r) => !r.ok).length} failed, ~${Math.round(((runs - summaries.length) * rate) / 1000)} s left\n`,
              );
            }
          }
          if (message.error) crashed.push(`seed ${message.error.seed}: ${message.error.message}`);
          next();
        },
      );
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
    });
  await Promise.all(
    Array.from({ length: workerCount }, async () => {
      while (seeds.length > 0) await workerRun();
    }),
  );
}

async function main(): Promise<number> {
  if (flags.worker) {
    await worker();
    return -1; // keeps running until told to stop
  }
  if (flags.seed !== undefined) return replay(positiveInt('seed', flags.seed));
  if (flags.render !== undefined) {
    const { renderReport } = await import('./report');
    const kept = JSON.parse(await readFile(flags.render, 'utf8')) as Parameters<typeof renderReport>[0];
    await writeFile(flags.out, renderReport({ ...kept, date: new Date(kept.date) }));
    process.stdout.write(`chaos: report rewritten from ${flags.render} in ${flags.out}\n`);
    return 0;
  }
  const runs = positiveInt('runs', flags.runs);
  const first = positiveInt('from', flags.from);
  const workerCount = Math.min(positiveInt('workers', flags.workers), runs);
  const { renderReport } = await import('./report');

  const started = Date.now();
  const seeds = Array.from({ length: runs }, (_, i) => first + i);
  const summaries: Summary[] = [];
  const crashed: string[] = [];
  process.stdout.write(
    `chaos: ${runs} runs (seeds ${first}..${first + runs - 1}) on ${workerCount} workers\n`,
  );

  await runSeeds(seeds, workerCount, { summaries, crashed, started, runs });

  summaries.sort((a, b) => a.seed - b.seed);
  const cpu = cpus()[0]?.model.trim() ?? 'unknown';
  const report = {
    runs: summaries,
    firstSeed: first,
    workers: workerCount,
    wallMs: Date.now() - started,
    date: new Date(),
    machine: { cpu, cores: cpus().length, node: process.version, os: `${type()} ${release()}` },
  };
  await writeFile(flags.out, renderReport(report));
  if (flags.summaries) await writeFile(flags.summaries, JSON.stringify(report));
  const failed = summaries.filter((r) => !r.ok);
  process.stdout.write(
    `chaos: ${summaries.length} runs, ${failed.length} failed, ${crashed.length} harness errors, ` +
      `${summaries.reduce((n, r) => n + r.checked, 0)} events checked; report in ${flags.out}\n`,
  );
  for (const c of crashed) process.stderr.write(`harness error, ${c}\n`);
  return failed.length === 0 && crashed.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`test:chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
