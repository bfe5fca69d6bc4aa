/**
 * Ctrl-C (SIGINT) and SIGTERM for the commands that run until stopped (`start`, `poll`, `sandbox`,
 * `local-aws`, `events replay`): the first signal asks the command to stop, and the command then
 * finishes what it is doing, prints its summary and closes what it opened. Signals that follow
 * within the grace period (3 s) are duplicates and change nothing: `npm start` runs the CLI under
 * tsx, whose parent re-sends SIGINT when the child is slow to acknowledge it, and npm forwards one
 * too, so one Ctrl-C can arrive two or three times. A signal after the grace period is deliberate:
 * it forces an exit (exit code 130, or 143 for SIGTERM), saying what was skipped, or does what the
 * command asked for instead (`events replay`: stop waiting for the cancellation).
 *
 * The handlers are installed once, on the first `watchStop`, and stay for the life of the process:
 * a signal while the command closes its servers, or after it returned while the process drains, is
 * never the default action (killed, summary lost). `release()` says the command is done; a first
 * signal after that ends the process at once, since there is nothing left to finish.
 *
 *   const stop = watchStop({ command: 'gym-bridge start', stopping: 'stopping after the current poll' });
 *   try { while (!stop.requested) { await work(); await stop.sleep(2000); } summary(); await close(); }
 *   finally { stop.release(); }
 *
 * The grace period is `graceMs`, else $GYM_BRIDGE_STOP_GRACE_MS (tests on a loaded machine set it
 * long, so that their second signal is a duplicate however slow the machine), else 3000.
 *
 * How the signal reaches this process: package.json's scripts `exec` node, so `npm start` and
 * `npm run cli` are npm and this process, nothing between: npm forwards SIGINT and SIGTERM to it
 * and exits with its exit code (a shell between them would take the signal itself, die or ignore
 * it, and leave this process running with parent 1). Should the process that started this one go
 * away all the same (a wrapper shell killed, a terminal closed), the command stops as on a first
 * signal: its parent is checked every second while a command is watching.
 */

export const STOP_GRACE_ENV = 'GYM_BRIDGE_STOP_GRACE_MS';
export const DEFAULT_STOP_GRACE_MS = 3000;

export interface StopOptions {
  /** Who speaks, e.g. 'gym-bridge start'. */
  readonly command: string;
  /** What the first signal does, said then: 'stopping after the current poll, then ...'. */
  readonly stopping: string;
  /** What a deliberate repeat does, said at the first signal. @default 'forces an exit' */
  readonly again?: string;
  /** What a forced exit skips, said when it happens. @default 'the rest of the shutdown' */
  readonly skipped?: string;
  /**
   * A deliberate repeat (a signal after the grace period), once, instead of the forced exit; a
   * further deliberate one forces the exit. @default none: the first deliberate repeat forces it
   */
  readonly onRepeat?: () => void;
  /** @default $GYM_BRIDGE_STOP_GRACE_MS, else DEFAULT_STOP_GRACE_MS */
  readonly graceMs?: number;
  /** Where notices go. @default process.stderr */
  readonly write?: (line: string) => void;
}

export interface StopWatch {
  /** True once SIGINT or SIGTERM arrived. */
  readonly requested: boolean;
  /** Resolves at the first SIGINT or SIGTERM. */
  readonly whenRequested: Promise<void>;
  /** Resolves after `ms`, or as soon as a stop is requested. */
  sleep(ms: number): Promise<void>;
  /** The command's shutdown is done (summary printed, resources closed). */
  release(): void;
}

interface Watch {
  readonly options: StopOptions;
  readonly graceMs: number;
  requested: boolean;
  repeated: boolean;
  readonly request: () => void;
  /** Sleeps to cut short at the stop. */
  readonly sleepers: Set<() => void>;
}

let installed = false;
let active: Watch | undefined;
/** When the window of duplicates opened (the first signal, or the last deliberate one). */
let windowStart: number | undefined;
let graceOfWindow = DEFAULT_STOP_GRACE_MS;
let duplicateNoticed = false;
let lastSignalAt: number | undefined;
let speaker = 'gym-bridge';
let write: (line: string) => void = (line) => process.stderr.write(line);

