/**
 * The child of the big club's lifecycle step (bench/lifecycle-big-club.ts): ONE lifecycle
 * evaluation of the seeded club, as the poll function runs it (its lease taken, the evaluation,
 * the closing write), against the state table at BIG_CLUB_ENDPOINT. Bundled with esbuild and run
 * under the poll function's heap flags; the parent samples its RSS. Writes its figures as JSON to
 * BIG_CLUB_OUT: the evaluation's report and time, and every item the table was asked to write
 * (PutItem, BatchWriteItem puts and deletes, UpdateItem) with its bytes.
 */
import { writeFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ClubConfig } from '../lambdas/clubs/club-config';
import { awsClientConfig } from '../lambdas/common/aws-clients';
import { logger } from '../lambdas/common/logger';
import { MINUTE_MS } from '../lambdas/common/time-units';
import { runClubLifecycle } from '../lambdas/lifecycle/club-lifecycle';
import { DynamoDbStateStore } from '../lambdas/state';
import { CountingSink } from './counting-sink';

interface Written {
  items: number;
  bytes: number;
  byOperation: Record<string, { calls: number; items: number; bytes: number }>;
}

/**
 * An item's size as DynamoDB counts it, near enough: attribute names and values, binary by its
 * length (a marshalled item: `{ name: { S | N | B | M | L | BOOL | NULL: value } }`).
 */
function itemSize(value: unknown): number {
  if (value instanceof Uint8Array) return value.length;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + itemSize(v), 3);
  if (value && typeof value === 'object')
    return Object.entries(value).reduce(
      (n, [k, v]) =>
        n + (['S', 'N', 'B', 'M', 'L', 'BOOL', 'NULL'].includes(k) ? 0 : Buffer.byteLength(k)) + itemSize(v),
      0,
    );
  return 1;
}

/** Counts what each write request asks the table to write, and each item's size. */
function countWrites(client: DynamoDBClient, into: Written): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = context.commandName ?? '?';
      const input = args.input as Record<string, unknown>;
      const items: unknown[] = [];
      if (op === 'PutItemCommand') items.push(input.Item);
      if (op === 'UpdateItemCommand') items.push(input.Key);
      if (op === 'BatchWriteItemCommand')
        for (const requests of Object.values(
          input.RequestItems as Record<
            string,
            { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]
          >,
        ))
          for (const r of requests) items.push(r.PutRequest?.Item ?? r.DeleteRequest?.Key);
      if (items.length > 0) {
        const bytes = items.reduce<number>((n, item) => n + itemSize(item), 0);
        const entry = into.byOperation[op] ?? { calls: 0, items: 0, bytes: 0 };
        into.byOperation[op] = entry;
        entry.calls++;
        entry.items += items.length;
        entry.bytes += bytes;
        into.items += items.length;
        into.bytes += bytes;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchWriteCounter' },
  );
}

async function main(): Promise<void> {
  logger.setLogLevel('ERROR');
  const club = JSON.parse(process.env.BIG_CLUB_CONFIG ?? '{}') as ClubConfig;
  const nowMs = Number(process.env.BIG_CLUB_NOW_MS);
  const client = new DynamoDBClient({
    ...awsClientConfig(),
    endpoint: process.env.BIG_CLUB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const written: Written = { items: 0, bytes: 0, byOperation: {} };
  countWrites(client, written);
  const store = new DynamoDbStateStore({ client, tableName: process.env.BIG_CLUB_TABLE ?? 'big-club' });
  const sink = new CountingSink();
  const started = performance.now();
  const session = await store.openClub(club.clubId, 'bench', 10 * MINUTE_MS, nowMs);
  if (!session) throw new Error('the club lease is held');
  const cursors = await session.listCursors();
  const all = new Set(cursors.map((c) => c.source));
  const poll = { polled: all, completed: all };
  const api = { client: { pages: async function* () {} }, deadlineMs: Date.now() + 600_000 };
  const report = await runClubLifecycle({ store: session, sink, session, nowMs, poll, api }, club, cursors);
  await session.close();
  const seconds = (performance.now() - started) / 1000;
  writeFileSync(
    process.env.BIG_CLUB_OUT ?? 'big-club.json',
    JSON.stringify({ report, seconds, sink: sink.counts, written }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
