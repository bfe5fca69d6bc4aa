import { afterAll, beforeAll } from 'vitest';
import { DynamoDbStateStore } from '../../../lambdas/state/dynamodb-store';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { describeStateStoreContract } from '../../unit/state/state-store-contract';

let db: Dynalite;

beforeAll(async () => {
  db = await startDynalite();
});

afterAll(async () => {
  await db.close();
});

describeStateStoreContract('DynamoDbStateStore on dynalite', async () => {
  let now = 0;
  const tableName = await createTestTable(db.client);
  const store = new DynamoDbStateStore({ client: db.client, tableName, now: () => now });
  return {
    store,
    setNow: (ms) => {
      now = ms;
    },
  };
});
