/**
 * Public API of the Gym Reporting API client. See docs/client.md.
 */

export { backoffCapMs, backoffDelayMs, parseRetryAfterMs } from '../common/backoff';
export { GymApiClient } from './client';
export {
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type FetchAllResult,
  type GymApiClientOptions,
  type PageOptions,
  type SleepFn,
  type TokenSource,
} from './client-options';
export {
  AuthError,
  type AuthFailureReason,
  BadRequestError,
  DeadlineExceededError,
  GymApiError,
  InvalidResponseError,
  PagingStalledError,
  QuotaExceededError,
  RequestAbortedError,
  ResponseTooLargeError,
  StaleResponseError,
  UnavailableError,
} from './errors';
export type { FetchFn } from './http-exchange';
export { parseJsonPreservingInt64 } from './json';
export {
  type ItemOf,
  MAX_PAGE_SIZE,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  type OperationSpec,
} from './operations';
export type { InvalidItem, Page } from './page-reader';
export * from './protocol-schemas';
export { isValidDateTime, type QueryOf } from './query';
export type { RequestEvent, RequestObserver } from './request-event';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy';
export * from './schemas';
export * from './statuses';
export { type GetTokenOptions, TokenProvider, type TokenProviderOptions } from './token-provider';
