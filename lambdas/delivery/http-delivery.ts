/**
 * One webhook attempt over HTTP: a POST of the signed body, judged as Standard Webhooks says
 * ("Delivery success and failure", "Request timeouts"): 2xx is success; anything else fails,
 * redirects included (never followed); 410 means the endpoint is gone; 429 and 503 may say when to
 * come back (Retry-After). One deadline (15 s by default) covers the whole exchange.
 *
 * An inline first attempt (the fan-out's, ./first-attempt.ts) has a budget of its own: no answer
 * within it ends the attempt as a hand-off (`kind: 'handoff'`), not a failure: the request is
 * abandoned (its socket destroyed) and the delivery goes to the delivery queue, whose attempt has
 * the whole deadline. `sent` says whether the request had been handed to the network: then the
 * receiver may have it, and the queue's attempt may be a duplicate (same webhook-id).
 *
 * Safety (./address-policy.ts): the host's name is resolved by our `lookup`, every address it
 * returns is checked, and the socket connects only to those checked addresses: the connection is
 * pinned to what was checked, whatever the DNS answers a moment later. An IP literal is checked
 * before the request. At most `maxResponseBytes` of the answer are read (the rest is cut off);
 * what a failure keeps of it is an excerpt of at most EXCERPT_CHARS, credentials redacted.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import * as tls from 'node:tls';
import { parseRetryAfterMs } from '../common/backoff';
import { redact, scrubTokenLike } from '../common/redact';
import { type AddressPolicy, addressProblem, checkWebhookUrl, WebhookUrlError } from './address-policy';

export const DEFAULT_TIMEOUT_MS = 15_000;
/**
 * A new connection (TCP, then TLS) not made in this long is given up, inside the 15 s: a host that
 * drops or holds connections would otherwise hold a delivery Lambda the whole deadline each time.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
export const EXCERPT_CHARS = 200;

/** How an attempt failed, for retries and the operator. */
export type FailureKind = 'http' | 'timeout' | 'network' | 'address' | 'url';

export type AttemptOutcome =
  | { readonly ok: true; readonly status: number; readonly ms: number }
  | {
      readonly ok: false;
      /** The request's budget ran out before an answer: handed off, not failed (not an attempt). */
      readonly kind: 'handoff';
      /** The request had been handed to the network (the receiver may have it). */
      readonly sent: boolean;
      readonly error: string;
      readonly ms: number;
    }
  | {
      readonly ok: false;
      readonly kind: FailureKind;
      /** The HTTP status, when there was an answer. */
      readonly status?: number;
      /** Short, without the URL's path or query: `HTTP 503`, `timeout after 15 s`, `connection reset`. */
      readonly error: string;
      /** Retry-After of a 429 or 503, in ms from the attempt's end. */
      readonly retryAfterMs?: number;
      /** The start of the answer's body, credentials redacted, cut. */
      readonly excerpt?: string;
      readonly ms: number;
    };

/** A failed attempt (a hand-off is not one). */
export type AttemptFailure = Extract<AttemptOutcome, { readonly kind: FailureKind }>;
/** An attempt given up at its budget: the delivery goes to the queue. */
export type AttemptHandOff = Extract<AttemptOutcome, { readonly kind: 'handoff' }>;

/** Resolves a name to all its addresses (dns.lookup with all: true, by default). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    );
  });

export interface HttpDeliveryOptions {
  readonly policy: AddressPolicy;
  /** @default DEFAULT_TIMEOUT_MS */
  readonly timeoutMs?: number;
  /** @default DEFAULT_CONNECT_TIMEOUT_MS */
  readonly connectTimeoutMs?: number;
  /** @default DEFAULT_MAX_RESPONSE_BYTES */
  readonly maxResponseBytes?: number;
  /** @default systemResolver */
  readonly resolve?: Resolver;
  /** Extra trusted CAs (tests' self-signed receiver). @default the system's */
  readonly ca?: string | Buffer;
  /** Wall clock for the attempt's duration. @default performance.now-based */
  readonly elapsed?: () => number;
}

export interface DeliveryRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Texts that must not appear in an excerpt (static header values). */
  readonly secrets?: readonly string[];
  /**
   * An inline attempt's budget, ms: no answer by then hands the delivery off (`kind: 'handoff'`);
   * a non-2xx answer begun by then fails with what was read of it. @default none (the deadline)
   */
  readonly budgetMs?: number;
}

class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
}

/** A lookup that resolves, checks every address, and hands the socket only checked ones. */
function checkedLookup(resolve: Resolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const problems = addresses.map((a) => addressProblem(a.address, policy)).filter(Boolean);
        if (addresses.length === 0 || problems.length > 0) {
          const why = problems[0] ?? `${hostname} resolves to no address`;
          callback(new AddressRefusedError(`address not allowed: ${why}`), '', 4);
          return;
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, [...usable]);
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 4);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}

