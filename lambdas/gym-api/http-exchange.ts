/**
 * One HTTP request/response with the client's safety rules: a per-request timeout
 * (AbortSignal.timeout) clamped to the caller's deadline, the caller's AbortSignal, redirects never
 * followed (a redirect could carry the API key to another host), header values checked before they
 * are sent (Node's own error would quote them), and the body streamed under the same timeout with a
 * byte cap and the process's page and large-body gates (response-body.ts, body-budget.ts).
 * Transport failures come out as typed errors, their texts redacted of the request's credentials;
 * HTTP statuses are left to the caller.
 */
import { redact } from '../common/redact';
import { type BodyGate, largeBodyGate, pageBodyGate, type Release, SMALL_BODY_BYTES } from './body-budget';
import {
  AuthError,
  DeadlineExceededError,
  GymApiError,
  RequestAbortedError,
  UnavailableError,
} from './errors';
import { readBody } from './response-body';

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
  /** Cap of a 2xx body in bytes (ResponseTooLargeError past it). Other bodies: SMALL_BODY_BYTES, cut. */
  readonly maxBodyBytes: number;
  /** The large-body gate. @default the process's */
  readonly gate?: BodyGate;
  /** The page gate. @default the process's */
  readonly pageGate?: BodyGate;
  /**
   * A page asked for ahead (pages-ahead.ts): its body takes no page slot (at most AHEAD_SLOTS of
   * them are held, each cut at 1 MB), so it never waits while the page before it holds one.
   */
  readonly readAhead?: boolean;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** True when a non-2xx body was cut at SMALL_BODY_BYTES. */
  readonly truncated?: boolean;
  /** Gives back the gate slots the body holds, if any; call once the body is processed. */
  readonly release: Release;
}

/**
 * Characters an HTTP header value can carry: visible ASCII, space and tab inside. Anything else
 * makes fetch throw an error that quotes the value (a credential): refused here, by name.
 */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

function checkHeaders(headers: Readonly<Record<string, string>>, operation: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (HEADER_VALUE.test(value)) continue;
    const lower = name.toLowerCase();
    const which =
      lower === 'x-api-key'
        ? 'apiKey'
        : lower === 'authorization' && /^bearer /i.test(value)
          ? 'token'
          : 'credentials';
    throw new AuthError(
      `${operation}: the ${name} header would carry characters HTTP does not allow (control characters, non-ASCII, or leading/trailing spaces); its value is not shown. Check the club's ${which === 'apiKey' ? 'API key' : which === 'token' ? 'token endpoint' : 'credentials'}.`,
      { operation, reason: which },
    );
  }
}

/** The credential parts of request headers, for redacting transport error texts. */
function headerSecrets(headers: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-api-key') out.push(value);
    if (lower === 'authorization') {
      out.push(value);
      const credential = value.replace(/^\S+\s+/, '');
      out.push(credential);
      if (/^basic /i.test(value)) {
        try {
          const pair = Buffer.from(credential, 'base64').toString('utf8');
          out.push(pair, pair.slice(pair.indexOf(':') + 1));
        } catch {
          // not base64: the credential itself is redacted
        }
      }
    }
  }
  return out;
}

/**
 * The request's timeout: its own, or what is left before the deadline when that is shorter
 * (`cutByDeadline`). Throws DeadlineExceededError when the deadline has passed.
 */
function timeoutOf(request: ExchangeRequest): { timeoutMs: number; cutByDeadline: boolean } {
  const { operation } = request;
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
  return { timeoutMs, cutByDeadline };
}

export async function exchange(request: ExchangeRequest): Promise<ExchangeResponse> {
  const { operation, signal } = request;
  throwIfAborted(signal, operation);
  const { timeoutMs, cutByDeadline } = timeoutOf(request);
  checkHeaders(request.headers, operation);
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)));
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await request.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      signal: combined,
      redirect: 'manual',
    });
    const ok = response.status >= 200 && response.status < 300;
    const read = await readBody(response, {
      operation,
      cap: ok ? request.maxBodyBytes : Math.min(SMALL_BODY_BYTES, request.maxBodyBytes),
      failPastCap: ok,
      gate: request.gate ?? largeBodyGate,
      ...(request.readAhead ? {} : { pageGate: request.pageGate ?? pageBodyGate }),
      ...(signal ? { signal } : {}),
      readSignal: combined,
      ...(request.deadline === undefined ? {} : { deadline: request.deadline }),
      now: request.now,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: read.text,
      release: read.release,
      ...(read.truncated ? { truncated: true } : {}),
    };
  } catch (err) {
    if (err instanceof GymApiError && !(err instanceof UnavailableError)) throw err;
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
    // The cause stays off the error: transport errors can quote what was sent.
    throw new UnavailableError(
      `${operation}: network error (${redact(describeNetworkError(err), headerSecrets(request.headers))})`,
      { operation },
    );
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
