/**
 * Writing the sandbox's HTTP answers: a body with its length and content type, errors as
 * {"Message": "..."} with the API's texts, and the bodies of the random 5xx a real gateway sends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { PageCompression } from './options';
import type { PageBytes } from './sandbox-types';

export const MESSAGES = {
  invalidCredentials: 'Invalid credentials',
  invalidToken: 'Invalid or expired token',
  invalidApiKey: 'Invalid API key',
  quotaExceeded: 'Limit Exceeded: monthly request quota of the API plan is spent',
  throttled: 'Too Many Requests',
  notFound: 'Not Found',
  methodNotAllowed: 'Method Not Allowed',
} as const;

export function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType = 'application/json; charset=utf-8',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Bodies shorter than this go out as they are: gzip would save a few bytes for its CPU. */
const COMPRESS_FROM_BYTES = 1024;

/** True when the request's Accept-Encoding offers gzip (not refused with q=0). */
export function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding?.trim() !== 'gzip' && coding?.trim() !== 'x-gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A 200 JSON page: gzipped (level 1, as HTTP front ends compress dynamic answers) when the sandbox
 * compresses, the client offers gzip and the body is worth it; as it is otherwise.
 */
export function sendPage(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  compression: PageCompression,
  tally: { -readonly [K in keyof PageBytes]: PageBytes[K] },
): void {
  const raw = Buffer.from(body, 'utf8');
  const gzip = compression === 'gzip' && raw.length >= COMPRESS_FROM_BYTES && acceptsGzip(req);
  const sent = gzip ? gzipSync(raw, { level: 1 }) : raw;
  tally.pages++;
  tally.json += raw.length;
  tally.sent += sent.length;
  const headers: Record<string, string> = gzip ? { 'content-encoding': 'gzip' } : {};
  if (compression === 'gzip') headers.vary = 'accept-encoding';
  send(res, 200, sent, undefined, headers);
}

export function sendMessage(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  send(res, status, JSON.stringify({ Message: message }), undefined, headers);
}

/** The 5xx answers a fault draws from: the API's own and its gateway's, in their content types. */
export const SERVER_ERRORS: readonly {
  status: number;
  contentType: string;
  body: string;
}[] = [
  {
    status: 500,
    contentType: 'application/json; charset=utf-8',
    body: '{"Message":"An error has occurred."}',
  },
  {
    status: 502,
    contentType: 'text/html',
    body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>',
  },
  { status: 503, contentType: 'text/plain', body: 'Service Unavailable' },
  { status: 503, contentType: 'application/json; charset=utf-8', body: '{"Message":"Service Unavailable"}' },
];
