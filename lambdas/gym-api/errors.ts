/**
 * Typed errors of the Gym API client. Every error carries the operation it came from, the HTTP
 * status where there was one, and `retryable`: whether trying again later can succeed (the engine
 * uses it to choose between backing off and alerting). Messages never contain credentials, tokens
 * or raw upstream bodies: at most a short, redacted excerpt of the upstream message.
 */

/** `token` for POST /token, otherwise an operation name from OPERATIONS. */
export type GymApiOperation = string;

export interface GymApiErrorOptions {
  readonly operation: GymApiOperation;
  readonly status?: number;
  readonly cause?: unknown;
}

export class GymApiError extends Error {
  override readonly name: string = 'GymApiError';
  readonly operation: GymApiOperation;
  readonly status?: number;
  readonly retryable: boolean;

  constructor(message: string, options: GymApiErrorOptions & { readonly retryable: boolean }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.operation = options.operation;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable;
  }
}

/** 400, or a query the client refuses to send (bad date pattern, unknown status, unknown parameter). */
export class BadRequestError extends GymApiError {
  override readonly name = 'BadRequestError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/**
 * Which credential was rejected:
 * - `credentials`: the integrator username/password (401 on POST /token);
 * - `apiKey`: the club's API key (401 again right after a fresh token, or the body says so);
 * - `token`: the bearer token was rejected and could not be replaced;
 * - `unknown`: a 401/403 that could not be attributed.
 */
export type AuthFailureReason = 'credentials' | 'apiKey' | 'token' | 'unknown';

export class AuthError extends GymApiError {
  override readonly name = 'AuthError';
  readonly reason: AuthFailureReason;
  constructor(message: string, options: GymApiErrorOptions & { readonly reason: AuthFailureReason }) {
    super(message, { ...options, retryable: false });
    this.reason = options.reason;
  }
}

/** 429: the club's plan quota is used up. `retryAfterMs` is the upstream's Retry-After, if it gave one. */
export class QuotaExceededError extends GymApiError {
  override readonly name = 'QuotaExceededError';
  readonly retryAfterMs?: number;
  constructor(message: string, options: GymApiErrorOptions & { readonly retryAfterMs?: number }) {
    super(message, { ...options, retryable: true });
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * Why an endpoint is not there for this club:
 * - `not-found`: 404 on a data operation (the API, or this club's plan, has no such endpoint);
 * - `forbidden`: 403 on a data operation whose message blames no credential (the API document
 *   answers a rejected token or key with 401; a 403 refuses this endpoint, not the club).
 */
export type EndpointUnavailableReason = 'not-found' | 'forbidden';

/**
 * A data operation this club's API does not offer (404) or refuses (403 that blames no credential).
 * Not transient and not a credential problem: the engine marks the source unavailable for the club
 * and re-tries it rarely, while the club's other sources go on. Distinct from `UnavailableError`
 * (5xx, network: retried at once).
 */
export class EndpointUnavailableError extends GymApiError {
  override readonly name = 'EndpointUnavailableError';
  readonly reason: EndpointUnavailableReason;
  constructor(message: string, options: GymApiErrorOptions & { readonly reason: EndpointUnavailableReason }) {
    super(message, { ...options, retryable: false });
    this.reason = options.reason;
  }
}

/** 5xx, 408, a network failure or a request timeout. The client retries these itself first. */
export class UnavailableError extends GymApiError {
  override readonly name = 'UnavailableError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, retryable: true });
  }
}

/**
 * A response the client cannot use: not JSON, truncated, HTML, a wrong envelope, a `next` link to
 * another origin or path, a redirect, an unexpected status. `path` names the offending field
 * (e.g. `data`, `next`, `ExpiresIn`) where there is one.
 */
export class InvalidResponseError extends GymApiError {
  override readonly name: string = 'InvalidResponseError';
  readonly path?: string;
  constructor(message: string, options: GymApiErrorOptions & { readonly path?: string }) {
    super(message, { ...options, retryable: false });
    if (options.path !== undefined) this.path = options.path;
  }
}

/** The caller's deadline passed (or would pass) before the request could complete. */
export class DeadlineExceededError extends GymApiError {
  override readonly name = 'DeadlineExceededError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, retryable: true });
  }
}

/** The caller's AbortSignal fired. `cause` is the signal's reason. */
export class RequestAbortedError extends GymApiError {
  override readonly name = 'RequestAbortedError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, retryable: false });
  }
}

/** How much of a record over the response cap (or past the record limits) its fingerprint covers. */
export const FINGERPRINT_CHARS = 16 * 1024;

/**
 * A response body over the client's byte cap (`maxResponseBytes`): it is not read further and never
 * parsed, so no response can exhaust the memory of the process. The client first asks again for
 * fewer records; a single record over the cap is skipped as an invalid item.
 */
export class ResponseTooLargeError extends InvalidResponseError {
  override readonly name = 'ResponseTooLargeError';
  /** Bytes received (or announced by Content-Length) when reading stopped. */
  readonly bytes: number;
  readonly limitBytes: number;
  /** The first bytes of the body (what `data` starts with), for a stable quarantine key. */
  readonly prefix: string;
  /**
   * The body's first bytes as sent (envelope included): two answers to one request that begin
   * alike are the same content; a one-off oversized answer (padding, a debug field) differs.
   */
  readonly head: string;
  /**
   * A digest of the first 16 KB of what `data` holds: the same oversized record served at two
   * offsets has one fingerprint (the scan counts it as a row read twice); two different records
   * agree only if their first 16 KB of JSON are the same. '' when `data` was not in the head.
   */
  readonly fingerprint: string;
  constructor(
    message: string,
    options: GymApiErrorOptions & {
      readonly bytes: number;
      readonly limitBytes: number;
      readonly prefix?: string;
      readonly head?: string;
      readonly fingerprint?: string;
    },
  ) {
    super(message, { ...options, path: 'body' });
    this.bytes = options.bytes;
    this.limitBytes = options.limitBytes;
    this.prefix = options.prefix ?? '';
    this.head = options.head ?? '';
    this.fingerprint = options.fingerprint ?? '';
  }
}

/**
 * The upstream does not make progress through its pages: it served the page it served before
 * (an `offset` it does not honour), or a page of records the scan already read. Paging stops at
 * once; the source's poll fails with this reason, so it is never counted as a success.
 */
export class PagingStalledError extends InvalidResponseError {
  override readonly name = 'PagingStalledError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, path: 'offset' });
  }
}

/**
 * A page whose `href` (the API document: "URL of the current request") names another request than
 * the one sent: another offset, limit, filter or status. A cache or a proxy answering with a stale
 * response would send it; its records are not those asked for, so nothing of it is used (reading
 * it as the last page could skip records for good). A failure of the poll, retried next poll.
 */
export class StaleResponseError extends InvalidResponseError {
  override readonly name = 'StaleResponseError';
  constructor(message: string, options: GymApiErrorOptions) {
    super(message, { ...options, path: 'href' });
  }
}
