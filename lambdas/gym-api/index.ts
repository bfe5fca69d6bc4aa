/**
 * Public API of the Gym Reporting API client. See docs/client.md.
 */

export { backoffCapMs, backoffDelayMs, parseRetryAfterMs } from '../common/backoff';
export {
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  type FetchAllResult,
  GymApiClient,
  type GymApiClientOptions,
  type PageOptions,
  type RetryPolicy,
  type SleepFn,
  type TokenSource,
} from './client';
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
export { isValidDateTime, type QueryOf } from './query';
export type { RequestEvent, RequestObserver } from './request-event';
export * from './schemas';
export { type GetTokenOptions, TokenProvider, type TokenProviderOptions } from './token-provider';
