/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 whose answer per path a test
 * scripts (status, Retry-After, a reset, an answer after a delay on the test's timers, no answer
 * at all), and which checks every request it gets with the official `standardwebhooks` package,
 * under the test's clock (the one `Date.now` is set to). `stop()` closes it (connections are then
 * refused, as a host that is down refuses them) and `restart()` listens again on the same port.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  readonly path: string;
  readonly webhookId: string;
  readonly timestamp: number;
  readonly signature: string;
  readonly body: string;
  readonly payload: { type: string; timestamp: string; data: Record<string, unknown> };
  readonly headers: IncomingMessage['headers'];
  /** The answer given (for an answer after a delay: the one it will give). */
  readonly answered: number | 'reset' | 'hang';
}

export type Answer =
  | {
      readonly status: number;
      readonly retryAfter?: string;
      readonly body?: string;
      /** Answer after this long (setTimeout: a test with fake timers moves it on). */
      readonly afterMs?: number;
    }
  | 'reset'
  /** Read the request, never answer (the sender's deadline ends it). */
  | 'hang';

export interface Receiver {
  readonly url: (path: string) => string;
  readonly received: Received[];
  /** Requests answered 2xx, by path. */
  delivered(path: string): Received[];
  /** How a path answers now (default 204). */
  script(path: string, answer: (request: Received) => Answer): void;
  /** Signatures that did not verify (must stay empty). */
  readonly unverified: string[];
  /** Stops listening and drops every connection: a connection is refused until `restart`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secrets: Map<string, string>): Promise<Receiver> {
  const received: Received[] = [];
  const unverified: string[] = [];
  const scripts = new Map<string, (r: Received) => Answer>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const secret = secrets.get(path);
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      try {
        if (!secret) throw new Error(`no secret for ${path}`);
        new Webhook(secret).verify(body, headers);
      } catch (err) {
        unverified.push(`${path}: ${(err as Error).message}`);
      }
      const base = {
        path,
        webhookId: headers['webhook-id'],
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'],
        body,
        payload: JSON.parse(body) as Received['payload'],
        headers: req.headers,
      };
      const answer: Answer = (scripts.get(path) ?? (() => ({ status: 204 })))({ ...base, answered: 0 });
      received.push({ ...base, answered: typeof answer === 'string' ? answer : answer.status });
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if (answer === 'hang') return;
      const respond = () => {
        res.writeHead(answer.status, answer.retryAfter ? { 'retry-after': answer.retryAfter } : {});
        res.end(answer.body ?? '');
      };
      if (answer.afterMs === undefined) respond();
      else setTimeout(respond, answer.afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    delivered: (path) =>
      received.filter((r) => r.path === path && typeof r.answered === 'number' && r.answered < 300),
    script: (path, answer) => scripts.set(path, answer),
    unverified,
    stop,
    restart: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
