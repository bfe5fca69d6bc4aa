/**
 * The bench's consumed-capacity tally (bench/units-check.ts) against dynalite over a socket
 * with the real SDK: what the server says each call consumed, by side and by command.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackConsumedCapacity } from '../../../bench/units-check';
import { createStateTable } from '../../../lambdas/state/table';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../../local-aws/embedded-dynamodb';

describe('the consumed-capacity tally', () => {
  let db: EmbeddedDynamoDb;
  beforeAll(async () => {
    db = await startEmbeddedDynamoDb();
    await createStateTable(db.client, 'units');
  });
  afterAll(() => db.close());

  it('adds up the units the server reports: a write per KB, a read per 4 KB (half when eventually consistent)', async () => {
    // Prepare
    const consumed = trackConsumedCapacity(db.client);
    const doc = DynamoDBDocumentClient.from(db.client);
    const pad = 'x'.repeat(2_500); // a little over 2.5 KB an item: 3 write units, 1 read unit

    // Act
    for (const sk of ['a', 'b', 'c'])
      await doc.send(new PutCommand({ TableName: 'units', Item: { pk: 'P', sk, pad } }));
    await doc.send(new GetCommand({ TableName: 'units', Key: { pk: 'P', sk: 'a' }, ConsistentRead: true }));
    await doc.send(new GetCommand({ TableName: 'units', Key: { pk: 'P', sk: 'b' } }));
    await doc.send(
      new QueryCommand({
        TableName: 'units',
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': 'P' },
        ConsistentRead: true,
      }),
    );

    // Assess: a Query sums its items (7.5 KB: 2 units), a Get rounds each item up
    expect(consumed).toEqual({
      readUnits: 1 + 0.5 + 2,
      writeUnits: 9,
      byCommand: {
        // The DocumentClient's commands run as the client's own.
        PutItemCommand: { calls: 3, units: 9 },
        GetItemCommand: { calls: 2, units: 1.5 },
        QueryCommand: { calls: 1, units: 2 },
      },
      unreported: 0,
    });
  });
});
