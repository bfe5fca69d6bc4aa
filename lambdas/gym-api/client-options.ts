/**
 * The options of GymApiClient and of its calls, with their defaults: what the client is given
 * (base address, API key, token source, transport, retry policy, clock, response cap) and what a
 * scan or a single read may say (page size, start offset, deadline, signal).
 */

import type { FetchFn } from './http-exchange';
import type { OperationName } from './operations';
import type { InvalidItem, Page } from './page-reader';
import type { RequestObserver } from './request-event';
import type { RetryPolicy } from './retry-policy';
import type { GetTokenOptions } from './token-provider';

/** What the client needs from a token source; TokenProvider implements it. */
export interface TokenSource {
  getToken(options?: GetTokenOptions): Promise<string>;
  invalidate(token: string): void;
  /** Credentials the source holds (the integrator password), for redaction of upstream text. */
  redactionSecrets?(): readonly string[];
}

export const DEFAULT_PAGE_SIZE = 500;
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface GymApiClientOptions {
  /** The API base address, ending in the version segment, e.g. `https://api.example.com/v1`. */
  readonly baseUrl: string;
  /** The club's API key, sent as x-api-key. */
  readonly apiKey: string;
  /** Shared by every club of the same integrator login. */
  readonly tokenProvider: TokenSource;
  /** @default globalThis.fetch */
  readonly fetch?: FetchFn;
  /** Per HTTP request, clamped to the caller's deadline. @default 15000 */
  readonly requestTimeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** @default a timer that the caller's AbortSignal interrupts */
  readonly sleep?: SleepFn;
  /** [0, 1) for backoff jitter. @default Math.random */
  readonly random?: () => number;
  /** Epoch ms, compared with deadlines. @default Date.now */
  readonly now?: () => number;
  /** Every request, data and token, once it finished or failed: the quota-accounting hook. */
  readonly onRequest?: RequestObserver;
  /**
   * Largest page body read, in bytes: past it the page is asked again with fewer records, and a
   * single record past it is skipped as an invalid item (body-budget.ts). @default 8 MiB
   */
  readonly maxResponseBytes?: number;
}

export interface PageOptions {
  /** 1..500. @default 500 */
  readonly pageSize?: number;
  /** Resume a scan here. @default 0 */
  readonly startOffset?: number;
  /** Epoch ms: no request runs and no retry waits past it. */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  /**
   * Full pages to ask for ahead, side by side with the page being read, for a scan whose length is
   * roughly known (pages-ahead.ts): at most this many in all, each only while a slot of the
   * process's is free. The pages are yielded in order as without it. @default 0
   */
  readonly prefetch?: number;
}

export interface RequestOptions {
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  /** A lower cap than `maxResponseBytes` for this request's body (a page asked for ahead). */
  readonly bodyCap?: number;
  /** The request is a page asked for ahead (reported as such to `onRequest`). */
  readonly ahead?: boolean;
}

export interface FetchAllResult<N extends OperationName> {
  readonly items: Page<N>['items'];
  /** Invalid items of every page; `offset` is the item's position in the whole result. */
  readonly invalid: (InvalidItem & { readonly offset: number })[];
  readonly pageCount: number;
}
