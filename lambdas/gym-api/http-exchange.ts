/**
 * One HTTP request/response with the client's safety rules: a per-request timeout
 * (AbortSignal.timeout) clamped to the caller's deadline, the caller's AbortSignal, redirects never
 * followed (a redirect could carry the API key to another host), header values checked before they
 * are sent (Node's own error would quote them), and the body streamed under the same timeout with a
 * byte cap and the process's large-body gate (body-budget.ts). Transport failures come out as typed
 * errors, their texts redacted of the request's credentials; HTTP statuses are left to the caller.
 */
import { createHash } from 'node:crypto';
import { redact } from '../common/redact';
import {
  LARGE_BODY_BYTES,
  type LargeBodyGate,
  largeBodyGate,
  type Release,
  releaseNothing,
  SMALL_BODY_BYTES,
} from './body-budget';
import {
  AuthError,
  DeadlineExceededError,
  FINGERPRINT_CHARS,
  GymApiError,
  RequestAbortedError,
  ResponseTooLargeError,
  UnavailableError,
} from './errors';

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
  /** @default the process's gate */
  readonly gate?: LargeBodyGate;
}

export interface ExchangeResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** True when a non-2xx body was cut at SMALL_BODY_BYTES. */
  readonly truncated?: boolean;
  /** Gives back the large-body slot the body holds, if any; call once the body is processed. */
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
      ...(signal ? { signal } : {}),
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

interface BodyLimits {
  readonly operation: string;
  readonly cap: number;
  /** A 2xx body past the cap is an error; any other body is cut there and kept. */
  readonly failPastCap: boolean;
  readonly gate: LargeBodyGate;
  readonly signal?: AbortSignal;
  readonly deadline?: number;
  readonly now: () => number;
}

/**
 * Reads a body as a stream, never more than `cap` bytes; past LARGE_BODY_BYTES it waits for a slot
 * of the large-body gate and keeps it (the caller releases it after processing the page).
 */
async function readBody(
  response: Response,
  limits: BodyLimits,
): Promise<{ text: string; truncated: boolean; release: Release }> {
  const { operation, cap } = limits;
  const declared = Number(response.headers.get('content-length'));
  if (limits.failPastCap && Number.isFinite(declared) && declared > cap) {
    // Refused on what it announces; only its head is read, to tell what it holds.
    const head = response.body ? await readHead(response.body.getReader(), HEAD_BYTES) : [];
    throw tooLarge(operation, declared, cap, head, true);
  }
  if (!response.body) return { text: '', truncated: false, release: releaseNothing };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let release: Release = releaseNothing;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > cap) {
        const room = cap - size;
        if (room > 0) chunks.push(value.subarray(0, room));
        await reader.cancel().catch(() => undefined);
        if (limits.failPastCap) {
          throw tooLarge(operation, size + value.byteLength, cap, chunks, false);
        }
        return { text: Buffer.concat(chunks).toString('utf8'), truncated: true, release };
      }
      size += value.byteLength;
      chunks.push(value);
      if (size > LARGE_BODY_THRESHOLD && release === releaseNothing) {
        release = await limits.gate.acquire(operation, limits.signal, limits.deadline, limits.now);
      }
    }
    return { text: Buffer.concat(chunks).toString('utf8'), truncated: false, release };
  } catch (err) {
    release();
    throw err;
  }
}

const LARGE_BODY_THRESHOLD = LARGE_BODY_BYTES;

/** How much of an oversized body is kept to tell what it holds (read of one over Content-Length). */
const HEAD_BYTES = 64 * 1024;

/** Up to `bytes` of a body, then the rest cancelled. */
async function readHead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  bytes: number,
): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // What was read is enough: the body is refused anyway.
  }
  await reader.cancel().catch(() => undefined);
  return chunks;
}

function tooLarge(
  operation: string,
  bytes: number,
  cap: number,
  chunks: readonly Uint8Array[],
  announced: boolean,
) {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  const taken: Uint8Array[] = [];
  for (let size = 0, i = 0; i < chunks.length && size < HEAD_BYTES; i++) {
    taken.push(chunks[i]!);
    size += chunks[i]!.byteLength;
  }
  const text = Buffer.concat(taken).subarray(0, HEAD_BYTES).toString('utf8');
  // The first KB of what `data` holds: a stable key of an oversized record across polls (the
  // envelope's links name each poll's window); the first 2 KB as sent: what this answer holds.
  const at = text.indexOf('"data"');
  const prefix = at >= 0 ? text.slice(at, at + 1024) : text.slice(0, 1024);
  const head = text.slice(0, 2048);
  const fingerprint =
    at >= 0
      ? createHash('sha256')
          .update(text.slice(at, at + FINGERPRINT_CHARS))
          .digest('base64url')
      : '';
  return new ResponseTooLargeError(
    `${operation}: response ${announced ? 'announced as' : 'is over'} ${mb(bytes)}, past the ${mb(cap)} cap (maxResponseBytes); not read further`,
    { operation, status: 200, bytes, limitBytes: cap, prefix, head, fingerprint },
  );
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