/**
 * Connections are kept alive and reused (a TLS handshake per delivery would double its time), in
 * pools of their own per policy and CA, never Node's global agents: a socket is only ever reused
 * by a request under the policy its address was checked with.
 */
const agents = new Map<string, http.Agent>();
function agentFor(secure: boolean, policy: AddressPolicy, ca: string | Buffer | undefined): http.Agent {
  const key = `${secure}:${policy}:${ca === undefined ? '' : ca.toString()}`;
  let agent = agents.get(key);
  if (!agent) {
    const context = contextFor(ca);
    agent = secure
      ? new https.Agent({ keepAlive: true, maxSockets: 50, ...(context ? { secureContext: context } : {}) })
      : new http.Agent({ keepAlive: true, maxSockets: 50 });
    agents.set(key, agent);
  }
  return agent;
}

/** A TLS context trusting an extra CA (tests', the bench's), made once (not per connection). */
const contexts = new Map<string, tls.SecureContext>();
function contextFor(ca: string | Buffer | undefined): tls.SecureContext | undefined {
  if (ca === undefined) return undefined;
  const key = ca.toString();
  let context = contexts.get(key);
  if (!context) {
    context = tls.createSecureContext({ ca });
    contexts.set(key, context);
  }
  return context;
}

/** The request of an attempt: pooled (kept alive), or `fresh` on a connection of its own. */
function requestOptionsOf(
  request: DeliveryRequest,
  checked: ReturnType<typeof checkWebhookUrl>,
  options: HttpDeliveryOptions,
  fresh: boolean,
): https.RequestOptions {
  const secure = checked.url.protocol === 'https:';
  return {
    hostname: checked.hostname,
    port: checked.port,
    path: `${checked.url.pathname}${checked.url.search}`,
    method: 'POST',
    headers: {
      ...request.headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(request.body)),
      'user-agent': 'gym-bridge-webhooks/1',
    },
    lookup: checkedLookup(options.resolve ?? systemResolver, options.policy),
    agent: fresh ? false : agentFor(secure, options.policy, options.ca),
    ...(fresh && options.ca !== undefined ? { secureContext: contextFor(options.ca) } : {}),
    ...(secure && !checked.literal ? { servername: checked.hostname } : {}),
  };
}

/**
 * Makes one attempt. Never throws: every failure is an outcome with its reason. A new connection
 * has DEFAULT_CONNECT_TIMEOUT_MS to be made (TCP and TLS), the whole exchange DEFAULT_TIMEOUT_MS. A kept-alive
 * connection the receiver closed just as it was reused (ECONNRESET on a reused socket: Node's
 * `request.reusedSocket`; also what a Lambda container frozen between invocations finds) is not
 * the receiver failing: the request goes once more, on a new connection, within the same deadline.
 */
export function sendWebhook(request: DeliveryRequest, options: HttpDeliveryOptions): Promise<AttemptOutcome> {
  const elapsed = options.elapsed ?? (() => performance.now());
  const started = elapsed();
  const ms = () => Math.max(0, Math.round(elapsed() - started));
  let checked: ReturnType<typeof checkWebhookUrl>;
  try {
    checked = checkWebhookUrl(request.url, options.policy);
  } catch (err) {
    const kind = err instanceof WebhookUrlError && err.message.startsWith('address') ? 'address' : 'url';
    return Promise.resolve({ ok: false, kind, error: (err as Error).message, ms: ms() });
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const secure = checked.url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    let sent = false;
    let req: http.ClientRequest | undefined;
    /** A non-2xx answer being read: at the budget, it fails with what came of it. */
    let answer: { res: http.IncomingMessage; status: number; text: () => string } | undefined;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(budget);
      resolve(outcome);
    };
    const onResponse = (res: http.IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        finish({ ok: true, status, ms: ms() });
        drain(res, cap);
        return;
      }
      const excerpt = readExcerpt(res, cap);
      answer = { res, status, text: excerpt.text };
      excerpt.done.then((text) => finish(httpFailure(res, status, text, request, ms())));
    };
    const send = (fresh: boolean) => {
      const current = (secure ? https : http).request(
        requestOptionsOf(request, checked, options, fresh),
        onResponse,
      );
      req = current;
      const connectMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      current.on('socket', (socket) =>
        watchConnect(socket, secure, connectMs, () => {
          finish({ ok: false, kind: 'timeout', error: `no connection in ${connectMs / 1000} s`, ms: ms() });
          current.destroy();
        }),
      );
      current.on('finish', () => {
        sent = true;
      });
      current.on('error', (err) => {
        const reset = (err as NodeJS.ErrnoException).code === 'ECONNRESET';
        if (!fresh && !settled && current.reusedSocket && reset) send(true);
        else finish(networkFailure(err, ms()));
      });
      current.end(request.body);
    };
    const timer = setTimeout(() => {
      finish({ ok: false, kind: 'timeout', error: `timeout after ${timeoutMs / 1000} s`, ms: ms() });
      req?.destroy();
    }, timeoutMs);
    const budgetMs = request.budgetMs;
    const budget =
      budgetMs === undefined || budgetMs >= timeoutMs
        ? undefined
        : setTimeout(() => {
            finish(
              answer
                ? httpFailure(answer.res, answer.status, answer.text(), request, ms())
                : handOff(sent, budgetMs, ms()),
            );
            req?.destroy();
          }, budgetMs);
    send(false);
  });
}

