/**
 * The failure policy, in one place (docs/operations.md, "Failures and pauses"): what kind of failure
 * an error is (matched by its class), which kinds a later attempt can fix, which kinds pause the
 * whole club and for how long, how long a failing source backs off, when a source's endpoint counts
 * as missing rather than failing, and the one pause rule. The engine (poll-club), the scheduler
 * (scheduling) and the poll handler all decide with these functions.
 */

import { MINUTE_MS } from '../../common/time-units';
import { PublishError } from '../../events/event-sink';
import {
  AuthError,
  BadRequestError,
  EndpointUnavailableError,
  GymApiError,
  InvalidResponseError,
  PagingStalledError,
  QuotaExceededError,
  ResponseTooLargeError,
  StaleResponseError,
} from '../../gym-api/errors';
import type { PauseKind } from '../../sources/operational-events';
import { ConcurrentModificationError, type Cursor, type SourceName, StoreError } from '../../state/store';

export type FailureKind =
  | 'auth'
  | 'quota'
  | 'unavailable'
  | 'invalid-response'
  | 'bad-request'
  | 'conflict'
  | 'publish'
  | 'store'
  | 'internal';

/** The kind of a failed source poll, from the error's class. */
export function failureKind(err: unknown): FailureKind {
  if (err instanceof AuthError) return 'auth';
  if (err instanceof QuotaExceededError) return 'quota';
  if (err instanceof ConcurrentModificationError) return 'conflict';
  if (err instanceof BadRequestError) return 'bad-request';
  if (err instanceof InvalidResponseError) return 'invalid-response';
  if (err instanceof GymApiError) return 'unavailable';
  if (err instanceof PublishError) return 'publish';
  if (err instanceof StoreError) return 'store';
  return 'internal';
}

/** Failure kinds a later attempt can fix: the poll message is retried (and ends in the DLQ if not). */
export const RETRYABLE_FAILURES: ReadonlySet<FailureKind> = new Set<FailureKind>([
  'unavailable',
  'publish',
  'store',
  'conflict',
  'internal',
]);

export function isRetryable(kind: FailureKind): boolean {
  return RETRYABLE_FAILURES.has(kind);
}

/** True for the kinds that pause the club (401: credentials; 429: quota). */
export function isPauseKind(kind: string | undefined): kind is PauseKind {
  return kind === 'auth' || kind === 'quota';
}

/** Back-off of a paused club: 5 min doubling per consecutive failure, capped (6 h auth, 1 h quota). */
export function pauseMs(kind: PauseKind, consecutiveFailures: number): number {
  const cap = kind === 'auth' ? 6 * 60 * MINUTE_MS : 60 * MINUTE_MS;
  return Math.min(cap, 5 * MINUTE_MS * 2 ** Math.max(0, consecutiveFailures - 1));
}

/** Longest upstream Retry-After honoured (a quota month, plus a day). */
export const MAX_RETRY_AFTER_MS = 32 * 24 * 60 * MINUTE_MS;

/** End of the pause after the `consecutiveFailures`-th refusal: the back-off, or a longer Retry-After. */
export function pauseEndMs(
  kind: PauseKind,
  consecutiveFailures: number,
  nowMs: number,
  retryAfterMs?: number,
): number {
  return (
    nowMs + Math.max(pauseMs(kind, consecutiveFailures), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS))
  );
}

/** Longest wait of a failing source, whatever its interval. */
export const MAX_FAILURE_BACKOFF_MS = 30 * MINUTE_MS;

/**
 * Wait of a source after `failures` failed polls in a row (other than a pause): its interval times
 * 2^failures, capped at MAX_FAILURE_BACKOFF_MS (or the interval itself, if longer).
 */
export function failureBackoffMs(cadence: { readonly intervalMs: number }, failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(
    Math.max(cadence.intervalMs, MAX_FAILURE_BACKOFF_MS),
    cadence.intervalMs * 2 ** Math.min(failures, 30),
  );
}

/** How long a source whose endpoint is missing waits before it is tried again. */
export const UNAVAILABLE_RETRY_MS = 6 * 60 * MINUTE_MS;

/** Why a source's endpoint is not there for the club (the kinds of `SourceUnavailable`). */
export interface Unavailability {
  readonly kind: 'not-found' | 'forbidden' | 'bad-request' | 'unusable-response';
  readonly status?: number;
}

/**
 * Whether this error means the source's endpoint is not there for the club (and how), rather than
 * a failure: 404 and credential-less 403 for any source; 400 and an unusable response only for an
 * experimental source, whose parameters and shape nobody has seen.
 */
export function unavailability(
  err: unknown,
  source: { readonly experimental?: boolean },
): Unavailability | undefined {
  const status = err instanceof GymApiError && err.status !== undefined ? { status: err.status } : {};
  if (err instanceof EndpointUnavailableError) return { kind: err.reason, ...status };
  if (!source.experimental) return undefined;
  if (err instanceof BadRequestError && err.status === 400) return { kind: 'bad-request', ...status };
  // A page that stalls, is too large or answers another request came from an endpoint that exists:
  // a failure (retried with back-off), not a missing endpoint to set aside for hours.
  if (
    err instanceof PagingStalledError ||
    err instanceof ResponseTooLargeError ||
    err instanceof StaleResponseError
  ) {
    return undefined;
  }
  if (err instanceof InvalidResponseError) return { kind: 'unusable-response', ...status };
  return undefined;
}

/** Why a club is not polled, and until when. */
export interface ClubPause {
  /** Not polled before this (UTC ISO). */
  readonly until: string;
  /** auth: credentials or API key rejected (401); quota: the monthly quota is spent (429). */
  readonly kind: PauseKind;
  /** The error that paused it, as the client reported it (credentials redacted). */
  readonly reason: string;
  /** The source whose poll was refused. */
  readonly source: SourceName;
  /** When it was refused (UTC ISO), when known. */
  readonly since?: string;
  /** Refusals in a row (the back-off doubles with each). */
  readonly consecutiveFailures: number;
}

/**
 * The one pause rule: the club's pause in force is the one that ends LAST (the latest
 * `pausedUntil` still in the future, on any of its cursors), because that is what keeps it from
 * being polled; the first such cursor wins a tie. Used by pollClub, the scheduler and `status`.
 */
export function activePause(cursors: readonly Cursor[], nowMs: number): ClubPause | undefined {
  let pause: ClubPause | undefined;
  for (const c of cursors) {
    const until = c.health.pausedUntil;
    if (!until || !(Date.parse(until) > nowMs)) continue;
    if (pause && Date.parse(pause.until) >= Date.parse(until)) continue;
    const err = c.health.lastError;
    pause = {
      until,
      kind: err?.kind === 'quota' ? 'quota' : 'auth',
      reason: err?.message ?? 'paused',
      source: c.source,
      ...(err?.at ? { since: err.at } : {}),
      consecutiveFailures: c.health.consecutiveFailures,
    };
  }
  return pause;
}
