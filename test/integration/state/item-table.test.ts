/**
 * The item stores' primitives (lambdas/state/item-table.ts) behave the same on both adapters: the
 * memory table answers as DynamoDB (here dynalite) does, so the one implementation of each item
 * store on top of it behaves the same on both.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbItemTable } from '../../../lambdas/state/dynamodb/dynamodb-item-table';
import { StateTableClient } from '../../../lambdas/state/dynamodb/state-table-client';
import type { ItemTable } from '../../../lambdas/state/item-table';
import { MemoryItemTable } from '../../../lambdas/state/memory/memory-item-table';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

let db: Dynalite;

beforeAll(async () => {
  db = await startDynalite();
});

afterAll(async () => {
  await db.close();
});

async function dynamoTable(): Promise<ItemTable> {
  const tableName = await createTestTable(db.client);
  const doc = DynamoDBDocumentClient.from(db.client, { marshallOptions: { removeUndefinedValues: true } });
  const client = new StateTableClient({
    doc,
    tableName,
    sleep: async () => {},
    maxStalledRounds: 3,
    baseDelayMs: 1,
    maxDelayMs: 1,
    maxConcurrency: 4,
  });
  return new DynamoDbItemTable(client);
}

const adapters: [string, () => Promise<ItemTable>][] = [
  ['memory', async () => new MemoryItemTable()],
  ['DynamoDB (dynalite)', dynamoTable],
];

describe.each(adapters)('ItemTable on %s', (_name, make) => {
  const consistent = { consistent: true };

  it('orders sort keys by UTF-8 bytes, bounds inclusive, forwards and in reverse', async () => {
    // Prepare: U+FF5E sorts before an astral character in UTF-8, after it in UTF-16
    const table = await make();
    const sks = ['a', 'b#1', 'b#2', 'c', '\uff5e', '\u{1f600}'];
    await table.batchWrite(sks.map((sk, i) => ({ pk: 'P', sk, i })));
    await table.batchWrite([{ pk: 'Q', sk: 'b#1' }]);
    // Act
    const all = await table.query({ pk: 'P' }, consistent);
    const between = await table.query({ pk: 'P', from: 'b', to: 'c' }, consistent);
    const from = await table.query({ pk: 'P', from: 'c' }, consistent);
    const newest = await table.query({ pk: 'P' }, { ...consistent, reverse: true, limit: 2 });
    // Assess
    expect(all.map((item) => item.sk)).toEqual(sks);
    expect(between.map((item) => item.sk)).toEqual(['b#1', 'b#2', 'c']);
    expect(from.map((item) => item.sk)).toEqual(['c', '\uff5e', '\u{1f600}']);
    expect(newest.map((item) => item.sk)).toEqual(['\u{1f600}', '\uff5e']);
  });

  it('keeps what `keep` keeps up to the limit, and projects only the named attributes', async () => {
    // Prepare
    const table = await make();
    await table.batchWrite(
      Array.from({ length: 30 }, (_, i) => ({ pk: 'P', sk: `k${String(i).padStart(2, '0')}`, n: i, x: 'y' })),
    );
    // Act
    const odd = await table.query(
      { pk: 'P' },
      { ...consistent, limit: 4, keep: (item) => (item.n as number) % 2 === 1, projection: ['sk', 'n'] },
    );
    // Assess
    expect(odd).toEqual([
      { sk: 'k01', n: 1 },
      { sk: 'k03', n: 3 },
      { sk: 'k05', n: 5 },
      { sk: 'k07', n: 7 },
    ]);
  });

  it('gets, batch-gets past 100 keys, deletes, and gives bytes back as bytes', async () => {
    // Prepare
    const table = await make();
    const items = Array.from({ length: 130 }, (_, i) => ({ pk: 'P', sk: `s${i}`, d: Uint8Array.from([i]) }));
    await table.batchWrite(items);
    // Act
    await table.batchDelete([
      { pk: 'P', sk: 's0' },
      { pk: 'P', sk: 'absent' },
    ]);
    const found = await table.batchGet(
      items.map(({ pk, sk }) => ({ pk, sk })),
      { consistent: false, projection: ['sk', 'd'] },
    );
    const one = await table.get({ pk: 'P', sk: 's5' }, consistent);
    // Assess
    expect(found).toHaveLength(129);
    expect(one).toEqual({ pk: 'P', sk: 's5', d: Uint8Array.from([5]) });
    expect(one?.d).toBeInstanceOf(Uint8Array);
    expect(await table.get({ pk: 'P', sk: 's0' }, consistent)).toBeUndefined();
  });

  it('puts on a condition (absent, or an attribute equal) and returns the item replaced', async () => {
    // Prepare
    const table = await make();
    const key = { pk: 'P', sk: 'HEAD' };
    // Act
    const first = await table.put({ ...key, v: 1 }, { absent: true });
    const again = await table.put({ ...key, v: 1 }, { absent: true });
    const stale = await table.put({ ...key, v: 2 }, { equals: { name: 'v', value: 7 } });
    const next = await table.put({ ...key, v: 2, w: 'x' }, { equals: { name: 'v', value: 1 } });
    const plain = await table.put({ ...key, v: 3 });
    // Assess
    expect(first).toEqual({ applied: true });
    expect(again).toEqual({ applied: false });
    expect(stale).toEqual({ applied: false });
    expect(next).toEqual({ applied: true, old: { ...key, v: 1 } });
    expect(plain).toEqual({ applied: true });
    expect(await table.get(key, consistent)).toEqual({ ...key, v: 3 });
  });

  it('drops undefined attributes, and never shares an object with what is stored', async () => {
    // Prepare
    const table = await make();
    const item = { pk: 'P', sk: 'a', gone: undefined, nested: { list: [1, 2] } };
    await table.batchWrite([item]);
    item.nested.list.push(3);
    // Act
    const read = await table.get({ pk: 'P', sk: 'a' }, consistent);
    (read as { nested: { list: number[] } }).nested.list.push(4);
    // Assess
    expect(read).toEqual({ pk: 'P', sk: 'a', nested: { list: [1, 2, 4] } });
    expect(await table.get({ pk: 'P', sk: 'a' }, consistent)).toEqual({
      pk: 'P',
      sk: 'a',
      nested: { list: [1, 2] },
    });
  });
});
