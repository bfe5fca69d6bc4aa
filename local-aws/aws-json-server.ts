/**
 * The one AWS JSON-protocol HTTP server of the local AWS endpoints (EventBridge here, SQS and
 * Secrets Manager in test/support/): a node:http server that answers
 * `POST` with `X-Amz-Target: <prefix>.<Operation>` and a JSON body, the way the real AWS SDK clients
 * call AWS JSON 1.0 and 1.1 services, so a client reaches it through its `endpoint` setting (or
 * AWS_ENDPOINT_URL_<SERVICE>). Signatures are not checked; any credentials do.
 *
 * A service is its operations (input object in, output object out) plus, optionally, a hook run
 * before each operation (fault injection). An operation fails by throwing an AwsJsonError, sent as
 * `{"__type", "message"}` with its HTTP status and headers; anything else thrown is a 500.
 *
 * Local plumbing for the CLI, tests and bench: no Lambda imports this folder (.dependency-cruiser.cjs).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An error answer of a local AWS endpoint: its `__type`, message, HTTP status and extra headers. */
export class AwsJsonError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
    /** Extra response headers (e.g. SQS's x-amzn-query-error). */
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AwsJsonError';
  }
}

export type AwsJsonOperation = (input: Record<string, unknown>) => unknown;

export interface AwsJsonServerOptions {
  /** `AmazonSQS`, `secretsmanager`, `AWSEvents`, ... */
  readonly targetPrefix: string;
  /** `application/x-amz-json-1.0` or `-1.1`. */
  readonly contentType: string;
  readonly operations: Readonly<Record<string, AwsJsonOperation>>;
  /** Called before each operation (fault injection); may throw an AwsJsonError. */
  readonly beforeOperation?: (operation: string) => void;
  /** Turns an error type into the `__type` sent (SQS sends a namespaced type). */
  readonly errorType?: (type: string) => string;
  /** Also send the error type in `x-amzn-errortype` (as EventBridge does). @default false */
  readonly errorTypeHeader?: boolean;
  /** `__type` of the 500 answered when an operation throws something else. @default 'InternalFailure' */
  readonly internalErrorType?: string;
  /** Larger bodies are answered 413. @default 1 MiB */
  readonly maxBodyBytes?: number;
  /** `__type` of that 413. @default 'RequestTooLarge' */
  readonly tooLargeErrorType?: string;
  /** @default 0 (an ephemeral port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
}

export interface AwsJsonServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly endpoint: string;
  /** Requests per operation, whatever their outcome. */
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export async function startAwsJsonServer(options: AwsJsonServerOptions): Promise<AwsJsonServer> {
  const calls = new Map<string, number>();
  const handle = requestHandler(options, calls);
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    endpoint: `http://${host}:${address.port}`,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Throws an AwsJsonError (InvalidParameterException) unless `input[field]` is a non-empty string. */
export function requireString(input: Record<string, unknown>, field: string): string {
  const value = input[field];
  if (typeof value !== 'string' || value === '') {
    throw new AwsJsonError('InvalidParameterException', `${field} is required`);
  }
  return value;
}

function requestHandler(
  options: AwsJsonServerOptions,
  calls: Map<string, number>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': options.contentType,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
      ...headers,
    });
    res.end(text);
  };
  const sendError = (res: ServerResponse, err: AwsJsonError) => {
    const type = options.errorType ? options.errorType(err.type) : err.type;
    const typeHeader: Record<string, string> = options.errorTypeHeader ? { 'x-amzn-errortype': type } : {};
    send(res, err.status, { __type: type, message: err.message }, { ...typeHeader, ...err.headers });
  };

  return async (req, res) => {
    try {
      if (req.method !== 'POST') throw new AwsJsonError('UnknownOperationException', 'POST required', 404);
      const body = await readBody(req, options);
      const target = String(req.headers['x-amz-target'] ?? '');
      const name = target.startsWith(`${options.targetPrefix}.`)
        ? target.slice(options.targetPrefix.length + 1)
        : '';
      const operation = name ? options.operations[name] : undefined;
      if (!operation) throw new AwsJsonError('UnknownOperationException', `Unknown operation ${target}`);
      calls.set(name, (calls.get(name) ?? 0) + 1);
      options.beforeOperation?.(name);
      send(res, 200, operation(parseInput(body)));
    } catch (err) {
      if (err instanceof AwsJsonError) {
        sendError(res, err);
        return;
      }
      if (!res.headersSent) {
        send(res, 500, { __type: options.internalErrorType ?? 'InternalFailure', message: 'internal error' });
      }
    }
  };
}

function parseInput(body: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = body.length === 0 ? {} : JSON.parse(body);
  } catch (err) {
    throw new AwsJsonError(
      'SerializationException',
      'Request body is not valid JSON',
      400,
      {},
      { cause: err },
    );
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new AwsJsonError('SerializationException', 'Request body is not a JSON object');
  }
  return input as Record<string, unknown>;
}

function readBody(req: IncomingMessage, options: AwsJsonServerOptions): Promise<string> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new AwsJsonError(options.tooLargeErrorType ?? 'RequestTooLarge', 'Request is too large', 413));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
