/**
 * The documented item layout (docs/state.md) is what other tools and the operator see in the table:
 * check the raw items the DynamoDB adapter writes.
 */
import { gunzipSync } from 'node:zlib';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { newCursor } from '../../../lambdas/state/store';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

describe('DynamoDbStateStore item layout', () => {
  let db: Dynalite;
  let tableName: string;
  let store: DynamoDbStateStore;

  beforeAll(async () => {
    db = await startDynalite();
    tableName = await createTestTable(db.client);
    store = new DynamoDbStateStore({ client: db.client, tableName });
  });

  afterAll(async () => {
    await db.close();
  });

  async function rawItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const doc = DynamoDBDocumentClient.from(db.client);
    const out = await doc.send(
      new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }),
    );
    return out.Item;
  }

  it('writes every kind of item under its documented key', async () => {
    // Act
    await store.putCursor({ ...newCursor('c1', 'visits'), watermark: '2025-03-01T00:00:00Z' });
    await store.addQuotaUsage('c1', '2025-03', 4);
    await store.openClub('c1', 'poller-1', 60_000, 1_700_000_000_000);
    await store.putSnapshots('c1', 'MEMBER', [
      { id: '42', hash: 'h', fields: { Status: 'Current' }, updatedAt: 'u' },
    ]);
    await store.putSnapshots('c1', 'PROSPECT', [{ id: '43', hash: 'h', fields: {}, updatedAt: 'u' }]);
    await store.putSeen('c1', 'visits', ['fp-1'], 1_800_000_000);
    await store.putQuarantined(
      'c1',
      'visits',
      [{ key: 'v-9', reason: 'bad', raw: { a: 1 }, at: '2025-03-01T00:00:00.000Z' }],
      1_800_000_000,
    );

    // Assess
    const state = await rawItem('CLUB#c1', 'STATE');
    expect(state).toMatchObject({ v: 2, lo: 'poller-1', le: 1_700_000_060_000, qm: '2025-03', qn: 4 });
    const cursors = JSON.parse(gunzipSync(state!.c as Uint8Array).toString('utf8'));
    expect(cursors).toEqual([
      expect.objectContaining({ source: 'visits', version: 1, watermark: '2025-03-01T00:00:00Z' }),
    ]);
    expect(cursors[0]).not.toHaveProperty('clubId');
    expect(await rawItem('CLUB#c1#MEMBER', '42')).toMatchObject({ hash: 'h', fields: { Status: 'Current' } });
    expect(await rawItem('CLUB#c1#PROSPECT', '43')).toMatchObject({ hash: 'h' });
    expect(await rawItem('CLUB#c1#SEEN#visits', 'fp-1')).toEqual({
      pk: 'CLUB#c1#SEEN#visits',
      sk: 'fp-1',
      expiresAt: 1_800_000_000,
    });
    expect(await rawItem('CLUB#c1#QUARANTINE#visits', '2025-03-01T00:00:00.000Z#v-9')).toMatchObject({
      key: 'v-9',
      reason: 'bad',
      rawJson: '{"a":1}',
      expiresAt: 1_800_000_000,
    });
    const clubPartition = await db.client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'CLUB#c1' } },
      }),
    );
    expect(clubPartition.Items?.map((i) => i.sk?.S)).toEqual(['STATE']);
  });

  it('writes a time-ordered seen entry as pk, `<at>#<fingerprint>` and expiresAt only, sorted by time', async () => {
    // Act: written out of time order
    await store.putSeenAt(
      'c3',
      'paymentHistory',
      [
        { fingerprint: 'fp-late', at: '2026-11-22T10:00:00.001Z' },
        { fingerprint: 'fp-early', at: '2026-11-22T09:59:59.999Z' },
      ],
      1_800_000_000,
    );

    // Assess
    expect(await rawItem('CLUB#c3#SEENT#paymentHistory', '2026-11-22T10:00:00.001Z#fp-late')).toEqual({
      pk: 'CLUB#c3#SEENT#paymentHistory',
      sk: '2026-11-22T10:00:00.001Z#fp-late',
      expiresAt: 1_800_000_000,
    });
    const partition = await db.client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'CLUB#c3#SEENT#paymentHistory' } },
      }),
    );
    expect(partition.Items?.map((i) => i.sk?.S)).toEqual([
      '2026-11-22T09:59:59.999Z#fp-early',
      '2026-11-22T10:00:00.001Z#fp-late',
    ]);
    expect(await rawItem('CLUB#c3#SEEN#paymentHistory', 'fp-late')).toBeUndefined();
  });

  it('works the same when given a DocumentClient', async () => {
    // Prepare
    const viaDoc = new DynamoDbStateStore({ client: DynamoDBDocumentClient.from(db.client), tableName });

    // Act
    await viaDoc.putSnapshots('c2', 'MEMBER', [
      { id: '1', hash: 'x', fields: { a: [1, { b: null }] }, updatedAt: 'u' },
    ]);

    // Assess
    const read = await store.getSnapshots('c2', 'MEMBER', ['1']);
    expect(read.get('1')?.fields).toEqual({ a: [1, { b: null }] });
  });
});
