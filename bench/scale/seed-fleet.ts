/**
 * A fleet of tens of thousands of clubs on dynalite, seeded fast and as the bridge writes it: the
 * directory entries as `DynamoDbClubRegistry.put` writes them (one per club, in its bucket), and
 * each club's state items cloned from one of 15 template clubs written through the real
 * `DynamoDbStateStore` (one per "last polled n minutes ago" of the synthetic fleet). A clone is the
 * template's items under the club's own partition key: the stored cursors hold no club id
 * (state/club-state.ts), so a clone reads back as the club's own state. Writes go 25 a
 * BatchWriteItem, 16 in flight: a poll session per club (two conditional writes each) would take
 * dynalite many minutes for 50,000 clubs.
 */

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ClubRecord } from '../../lambdas/clubs/club-record';
import { clubDirectoryKey } from '../../lambdas/clubs/dynamodb-club-registry';
import { chunk, mapWithConcurrency } from '../../lambdas/common/concurrency';
import { DynamoDbStateStore } from '../../lambdas/state';
import type { Cursor } from '../../lambdas/state/store';
import { seedCursors } from './synthetic-fleet';

type Item = Record<string, unknown>;

export interface SeededFleet {
  readonly items: number;
  readonly wallMs: number;
}

async function batchWrite(doc: DynamoDBDocumentClient, tableName: string, items: readonly Item[]) {
  await mapWithConcurrency(chunk(items, 25), 16, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; pending.length > 0; round++) {
      if (round > 20) throw new Error(`seeding: ${pending.length} items still unprocessed after 20 rounds`);
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}

/** Replaces the template's club id by the club's in the partition key. */
const cloneFor = (clubId: string, template: Item): Item => ({ ...template, pk: `CLUB#${clubId}` });

/**
 * Seeds the clubs' directory entries and state. `shiftOf(record)` names the club's template (clubs
 * with the same shift have the same cursors, shifted alike).
 */
export async function seedFleet(
  client: DynamoDBClient,
  tableName: string,
  records: readonly ClubRecord[],
  cursors: readonly Cursor[],
  shiftOf: (index: number) => number,
): Promise<SeededFleet> {
  const t0 = performance.now();
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const updatedAt = new Date().toISOString();
  const directory = records.map((r) => ({ ...r, updatedAt, ...clubDirectoryKey(r.clubId) }));
  await batchWrite(doc, tableName, directory);
  // One template club per shift, written through the real store.
  const templates = new Map<number, string>();
  records.forEach((r, i) => {
    if (!templates.has(shiftOf(i))) templates.set(shiftOf(i), r.clubId);
  });
  const templateIds = new Set(templates.values());
  const store = new DynamoDbStateStore({ client, tableName });
  await seedCursors(
    store,
    cursors.filter((c) => templateIds.has(c.clubId)),
    8,
  );
  const itemsOf = new Map<number, Item[]>();
  for (const [shift, clubId] of templates) {
    const out = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `CLUB#${clubId}` },
      }),
    );
    itemsOf.set(shift, out.Items ?? []);
  }
  const clones = records.flatMap((r, i) =>
    templateIds.has(r.clubId) ? [] : (itemsOf.get(shiftOf(i)) ?? []).map((item) => cloneFor(r.clubId, item)),
  );
  await batchWrite(doc, tableName, clones);
  return { items: directory.length + clones.length, wallMs: performance.now() - t0 };
}