function graceFromEnv(): number {
  const raw = process.env[STOP_GRACE_ENV];
  const ms = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : DEFAULT_STOP_GRACE_MS;
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGINT: 2, SIGTERM: 15 };
const keyName = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 'Ctrl-C' : signal);

function onSignal(signal: NodeJS.Signals): void {
  const now = performance.now();
  lastSignalAt = now;
  const watch = active;
  if (windowStart === undefined) {
    if (!watch) process.exit(128 + (SIGNAL_NUMBERS[signal] ?? 1)); // the command is done: nothing to finish
    windowStart = now;
    graceOfWindow = watch.graceMs;
    watch.request();
    const seconds = Math.round(watch.graceMs / 100) / 10;
    write(
      `\n${speaker}: ${keyName(signal)}: ${watch.options.stopping} (${keyName(signal)} again after ${seconds} s ${watch.options.again ?? 'forces an exit'})\n`,
    );
    return;
  }
  if (now - windowStart < graceOfWindow) {
    if (!duplicateNoticed) {
      duplicateNoticed = true;
      const again = watch?.repeated ? 'forces an exit' : (watch?.options.again ?? 'forces an exit');
      write(`${speaker}: already stopping; ${keyName(signal)} again after a few seconds ${again}\n`);
    }
    return;
  }
  if (watch?.options.onRepeat && !watch.repeated) {
    watch.repeated = true;
    windowStart = now;
    duplicateNoticed = false;
    watch.options.onRepeat();
    return;
  }
  const skipped = watch ? `, without ${watch.options.skipped ?? 'the rest of the shutdown'}` : '';
  write(`${speaker}: ${keyName(signal)} again: exiting now${skipped}\n`);
  process.exit(128 + (SIGNAL_NUMBERS[signal] ?? 1));
}

/** How long the process stays after the last signal: the re-sent copies of one Ctrl-C come within it. */
export const SETTLE_MS = 500;

/**
 * Resolves once SETTLE_MS have passed since the last signal (at once if none came). main.ts waits
 * for it before letting the process end: a copy of the Ctrl-C that arrives while Node tears the
 * process down (its signal handlers already gone) would otherwise turn a clean exit into "killed by
 * SIGINT" after the summary was printed.
 */
export function settled(): Promise<void> {
  const wait = lastSignalAt === undefined ? 0 : lastSignalAt + SETTLE_MS - performance.now();
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
}

/**
 * Asks the watching command to stop, as a first Ctrl-C would but without a word (main.ts does so
 * when stdout's reader went away). Returns false when no command is watching.
 */
export function requestStop(): boolean {
  if (!active) return false;
  active.request();
  return true;
}

/** How often a watching command checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1000;

/**
 * Stops the watching command, as a first signal would, once this process's parent has gone (it is
 * then re-parented to init or a subreaper: its parent pid changes).
 */
function watchParent(): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent || !active || windowStart !== undefined) return;
    clearInterval(timer);
    windowStart = performance.now();
    graceOfWindow = active.graceMs;
    active.request();
    write(`\n${speaker}: the process that started it (pid ${parent}) is gone: ${active.options.stopping}\n`);
  }, PARENT_CHECK_MS);
  timer.unref();
}

/** Starts watching for SIGINT and SIGTERM on behalf of a command (see the module comment). */
export function watchStop(options: StopOptions): StopWatch {
  if (!installed) {
    installed = true;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    watchParent();
  }
  speaker = options.command;
  if (options.write) write = options.write;
  let resolveRequested!: () => void;
  const whenRequested = new Promise<void>((resolve) => {
    resolveRequested = resolve;
  });
  const watch: Watch = {
    options,
    graceMs: options.graceMs ?? graceFromEnv(),
    requested: false,
    repeated: false,
    sleepers: new Set(),
    request: () => {
      watch.requested = true;
      resolveRequested();
      for (const wake of watch.sleepers) wake();
    },
  };
  active = watch;
  // A stop asked for before this watch (a signal while the command started up) still stands.
  if (windowStart !== undefined) watch.request();
  return {
    get requested() {
      return watch.requested;
    },
    whenRequested,
    sleep(ms) {
      if (watch.requested) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          watch.sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        watch.sleepers.add(wake);
      });
    },
    release() {
      if (active === watch) active = undefined;
    },
  };
}
