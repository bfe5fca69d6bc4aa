/**
 * Watching an archive replay (replay.ts starts it): `watchReplay` polls DescribeReplay until
 * COMPLETED, FAILED or CANCELLED, reporting progress as the share of the window replayed
 * (EventLastReplayedTime), and sends CancelReplay when asked to.
 */
import {
  CancelReplayCommand,
  DescribeReplayCommand,
  type DescribeReplayCommandOutput,
  type EventBridgeClient,
  type ReplayState,
} from '@aws-sdk/client-eventbridge';

import { errorName } from './replay';

export interface ReplayProgress {
  readonly state: ReplayState | string;
  /** Share of the window replayed, 0..100 (100 once COMPLETED). */
  readonly percent: number;
  readonly lastReplayed?: Date;
  readonly reason?: string;
}

export const TERMINAL_REPLAY_STATES: readonly string[] = ['COMPLETED', 'FAILED', 'CANCELLED'];

/** Progress of a replay from DescribeReplay: EventLastReplayedTime against the window. */
export function replayProgress(
  out: DescribeReplayCommandOutput,
  fromMs: number,
  toMs: number,
): ReplayProgress {
  const state = out.State ?? 'UNKNOWN';
  const start = out.EventStartTime?.getTime() ?? fromMs;
  const end = out.EventEndTime?.getTime() ?? toMs;
  const last = out.EventLastReplayedTime;
  let percent = 0;
  if (state === 'COMPLETED') percent = 100;
  else if (last && end > start)
    percent = Math.max(0, Math.min(100, ((last.getTime() - start) / (end - start)) * 100));
  return {
    state,
    percent: Math.floor(percent * 10) / 10,
    ...(last ? { lastReplayed: last } : {}),
    ...(out.StateReason ? { reason: out.StateReason } : {}),
  };
}

export function formatProgress(p: ReplayProgress): string {
  const last = p.lastReplayed ? `, events up to ${p.lastReplayed.toISOString()} replayed` : '';
  const reason = p.reason ? ` (${p.reason})` : '';
  return `${p.state.padEnd(10)} ${p.percent.toFixed(1).padStart(5)}%${last}${reason}`;
}

export interface WatchOptions {
  readonly fromMs: number;
  readonly toMs: number;
  /** Between DescribeReplay calls. @default 5000 */
  readonly intervalMs?: number;
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Aborted: CancelReplay is sent (once), and the watch goes on until the replay has stopped. */
  readonly cancel?: AbortSignal;
  /** Aborted: stop watching at once (the replay goes on, or its cancellation does). */
  readonly detach?: AbortSignal;
  /** Called when CancelReplay was sent (or refused: the replay had already ended). */
  readonly onCancel?: (outcome: { sent: boolean; state?: string; error?: string }) => void;
  /** @default setTimeout, cut short by `cancel` and `detach` */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface WatchResult {
  /** The last state seen ('DETACHED' when watching stopped before the replay did). */
  readonly state: string;
  readonly progress?: ReplayProgress;
  readonly cancelRequested: boolean;
}

function abortableSleep(ms: number, signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => s !== undefined);
    if (live.some((s) => s.aborted)) return resolve();
    const done = () => {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of live) s.addEventListener('abort', done, { once: true });
  });
}

/** Polls DescribeReplay until the replay is COMPLETED, FAILED or CANCELLED (or `detach`). */
export async function watchReplay(
  client: EventBridgeClient,
  replayName: string,
  options: WatchOptions,
): Promise<WatchResult> {
  const interval = options.intervalMs ?? 5000;
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, [options.cancel, options.detach]));
  let cancelSent = false;
  let progress: ReplayProgress | undefined;
  for (;;) {
    if (options.cancel?.aborted && !cancelSent) {
      cancelSent = true;
      try {
        const out = await client.send(new CancelReplayCommand({ ReplayName: replayName }));
        options.onCancel?.({ sent: true, ...(out.State ? { state: out.State } : {}) });
      } catch (err) {
        // IllegalStatusException: it had already ended; the next DescribeReplay says how.
        options.onCancel?.({ sent: false, error: `${errorName(err)}: ${(err as Error).message}` });
      }
    }
    if (options.detach?.aborted)
      return { state: 'DETACHED', ...(progress ? { progress } : {}), cancelRequested: cancelSent };
    const out = await client.send(new DescribeReplayCommand({ ReplayName: replayName }));
    progress = replayProgress(out, options.fromMs, options.toMs);
    options.onProgress?.(progress);
    if (TERMINAL_REPLAY_STATES.includes(progress.state))
      return { state: progress.state, progress, cancelRequested: cancelSent };
    await sleep(interval);
  }
}
