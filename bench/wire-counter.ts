/**
 * What the real API client writes and reads on its sockets, request by request. Node's fetch (the
 * client's transport: undici) publishes each request's life on diagnostics channels (undici's
 * documentation of its diagnostics channels): created, socket connected, headers sent (with the socket),
 * answered, completed. For the requests to one origin this reads the socket's bytesWritten and
 * bytesRead when the request's headers go out and again when its answer is complete: the request
 * line and headers exactly as written (Host, Authorization, x-api-key and undici's own), and the
 * response's bytes. Requests are not pipelined (undici's default), so a socket's counts between
 * those two instants are that request's. Nothing is relayed or copied, and no credential is kept:
 * only the lengths of the Authorization, x-api-key and Host values.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { segmentsOf } from './bytes-out';
import { emptyWireCounts, GRO_SEGMENTS, type WireCounts, type WireTally } from './wire-counts';

/** The fields of undici's request object this reads. */
interface UndiciRequest {
  readonly origin?: unknown;
  readonly method?: unknown;
  readonly path?: unknown;
}

interface Exchange {
  readonly kind: 'data' | 'token';
  socket?: Socket;
  written0: number;
  read0: number;
  status?: number;
}

const requestOf = (message: unknown): UndiciRequest | undefined =>
  (message as { request?: UndiciRequest } | undefined)?.request;

/** Length of a header's value in an undici header block (`name: value\r\n` lines); 0 if absent. */
function headerChars(block: string, name: string, prefix = ''): number {
  const start = `${name}: ${prefix}`.toLowerCase();
  const line = block.split('\r\n').find((l) => l.toLowerCase().startsWith(start));
  return line ? line.length - name.length - 2 - prefix.length : 0;
}

export class WireCounter {
  #counts = emptyWireCounts();
  #inFlight = 0;
  #peak = 0;
  readonly #exchanges = new WeakMap<object, Exchange>();
  readonly #handlers: readonly (readonly [string, (message: unknown) => void])[];

  /** Counts the requests to `origin` (e.g. `http://127.0.0.1:8080`) until `close`. */
  constructor(readonly origin: string) {
    this.#handlers = [
      ['undici:request:create', (m) => this.#created(m)],
      ['undici:client:connected', (m) => this.#connected(m)],
      ['undici:client:sendHeaders', (m) => this.#sending(m)],
      ['undici:request:headers', (m) => this.#answered(m)],
      ['undici:request:trailers', (m) => this.#finished(m)],
      ['undici:request:error', (m) => this.#finished(m)],
    ];
    for (const [name, handler] of this.#handlers) subscribe(name, handler);
  }

  /** The counts since the last take, as one window (a poll); counting goes on from zero. */
  take(): WireCounts {
    const taken = this.#counts;
    taken.coldPoolConnections = this.#peak;
    taken.windows = 1;
    this.#counts = emptyWireCounts();
    this.#peak = this.#inFlight;
    return taken;
  }

  close(): void {
    for (const [name, handler] of this.#handlers) unsubscribe(name, handler);
  }

  #created(message: unknown): void {
    const request = requestOf(message);
    if (!request || request.origin !== this.origin) return;
    const token = request.method === 'POST' && String(request.path).split('?')[0]?.endsWith('/token');
    this.#exchanges.set(request, { kind: token ? 'token' : 'data', written0: 0, read0: 0 });
    this.#inFlight++;
    this.#peak = Math.max(this.#peak, this.#inFlight);
  }

  #connected(message: unknown): void {
    const params = (message as { connectParams?: { protocol?: string; host?: string } }).connectParams;
    if (params && `${params.protocol}//${params.host}` === this.origin) this.#counts.connectionsOpened++;
  }

  #sending(message: unknown): void {
    const exchange = this.#exchange(message);
    const { socket, headers } = message as { socket?: Socket; headers?: unknown };
    if (!exchange || !socket) return;
    exchange.socket = socket;
    exchange.written0 = socket.bytesWritten;
    exchange.read0 = socket.bytesRead;
    if (typeof headers !== 'string') return;
    const c = this.#counts;
    c.hostChars = Math.max(c.hostChars, headerChars(headers, 'host'));
    c.apiKeyChars = Math.max(c.apiKeyChars, headerChars(headers, 'x-api-key'));
    c.bearerChars = Math.max(c.bearerChars, headerChars(headers, 'authorization', 'Bearer '));
  }

  #answered(message: unknown): void {
    const exchange = this.#exchange(message);
    const status = (message as { response?: { statusCode?: unknown } }).response?.statusCode;
    if (exchange && typeof status === 'number') exchange.status = status;
  }

  #finished(message: unknown): void {
    const request = requestOf(message);
    const exchange = this.#exchange(message);
    if (!request || !exchange) return;
    this.#exchanges.delete(request);
    this.#inFlight--;
    const written = exchange.socket ? exchange.socket.bytesWritten - exchange.written0 : 0;
    const read = exchange.socket ? exchange.socket.bytesRead - exchange.read0 : 0;
    const tally: WireTally =
      exchange.kind === 'token'
        ? this.#counts.token
        : exchange.status === 401
          ? this.#counts.reauth401
          : this.#counts.data;
    const segments = segmentsOf(read);
    tally.requests++;
    tally.requestBytes += written;
    tally.maxRequestBytes = Math.max(tally.maxRequestBytes, written);
    tally.responseBytes += read;
    tally.responseSegments += segments;
    tally.responseSegmentPairs += Math.ceil(segments / 2);
    tally.responseSegmentBatches += Math.ceil(segments / GRO_SEGMENTS);
  }

  #exchange(message: unknown): Exchange | undefined {
    const request = requestOf(message);
    return request ? this.#exchanges.get(request) : undefined;
  }
}
