/**
 * Writing the sandbox's HTTP answers: a body with its length and content type, errors as
 * {"Message": "..."} with the API's texts, and the bodies of the random 5xx a real gateway sends.
 */
import type { ServerResponse } from 'node:http';

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
  body: string,
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
