/**
 * Reading a response body under the client's limits: streamed, never more than its cap; a 2xx body
 * past the cap (announced by Content-Length or met while reading) is a ResponseTooLargeError that
 * carries what was read of its head (to tell a record over the cap from a stale or limit-ignoring
 * answer); any other body is cut at the cap and kept. Past PAGE_BODY_BYTES a body waits for a slot
 * of the process's page gate, past LARGE_BODY_BYTES for one of its large-body gate too
 * (body-budget.ts), and keeps them until the caller releases them.
 */
import { createHash } from 'node:crypto';
import {
  type BodyGate,
  LARGE_BODY_BYTES,
  PAGE_BODY_BYTES,
  type Release,
  releaseNothing,
} from './body-budget';
import { FINGERPRINT_CHARS, ResponseTooLargeError } from './errors';

export interface BodyLimits {
  readonly operation: string;
  readonly cap: number;
  /** A 2xx body past the cap is an error; any other body is cut there and kept. */
  readonly failPastCap: boolean;
  /** The large-body gate (bodies past LARGE_BODY_BYTES). */
  readonly gate: BodyGate;
  /** The page gate (bodies past PAGE_BODY_BYTES); none for a page asked for ahead. */
  readonly pageGate?: BodyGate;
  /** The caller's signal: gives up waiting for a slot. */
  readonly signal?: AbortSignal;
  /**
   * Ends the reading itself (the request's timeout and the caller's signal together): each read
   * of the body races it, so a body that stalls is given up whatever the transport does with the
   * abort (Node 20's fetch does not always end a gzip-decoded body when its request is aborted).
   */
  readonly readSignal?: AbortSignal;
  readonly deadline?: number;
  readonly now: () => number;
}

/**
 * Reads a body as a stream, never more than `cap` bytes; past PAGE_BODY_BYTES it waits for a page
 * slot, past LARGE_BODY_BYTES for a large-body slot, and keeps them (the caller releases them after
 * processing the page).
 */
export async function readBody(
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
  const slots = new BodySlots(limits);
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, limits.readSignal);
      if (done) break;
      if (size + value.byteLength > cap) {
        const room = cap - size;
        if (room > 0) chunks.push(value.subarray(0, room));
        await reader.cancel().catch(() => undefined);
        if (limits.failPastCap) {
          throw tooLarge(operation, size + value.byteLength, cap, chunks, false);
        }
        return { text: Buffer.concat(chunks).toString('utf8'), truncated: true, release: slots.release };
      }
      size += value.byteLength;
      chunks.push(value);
      await slots.holdFor(size);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), truncated: false, release: slots.release };
  } catch (err) {
    slots.release();
    throw err;
  }
}

/**
 * The gate slots a body holds as it grows: a page slot past PAGE_BODY_BYTES, a large one past
 * LARGE_BODY_BYTES.
 */
class BodySlots {
  #page: Release = releaseNothing;
  #large: Release = releaseNothing;

  constructor(private readonly limits: BodyLimits) {}

  async holdFor(size: number): Promise<void> {
    const { operation, signal, deadline, now, pageGate, gate } = this.limits;
    if (pageGate && size > PAGE_BODY_BYTES && this.#page === releaseNothing) {
      this.#page = await pageGate.acquire(operation, signal, deadline, now);
    }
    if (size > LARGE_BODY_BYTES && this.#large === releaseNothing) {
      this.#large = await gate.acquire(operation, signal, deadline, now);
    }
  }

  readonly release: Release = () => {
    this.#large();
    this.#page();
  };
}

/** One read of the body, or the signal's reason once it aborts (the reader then cancelled). */
function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  signal: AbortSignal | undefined,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>> {
  if (!signal) return reader.read();
  if (signal.aborted) {
    reader.cancel().catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      reader.cancel().catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

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