/** The budget ran out before an answer: handed off (the queue's attempt may be a duplicate when sent). */
function handOff(sent: boolean, budgetMs: number, ms: number): AttemptHandOff {
  return {
    ok: false,
    kind: 'handoff',
    sent,
    error: sent
      ? `no answer in ${budgetMs / 1000} s, handed off (the receiver may have the request)`
      : `no connection in ${budgetMs / 1000} s, handed off (nothing sent)`,
    ms,
  };
}

/** A non-2xx answer: its status, Retry-After (429, 503) and a clean excerpt. */
function httpFailure(
  res: http.IncomingMessage,
  status: number,
  text: string,
  request: DeliveryRequest,
  ms: number,
): AttemptFailure {
  const retryAfterMs =
    status === 429 || status === 503 ? parseRetryAfterMs(header(res, 'retry-after'), Date.now()) : undefined;
  const excerpt = cleanExcerpt(text, request.secrets ?? []);
  return {
    ok: false,
    kind: 'http',
    status,
    error: `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage.slice(0, 40)}` : ''}`,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(excerpt ? { excerpt } : {}),
    ms,
  };
}

/**
 * Gives a socket still connecting (TCP, then TLS) `timeoutMs` to be ready; a reused one is ready
 * (its TLS handshake done: `authorized`, which a verified certificate sets, and nothing else does).
 */
function watchConnect(socket: Socket, secure: boolean, timeoutMs: number, onTimeout: () => void): void {
  const ready = secure ? (socket as tls.TLSSocket).authorized === true : !socket.connecting;
  if (ready) return;
  const timer = setTimeout(onTimeout, timeoutMs);
  const done = () => clearTimeout(timer);
  socket.once(secure ? 'secureConnect' : 'connect', done);
  socket.once('close', done);
}

function header(res: http.IncomingMessage, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads and discards the rest of a successful answer, up to the cap (then the socket is closed). */
function drain(res: http.IncomingMessage, cap: number): void {
  let read = 0;
  res.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > cap) res.destroy();
  });
  res.on('error', () => undefined);
}

/**
 * The first `cap` bytes of an answer as text (`done`; `text()`: what has come so far); the socket
 * is closed past them.
 */
function readExcerpt(
  res: http.IncomingMessage,
  cap: number,
): { readonly done: Promise<string>; text(): string } {
  const chunks: Buffer[] = [];
  let read = 0;
  const text = () => Buffer.concat(chunks).toString('utf8');
  const done = new Promise<string>((resolve) => {
    const end = () => resolve(text());
    res.on('data', (chunk: Buffer) => {
      const room = cap - read;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      read += chunk.length;
      if (read >= cap) {
        res.destroy();
        end();
      }
    });
    res.on('end', end);
    res.on('error', end);
    res.on('close', end);
  });
  return { done, text };
}

/** At most EXCERPT_CHARS of a body, one line, with credentials and token-like runs replaced. */
export function cleanExcerpt(text: string, secrets: readonly string[]): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const cut = flat.length > EXCERPT_CHARS * 2 ? flat.slice(0, EXCERPT_CHARS * 2) : flat;
  const clean = scrubTokenLike(redact(cut, secrets));
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS - 1)}…` : clean;
}

const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNRESET: 'connection reset',
  ECONNREFUSED: 'connection refused',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNABORTED: 'connection aborted',
};

function networkFailure(err: Error, ms: number): AttemptOutcome {
  if (err instanceof AddressRefusedError) return { ok: false, kind: 'address', error: err.message, ms };
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const tls = /CERT|SSL|TLS|SELF_SIGNED|HOSTNAME/.test(code) || /certificate|TLS|SSL/i.test(err.message);
  const words = NETWORK_WORDS[code] ?? (tls ? `TLS failed (${code || err.message.slice(0, 60)})` : undefined);
  return { ok: false, kind: 'network', error: words ?? `network error (${code || err.name})`, ms };
}
