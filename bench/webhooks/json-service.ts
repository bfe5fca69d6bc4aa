/**
 * The webhook bench's AWS JSON-protocol endpoints (SQS, Secrets Manager): a node:http server that
 * answers `POST` with `X-Amz-Target: <prefix>.<Operation>` as the real SDK clients call them, like
 * local-aws/aws-json-server.ts, but with operations that may take their time (SQS long
 * polling) and a stated latency added to every answer (what a call to the AWS service costs in
 * time, which a local server does not). Each request is counted per operation, with its bytes.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class JsonServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'JsonServiceError';
  }
}

export type JsonOperation = (input: Record<string, unknown>) => unknown | Promise<unknown>;

export interface JsonServiceOptions {
  readonly targetPrefix: string;
  readonly contentType: string;
  readonly operations: Readonly<Record<string, JsonOperation>>;
  /** Added before each answer, ms (a stated latency of the real service). @default 0 */
  readonly latencyMs?: () => number;
  /** Turns an error type into the `__type` sent. */
  readonly errorType?: (type: string) => string;
}

/** Requests and request bytes per operation. */
export type OperationCounts = Record<string, { requests: number; bytes: number }>;

export interface JsonService {
  readonly endpoint: string;
  readonly counts: OperationCounts;
  reset(): void;
  close(): Promise<void>;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startJsonService(options: JsonServiceOptions): Promise<JsonService> {
  let counts: OperationCounts = {};
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': options.contentType,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
    });
    res.end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    try {
      const body = await readBody(req);
      const target = String(req.headers['x-amz-target'] ?? '');
      const name = target.slice(options.targetPrefix.length + 1);
      const operation = options.operations[name];
      if (!operation) throw new JsonServiceError('UnknownOperationException', `unknown operation ${target}`);
      const entry = counts[name] ?? { requests: 0, bytes: 0 };
      counts[name] = entry;
      entry.requests++;
      entry.bytes += Buffer.byteLength(body);
      const out = await operation(body ? (JSON.parse(body) as Record<string, unknown>) : {});
      const left = (options.latencyMs?.() ?? 0) - (performance.now() - started);
      if (left > 0) await wait(left);
      send(res, 200, out);
    } catch (err) {
      const e =
        err instanceof JsonServiceError ? err : new JsonServiceError('InternalFailure', String(err), 500);
      const type = options.errorType ? options.errorType(e.type) : e.type;
      if (!res.headersSent) send(res, e.status, { __type: type, message: e.message });
    }
  };
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get counts() {
      return counts;
    },
    reset: () => {
      counts = {};
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
