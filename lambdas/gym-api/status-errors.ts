/**
 * Maps a non-2xx HTTP status to the client's typed error. 401 is left to the callers (the token
 * provider and the data client attribute it differently); everything else is decided here.
 *
 * 404 and 403 on a data operation are `EndpointUnavailableError` (the endpoint is missing or refused
 * for this club), except a 403 whose message blames a credential ("invalid API key"), which stays an
 * `AuthError`. The API document answers bad credentials with 401 and lists no 403 or 404. On
 * POST /token (operation `token`) both are what they always were: 403 an AuthError, 404 an
 * unexpected status (a wrong base URL, not a missing endpoint).
 */
import { parseRetryAfterMs } from '../common/backoff';
import {
  AuthError,
  type AuthFailureReason,
  BadRequestError,
  EndpointUnavailableError,
  type GymApiError,
  InvalidResponseError,
  QuotaExceededError,
  UnavailableError,
} from './errors';
import type { ExchangeResponse } from './http-exchange';
import { authReasonFromMessage, upstreamExcerpt } from './upstream-message';

export interface StatusContext {
  readonly operation: string;
  readonly secrets: readonly (string | undefined)[];
  readonly nowMs: number;
  /** Reason to give a 401/403 whose message does not say which credential it rejects. */
  readonly defaultAuthReason: AuthFailureReason;
  /** Reason to give every 401/403, whatever its message says (POST /token: the integrator login). */
  readonly forceAuthReason?: AuthFailureReason;
}

export function errorForStatus(
  response: Pick<ExchangeResponse, 'status' | 'headers' | 'body'>,
  context: StatusContext,
): GymApiError {
  const { status } = response;
  const { operation } = context;
  const excerpt = upstreamExcerpt(response.body, context.secrets);
  const said = excerpt ? `: ${excerpt}` : '';
  if (status === 400)
    return new BadRequestError(`${operation}: HTTP 400 bad request${said}`, { operation, status });
  const dataOperation = operation !== 'token' && context.forceAuthReason === undefined;
  if (dataOperation && status === 404) {
    return new EndpointUnavailableError(`${operation}: HTTP 404 not found${said}`, {
      operation,
      status,
      reason: 'not-found',
    });
  }
  if (dataOperation && status === 403 && authReasonFromMessage(excerpt) === undefined) {
    return new EndpointUnavailableError(`${operation}: HTTP 403 forbidden${said}`, {
      operation,
      status,
      reason: 'forbidden',
    });
  }
  if (status === 401 || status === 403) {
    const reason = context.forceAuthReason ?? authReasonFromMessage(excerpt) ?? context.defaultAuthReason;
    return new AuthError(`${operation}: HTTP ${status} (${reason} rejected)${said}`, {
      operation,
      status,
      reason,
    });
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), context.nowMs);
    return new QuotaExceededError(`${operation}: HTTP 429 quota exceeded${said}`, {
      operation,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status === 408 || status >= 500) {
    return new UnavailableError(`${operation}: HTTP ${status}${said}`, { operation, status });
  }
  if (status >= 300 && status < 400) {
    return new InvalidResponseError(
      `${operation}: HTTP ${status} redirect refused (redirects are never followed)`,
      {
        operation,
        status,
      },
    );
  }
  return new InvalidResponseError(`${operation}: unexpected HTTP ${status}${said}`, { operation, status });
}
