/**
 * The read and write units a DynamoDB-compatible server says each call consumed: a middleware on
 * the real SDK client asks every data call for `ReturnConsumedCapacity: 'TOTAL'` and adds up what
 * comes back (dynalite computes it as DynamoDB documents: item sizes rounded up to 4 KB a read,
 * 1 KB a write; a Query's items summed before rounding; an update billed on the larger of the item
 * before and after). What the bench's unit model (store-units.ts) is checked against (issue 20).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

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
