/**
 * The documented item layout (docs/state.md) is what other tools and the operator see in the table:
 * check the raw items the DynamoDB adapter writes.
 */
import { gunzipSync } from 'node:zlib';
import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { newCursor } from '../../../lambdas/state/store';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { seedCursor, seedQuota } from '../../support/state-seeds';

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
    await seedCursor(store, { ...newCursor('c1', 'visits'), watermark: '2025-03-01T00:00:00Z' });
    await seedQuota(store, 'c1', '2025-03', 4);
    await store.openClub('c1', 'poller-1', 60_000, 1_700_000_000_000);
    await store.parts.snapshots.putSnapshots('c1', 'MEMBER', [
      { id: '42', hash: 'h', fields: { Status: 'Current' }, updatedAt: 'u' },
    ]);
    await store.parts.snapshots.putSnapshots('c1', 'PROSPECT', [
      { id: '43', hash: 'h', fields: {}, updatedAt: 'u' },
    ]);
    await store.parts.seen.putSeen('c1', 'visits', ['fp-1'], 1_800_000_000);
    await store.parts.quarantine.putQuarantined(
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
    // The state item, and the per-source layout's lease the first session of a club claims (so a
    // poller of that release still running cannot poll it: docs/state.md).
    expect(clubPartition.Items?.map((i) => i.sk?.S)).toEqual(['LEASE#CLUB', 'STATE']);
  });

  it("packs a call's time-ordered seen entries per UTC hour: pk, `<maxAt>~<hash>`, expiresAt, w, p", async () => {
    // Act: three entries written out of time order, two of them in one hour
    const before = Date.now();
    await store.parts.seen.putSeenAt(
      'c3',
      'paymentHistory',
      [
        { fingerprint: 'fp-late', at: '2026-11-22T10:00:00.001Z', group: 'g', value: 'Approved' },
        { fingerprint: 'fp-early', at: '2026-11-22T09:59:59.999Z' },
        { fingerprint: 'fp-first', at: '2026-11-22T09:00:00.000Z', memo: '42' },
      ],
      1_800_000_000,
    );

    // Assess: one item an hour, keyed by its latest entry, offsets from the hour's start
    const partition = await db.client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'CLUB#c3#SEENT#paymentHistory' } },
      }),
    );
    const sks = partition.Items?.map((i) => i.sk?.S ?? '') ?? [];
    expect(sks.map((sk) => sk.slice(0, 25))).toEqual([
      '2026-11-22T09:59:59.999Z~',
      '2026-11-22T10:00:00.001Z~',
    ]);
    const [nine, ten] = await Promise.all(sks.map((sk) => rawItem('CLUB#c3#SEENT#paymentHistory', sk)));
    expect(nine).toMatchObject({
      expiresAt: 1_800_000_000,
      p: '[[0,"fp-first",null,null,"42"],[3599999,"fp-early"]]',
    });
    expect(ten).toMatchObject({ p: '[[1,"fp-late","g","Approved"]]' });
    expect(Object.keys(ten as object).sort()).toEqual(['expiresAt', 'p', 'pk', 'sk', 'w']);
    expect((ten as { w: number }).w).toBeGreaterThanOrEqual(before);
    expect(await rawItem('CLUB#c3#SEEN#paymentHistory', 'fp-late')).toBeUndefined();
  });

  it('reads entry items of the layout before packs beside packs; the latest write of an entry wins', async () => {
    // Prepare: an entry item as earlier releases wrote it, then the same entry packed with a new value
    const pk = 'CLUB#c4#SEENT#paymentHistory';
    await db.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: pk },
          sk: { S: '2026-11-22T10:00:00.000Z#fp-1' },
          expiresAt: { N: '1800000000' },
          g: { S: 'g' },
          v: { S: 'Pending' },
        },
      }),
    );
    await db.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: pk }, sk: { S: '2026-11-22T10:00:05.000Z#fp-old' }, expiresAt: { N: '1800000000' } },
      }),
    );
    await store.parts.seen.putSeenAt(
      'c4',
      'paymentHistory',
      [{ fingerprint: 'fp-1', at: '2026-11-22T10:00:00.000Z', group: 'g', value: 'Approved' }],
      1_800_000_000,
    );

    // Act
    const entries = await store.parts.seen.seenEntriesSince(
      'c4',
      'paymentHistory',
      '2026-11-22T10:00:00.000Z',
      1_000,
    );

    // Assess
    expect(entries).toEqual([
      { fingerprint: 'fp-1', at: '2026-11-22T10:00:00.000Z', group: 'g', value: 'Approved' },
      { fingerprint: 'fp-old', at: '2026-11-22T10:00:05.000Z' },
    ]);
  });

  it('says which pack it cannot read (a StoreError), rather than skip its entries', async () => {
    // Prepare
    await db.client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: 'CLUB#c5#SEENT#visits' },
          sk: { S: '2026-11-22T10:00:00.000Z~x' },
          expiresAt: { N: '1800000000' },
          p: { S: '[[0,' },
        },
      }),
    );

    // Act / Assess
    await expect(
      store.parts.seen.seenSince('c5', 'visits', '2026-11-22T00:00:00.000Z', 1_000),
    ).rejects.toThrow(/seen pack 2026-11-22T10:00:00.000Z~x: its entries are not JSON/);
  });

  it('works the same when given a DocumentClient', async () => {
    // Prepare
    const viaDoc = new DynamoDbStateStore({ client: DynamoDBDocumentClient.from(db.client), tableName });

    // Act
    await viaDoc.parts.snapshots.putSnapshots('c2', 'MEMBER', [
      { id: '1', hash: 'x', fields: { a: [1, { b: null }] }, updatedAt: 'u' },
    ]);

    // Assess
    const read = await store.parts.snapshots.getSnapshots('c2', 'MEMBER', ['1']);
    expect(read.get('1')?.fields).toEqual({ a: [1, { b: null }] });
  });
});
