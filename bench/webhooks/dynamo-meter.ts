/**
 * A metering proxy in front of dynalite for the webhook bench: every DynamoDB request of the code
 * under test passes through it, is counted per operation, and is asked for its consumed capacity
 * (`ReturnConsumedCapacity: TOTAL` added to data calls; dynalite computes units as DynamoDB
 * documents them: reads by 4 KB, writes by 1 KB, eventually consistent reads at half). The answer
 * goes back byte for byte (the SDK checks its CRC32), so the code sees what it would have seen.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

const DATA_CALLS = new Set([
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
]);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

export type DynamoCounts = Record<string, { requests: number; readUnits: number; writeUnits: number }>;

export interface DynamoMeter {
  readonly endpoint: string;
  counts(): DynamoCounts;
  reset(): void;
  close(): Promise<void>;
}

type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
const unitsOf = (c: Capacity) =>
  (Array.isArray(c) ? c : c ? [c] : []).reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);

export async function startDynamoMeter(target: string): Promise<DynamoMeter> {
  const upstream = new URL(target);
  let counts: DynamoCounts = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const op =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      let body = Buffer.concat(chunks);
      if (DATA_CALLS.has(op)) {
        const input = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        input.ReturnConsumedCapacity = 'TOTAL';
        body = Buffer.from(JSON.stringify(input));
      }
      const headers = { ...req.headers, 'content-length': String(body.length), host: upstream.host };
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(parts);
            const c = counts[op] ?? { requests: 0, readUnits: 0, writeUnits: 0 };
            counts[op] = c;
            c.requests++;
            if (DATA_CALLS.has(op) && answer.statusCode === 200) {
              const units = unitsOf(
                (JSON.parse(text.toString('utf8')) as { ConsumedCapacity?: Capacity }).ConsumedCapacity,
              );
              if (WRITES.has(op)) c.writeUnits += units;
              else c.readUnits += units;
            }
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            res.end(text);
          });
        },
      );
      out.on('error', () => {
        res.writeHead(500);
        res.end();
      });
      out.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => counts,
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
