/**
 * `events replay --archive NAME|ARN --from T --to T`: an EventBridge replay of the deployed bus's
 * archive, limited to rules (their patterns), followed with progress; Ctrl-C cancels it.
 */
import { REPLAY_NAME, ReplayInputError, startArchiveReplay } from '../../../event-tooling/replay';
import { formatProgress, watchReplay } from '../../../event-tooling/replay-watch';
import { CliUsageError, intFlag } from '../../args';
import { eventBridgeClient } from '../../aws-env';
import { count } from '../../format';
import { checkBusName } from '../../preflight';
import { watchStop } from '../../stop-signal';
import type { Flags } from './flags';

/** --from / --to: ISO 8601 with Z or an offset, YYYY-MM-DD (UTC), or `now`. */
export function parseInstant(flag: string, value: string | undefined, nowMs = Date.now()): number {
  if (value === undefined)
    throw new CliUsageError(`--${flag} TIME is required (ISO 8601 with Z or an offset, or YYYY-MM-DD)`);
  if (value === 'now') return nowMs;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  const m = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  const ms = m ? Date.parse(text) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March 2: a day the calendar does not have is refused.
  const [year, month, day] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const real = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
  if (!Number.isFinite(ms) || !real)
    throw new CliUsageError(
      `--${flag} must be ISO 8601 with Z or an offset (2026-03-02T06:00:00Z), YYYY-MM-DD (UTC) or now, got '${value}'`,
    );
  return ms;
}

const EXIT_INTERRUPTED = 130;

export async function replayArchive(flags: Flags): Promise<number> {
  const nowMs = Date.now();
  const fromMs = parseInstant('from', flags.from, nowMs);
  const toMs = parseInstant('to', flags.to, nowMs);
  const intervalSec = intFlag('interval', flags.interval, { min: 1, max: 300, default: 5 });
  if (flags.archive === undefined && flags.bus === undefined)
    throw new CliUsageError('events replay --from/--to needs --archive NAME|ARN or --bus NAME (its archive)');
  if (flags.name !== undefined && !REPLAY_NAME.test(flags.name))
    throw new CliUsageError(`--name may use 1 to 64 letters, digits, '.', '-' and '_', got '${flags.name}'`);
  if (flags.bus !== undefined) checkBusName(flags.bus);
  const client = eventBridgeClient();
  let started: StartedReplay;
  try {
    started = await startArchiveReplay(client, {
      ...(flags.archive ? { archive: flags.archive } : {}),
      fromMs,
      toMs,
      nowMs,
      ...(flags.bus ? { bus: flags.bus } : {}),
      rules: flags.rule ?? [],
      ...(flags.name ? { name: flags.name } : {}),
    });
  } catch (err) {
    if (err instanceof ReplayInputError) throw new CliUsageError(err.message);
    return awsFailure('could not start the replay', err);
  }
  for (const warning of started.warnings) process.stderr.write(`note: ${warning}\n`);
  const window = `${new Date(fromMs).toISOString()} .. ${new Date(toMs).toISOString()}`;
  const to = started.filterArns.length
    ? `the targets of ${count(started.filterArns.length, 'rule')}: ${started.filterArns.join(', ')}`
    : 'EVERY rule of the bus';
  process.stdout.write(
    `replay ${started.name} started: archive ${started.archive.name}, events of ${window}, to ${started.destinationArn}, ${to}\n`,
  );
  if (flags.detach) {
    process.stdout.write(
      `not followed (--detach): aws events describe-replay --replay-name ${started.name}; cancel: aws events cancel-replay --replay-name ${started.name}\n`,
    );
    return 0;
  }
  return followReplay(client, started.name, { fromMs, toMs, intervalMs: intervalSec * 1000, window });
}

type StartedReplay = Awaited<ReturnType<typeof startArchiveReplay>>;
type ReplayClient = Parameters<typeof watchReplay>[0];
type ReplayResult = Awaited<ReturnType<typeof watchReplay>>;

/** Follows the replay with progress lines until it ends; Ctrl-C cancels it, a second stops waiting. */
async function followReplay(
  client: ReplayClient,
  name: string,
  options: { fromMs: number; toMs: number; intervalMs: number; window: string },
): Promise<number> {
  const cancel = new AbortController();
  const detach = new AbortController();
  // The first Ctrl-C cancels the replay and waits for it; a deliberate second one (after the grace
  // period: duplicates of the first are ignored, stop-signal.ts) stops waiting; a third exits.
  const stop = watchStop({
    command: 'gym-bridge events replay',
    stopping: `cancelling replay ${name} (CancelReplay); waiting for it to stop`,
    again: 'stops waiting (the cancellation stands)',
    skipped: `waiting for replay ${name} to stop (the cancellation stands)`,
    onRepeat: () => detach.abort(),
  });
  void stop.whenRequested.then(() => cancel.abort());
  let lastLine = '';
  try {
    const result = await watchReplay(client, name, {
      fromMs: options.fromMs,
      toMs: options.toMs,
      intervalMs: options.intervalMs,
      cancel: cancel.signal,
      detach: detach.signal,
      onProgress: (p) => {
        const line = formatProgress(p);
        if (line !== lastLine) process.stdout.write(`${new Date().toISOString()}  ${name}  ${line}\n`);
        lastLine = line;
      },
      onCancel: (c) =>
        process.stderr.write(
          c.sent
            ? `CancelReplay sent for ${name}${c.state ? ` (${c.state})` : ''}\n`
            : `CancelReplay refused (${c.error}): the replay had already ended\n`,
        ),
    });
    return reportResult(result, name, options.window);
  } catch (err) {
    return awsFailure(`could not follow replay ${name}`, err);
  } finally {
    stop.release();
  }
}

/** The replay's end, said, as an exit code: 0 completed, 130 stopped with Ctrl-C, 1 otherwise. */
function reportResult(result: ReplayResult, name: string, window: string): number {
  if (result.state === 'COMPLETED') {
    process.stdout.write(`replay ${name} completed: every archived event of ${window} was replayed\n`);
    return 0;
  }
  if (result.state === 'DETACHED') {
    process.stderr.write(
      `stopped waiting; replay ${name} is being cancelled (aws events describe-replay --replay-name ${name})\n`,
    );
    return EXIT_INTERRUPTED;
  }
  const reason = result.progress?.reason ? `: ${result.progress.reason}` : '';
  process.stderr.write(`replay ${name} ${result.state}${reason}\n`);
  return result.state === 'CANCELLED' && result.cancelRequested ? EXIT_INTERRUPTED : 1;
}

function awsFailure(what: string, err: unknown): number {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`gym-bridge events replay: ${what}: ${reason}\n`);
  return 1;
}
