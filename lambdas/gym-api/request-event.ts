/**
 * The quota-accounting hook: every HTTP request the client makes (token requests included) is
 * reported once, after it completes or fails, whatever the outcome.
 */
import { logger } from '../common/logger';

export interface RequestEvent {
  readonly kind: 'token' | 'data';
  /** `token`, or an operation name from OPERATIONS. */
  readonly operation: string;
  /** HTTP status, absent when no response arrived (network error, timeout). */
  readonly status?: number;
  readonly durationMs: number;
  /** 1-based attempt number within one logical call (retries and re-auth increment it). */
  readonly attempt: number;
  /** A page asked for ahead, side by side with the page before it (pages-ahead.ts). */
  readonly ahead?: boolean;
  /** Error name and short message when the request failed; never contains credentials. */
  readonly error?: string;
}

export type RequestObserver = (event: RequestEvent) => void;

/** Calls each observer; an observer that throws is logged and otherwise ignored. */
export function reportRequest(event: RequestEvent, ...observers: (RequestObserver | undefined)[]): void {
  for (const observer of observers) {
    if (!observer) continue;
    try {
      observer(event);
    } catch (err) {
      logger.warn('gym-api onRequest observer threw', {
        operation: event.operation,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
