/**
 * A tiny scripted HTTP server on 127.0.0.1 (ephemeral port) that records every request, for the
 * transport cases the sandbox does not produce: redirects, foreign `next` links, stalls, cut bodies.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GymApiClient, type RequestEvent, TokenProvider } from '../../../lambdas/gym-api';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

export interface LocalServer {
  readonly origin: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export type LocalHandler = (req: IncomingMessage, res: ServerResponse, index: number) => void;

export async function startLocalServer(handler: LocalHandler): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Answers POST /v1/token with a token; everything else goes to `data`. */
export function withToken(data: LocalHandler, token = 'local-token'): LocalHandler {
  return (req, res, index) => {
    if (req.method === 'POST' && req.url === '/v1/token') {
      sendJson(res, { AccessToken: token, ExpiresIn: 3600, TokenType: 'Bearer' });
      return;
    }
    data(req, res, index);
  };
}

/**
 * A client of the local server's /v1 (its own token provider, every request in `events`); `options`
 * override the defaults (fast retries).
 */
export function clientFor(
  upstream: LocalServer,
  options: Partial<ConstructorParameters<typeof GymApiClient>[0]> = {},
): { client: GymApiClient; events: RequestEvent[] } {
  const baseUrl = `${upstream.origin}/v1`;
  const events: RequestEvent[] = [];
  const client = new GymApiClient({
    baseUrl,
    apiKey: 'local-api-key',
    tokenProvider: new TokenProvider({ baseUrl, username: 'u', password: 'p' }),
    onRequest: (e) => events.push(e),
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  return { client, events };
}
