/**
 * One HTTP request/response with the client's safety rules: a per-request timeout
 * (AbortSignal.timeout) clamped to the caller's deadline, the caller's AbortSignal, redirects never
 * followed (a redirect could carry the API key to another host), and the body read in full under
 * the same timeout. Transport failures come out as typed errors; HTTP statuses are left to the caller.
 */
import { DeadlineExceededError, RequestAbortedError, UnavailableError } from './errors';

export type FetchFn = typeof fetch;

export interface ExchangeRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly operation: string;
  readonly timeoutMs: number;
  /** Epoch ms; the request is cut at this instant. */
  readonly deadline?: number;
  readonly now: () => number;
  readonly signal?: AbortSignal;
  readonly fetch: FetchFn;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export async function exchange(request: ExchangeRequest): Promise<ExchangeResponse> {
  const { operation, signal } = request;
  throwIfAborted(signal, operation);
  let timeoutMs = request.timeoutMs;
  let cutByDeadline = false;
  if (request.deadline !== undefined) {
    const remaining = request.deadline - request.now();
    if (remaining <= 0) {
      throw new DeadlineExceededError(`${operation}: deadline passed before the request was sent`, {
        operation,
      });
    }
    if (remaining < timeoutMs) {
      timeoutMs = remaining;
      cutByDeadline = true;
    }
  }
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await request.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      signal: combined,
      redirect: 'manual',
    });
    const body = await response.text();
    return { status: response.status, headers: response.headers, body };
  } catch (err) {
    throwIfAborted(signal, operation);
    if (timeout.aborted) {
      if (cutByDeadline) {
        throw new DeadlineExceededError(`${operation}: deadline reached after ${Math.round(timeoutMs)} ms`, {
          operation,
          cause: err,
        });
      }
      throw new UnavailableError(`${operation}: request timed out after ${Math.round(timeoutMs)} ms`, {
        operation,
        cause: err,
      });
    }
    throw new UnavailableError(`${operation}: network error (${describeNetworkError(err)})`, {
      operation,
      cause: err,
    });
  }
}

export function throwIfAborted(signal: AbortSignal | undefined, operation: string): void {
  if (signal?.aborted) {
    throw new RequestAbortedError(`${operation}: aborted by the caller`, { operation, cause: signal.reason });
  }
}

/** e.g. "ECONNREFUSED", "UND_ERR_SOCKET: other side closed", "fetch failed". */
function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 100);
  const cause = err.cause;
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    const message = (cause as { message?: unknown }).message;
    if (typeof code === 'string' && typeof message === 'string') return `${code}: ${message}`.slice(0, 160);
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message.slice(0, 160);
  }
  return err.message.slice(0, 160);
}
