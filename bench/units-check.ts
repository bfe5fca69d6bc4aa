/**
 * The bench's DynamoDB unit model (store-units.ts: units computed from item sizes) checked against
 * what a DynamoDB-compatible server reports (issue 20): the typical club polled into the real
 * DynamoDB adapter on dynalite, every call asked for its consumed capacity, the model's totals over
 * the same calls set beside the server's. The report states the error of each side.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HOUR_MS } from '../lambdas/common/time-units';
import { DynamoDbStateStore } from '../lambdas/state';
import { createStateTable } from '../lambdas/state/table';
import { startEmbeddedDynamoDb } from '../local-aws/embedded-dynamodb';
import { simulateClub } from './club-simulation';
import { addStoreCounts, emptyStoreCounts } from './counting-store';
import type { ClubSimulationOptions } from './typical-club-rig';

export interface UnitsCheck {
  readonly simulatedHours: number;
  readonly model: {
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly byMethod: Record<string, { calls: number; readUnits: number; writeUnits: number }>;
  };
  readonly server: {
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly byCommand: Record<string, { calls: number; units: number }>;
    readonly unreported: number;
  };
  /** (model - server) / server, per side and over both sides priced (a write unit is 5 reads). */
  readonly error: { readonly read: number; readonly write: number; readonly priced: number };
}

const TABLE = 'bench-units-check';

/** Relative error of the model against the server (0 when both are 0). */
export function relativeError(model: number, server: number): number {
  if (server === 0) return model === 0 ? 0 : Number.POSITIVE_INFINITY;
  return (model - server) / server;
}

/** Simulates the typical club into DynamoDB on dynalite and compares the model with the server. */
export async function checkUnitModel(
  options: Omit<ClubSimulationOptions, 'stateStore'>,
): Promise<UnitsCheck> {
  const db = await startEmbeddedDynamoDb();
  try {
    await createStateTable(db.client, TABLE);
    const consumed = trackConsumedCapacity(db.client);
    const store = new DynamoDbStateStore({ client: db.client, tableName: TABLE });
    const sim = await simulateClub({ ...options, stateStore: store });
    await sim.host.close();
    const counts = emptyStoreCounts();
    for (const part of [sim.baseline.store, sim.pollStore, sim.dispatchStore]) addStoreCounts(counts, part);
    const byMethod = Object.fromEntries(
      Object.entries(counts.byMethod).map(([m, u]) => [
        m,
        { calls: counts.calls[m] ?? 0, readUnits: u.readUnits, writeUnits: u.writeUnits },
      ]),
    );
    const model = { readUnits: counts.readUnits, writeUnits: counts.writeUnits, byMethod };
    const server = { ...consumed, byCommand: { ...consumed.byCommand } };
    const priced = (u: { readUnits: number; writeUnits: number }) => u.readUnits + 5 * u.writeUnits;
    return {
      simulatedHours: options.spanMs / HOUR_MS,
      model,
      server,
      error: {
        read: relativeError(model.readUnits, server.readUnits),
        write: relativeError(model.writeUnits, server.writeUnits),
        priced: relativeError(priced(model), priced(server)),
      },
    };
  } finally {
    await db.close();
  }
}

/** The bar the model must meet against the server to stand for measured units (issue 20). */
export const CHECKED_ERROR_BOUND = 0.02;

/** What `costPerClubMonthUsd` says of its units: model-checked within the bound, else the model alone. */
export function unitsSource(check: UnitsCheck | undefined): {
  unitsSource: 'model-checked' | 'model';
  unitsCheckedError?: number;
} {
  if (!check) return { unitsSource: 'model' };
  const error = Math.max(Math.abs(check.error.read), Math.abs(check.error.write));
  return { unitsSource: error < CHECKED_ERROR_BOUND ? 'model-checked' : 'model', unitsCheckedError: error };
}

/**
 * The read and write units a DynamoDB-compatible server says each call consumed: a middleware on
 * the real SDK client asks every data call for `ReturnConsumedCapacity: 'TOTAL'` and adds up what
 * comes back (dynalite computes it as DynamoDB documents: item sizes rounded up to 4 KB a read,
 * 1 KB a write; a Query's items summed before rounding; an update billed on the larger of the item
 * before and after). What the bench's unit model (store-units.ts) is checked against (issue 20).
 */
// The client's commands (the DocumentClient's run as these, on the client's middleware stack).
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

export interface ConsumedUnits {
  readUnits: number;
  writeUnits: number;
  /** Units by command name (e.g. QueryCommand). */
  byCommand: Record<string, { calls: number; units: number }>;
  /** Calls that returned no ConsumedCapacity (a server that does not report it). */
  unreported: number;
}

type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;

const unitsOf = (capacity: Capacity): number | undefined => {
  if (capacity === undefined) return undefined;
  const list = Array.isArray(capacity) ? capacity : [capacity];
  return list.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
};

/** Adds the middleware to `client` and returns the running totals it keeps. */
export function trackConsumedCapacity(client: DynamoDBClient): ConsumedUnits {
  const totals: ConsumedUnits = { readUnits: 0, writeUnits: 0, byCommand: {}, unreported: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '';
      const counted = READS.has(command) || WRITES.has(command);
      if (counted) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      if (!counted) return result;
      const units = unitsOf((result.output as { ConsumedCapacity?: Capacity }).ConsumedCapacity);
      if (units === undefined) {
        totals.unreported++;
        return result;
      }
      if (READS.has(command)) totals.readUnits += units;
      else totals.writeUnits += units;
      const entry = totals.byCommand[command] ?? { calls: 0, units: 0 };
      totals.byCommand[command] = entry;
      entry.calls++;
      entry.units += units;
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return totals;
}
