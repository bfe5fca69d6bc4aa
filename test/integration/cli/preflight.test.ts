/**
 * Start-up checks (cli/preflight.ts): the events file, the table name and table, the bus
 * name and bus. Real files, dynalite and the local EventBridge endpoint over real sockets.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import {
  checkBusExists,
  checkBusName,
  checkEventsFile,
  checkTableExists,
  checkTableName,
  PreflightError,
  whereFromEnv,
} from '../../../cli/preflight';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

const isRoot = process.getuid?.() === 0;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gym-bridge-preflight-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('checkEventsFile', () => {
  it('accepts a new file in an existing folder, and creates nothing', async () => {
    const path = join(dir, 'new.jsonl');
    await checkEventsFile(path);
    await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a new file in a folder that does not exist, naming it, and creates nothing', async () => {
    const path = join(dir, 'a', 'b', 'events.jsonl');
    await expect(checkEventsFile(path)).rejects.toThrow(CliUsageError);
    await expect(checkEventsFile(path)).rejects.toThrow(
      `--events-file ${path}: the folder ${join(dir, 'a', 'b')} does not exist: create it first (mkdir -p ${join(dir, 'a', 'b')})`,
    );
    await expect(stat(join(dir, 'a'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('accepts an existing file and leaves it as it was', async () => {
    const path = join(dir, 'existing.jsonl');
    await writeFile(path, '{"a":1}\n');
    await checkEventsFile(path);
    expect(await readFile(path, 'utf8')).toBe('{"a":1}\n');
  });

  it('refuses a directory, naming it', async () => {
    await expect(checkEventsFile(dir)).rejects.toThrow(CliUsageError);
    await expect(checkEventsFile(dir)).rejects.toThrow(`--events-file ${dir} is a directory`);
  });

  it('refuses a path below a file', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, '');
    await expect(checkEventsFile(join(file, 'events.jsonl'))).rejects.toThrow(
      `${file} is a file, not a directory`,
    );
    await expect(checkEventsFile(join(file, 'deeper', 'events.jsonl'))).rejects.toThrow(
      `${file} is a file, not a directory`,
    );
  });

  it('refuses an empty path', async () => {
    await expect(checkEventsFile('')).rejects.toThrow(/must name a file/);
  });

  // Read-only even for root (Linux): the check opens the file for appending, it does not trust modes.
  it.runIf(existsSync('/proc/sys/kernel/ostype'))(
    'refuses a file that cannot be opened for appending',
    async () => {
      await expect(checkEventsFile('/proc/sys/kernel/ostype')).rejects.toThrow(/is not writable \(E/);
    },
  );

  it.skipIf(isRoot)('refuses a read-only file and a read-only folder', async () => {
    const file = join(dir, 'read-only.jsonl');
    await writeFile(file, '');
    await chmod(file, 0o444);
    await expect(checkEventsFile(file)).rejects.toThrow(/is not writable/);
    const folder = join(dir, 'read-only-folder');
    await mkdir(folder);
    await chmod(folder, 0o555);
    try {
      await expect(checkEventsFile(join(folder, 'events.jsonl'))).rejects.toThrow(/not writable/);
    } finally {
      await chmod(folder, 0o755);
    }
  });
});

describe('checkTableName', () => {
  it.each(['gym-bridge-state', 'abc', 'a.b_c-D9', 'x'.repeat(255)])('accepts %s', (name) => {
    expect(() => checkTableName(name)).not.toThrow();
  });

  it.each([
    ['ab', /3 to 255 characters/],
    ['x'.repeat(256), /3 to 255 characters/],
    ['my table', /" " not allowed/],
    ['state/prod', /"\/" not allowed/],
    ['tåble', /"å" not allowed/],
  ])('refuses %j with a usage error naming the rule', (name, message) => {
    expect(() => checkTableName(name)).toThrow(CliUsageError);
    expect(() => checkTableName(name)).toThrow(message);
  });
});

describe('checkBusName', () => {
  it.each([
    'gym-bridge',
    'default',
    'a.b_c-d/e',
    'arn:aws:events:eu-west-1:123456789012:event-bus/gym-bridge-prod',
  ])('accepts %s', (name) => {
    expect(() => checkBusName(name)).not.toThrow();
  });

  it.each(['', 'my bus', 'bus!', 'x'.repeat(257), 'arn:aws:events:eu-west-1:123:event-bus/x'])(
    'refuses %j',
    (name) => {
      expect(() => checkBusName(name)).toThrow(CliUsageError);
      expect(() => checkBusName(name)).toThrow(/not an event bus name or ARN/);
    },
  );
});

describe('checkTableExists (dynalite)', () => {
  let db: Dynalite;
  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(() => db.close());

  it('passes for a state table', async () => {
    const name = await createTestTable(db.client);
    expect(await checkTableExists(db.client, name, { where: db.endpoint })).toBe('exists');
  });

  it('a missing table is a usage error with the --create-table hint', async () => {
    const check = checkTableExists(db.client, 'no-such-table', { where: db.endpoint });
    await expect(check).rejects.toThrow(CliUsageError);
    await expect(checkTableExists(db.client, 'no-such-table', { where: db.endpoint })).rejects.toThrow(
      `state table 'no-such-table' does not exist at ${db.endpoint}: add --create-table`,
    );
  });

  it('a missing table is fine with createTable', async () => {
    expect(await checkTableExists(db.client, 'no-such-table', { createTable: true })).toBe('will-create');
  });

  it('a table with other keys is not taken for a state table', async () => {
    await db.client.send(
      new CreateTableCommand({
        TableName: 'someone-elses',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await expect(checkTableExists(db.client, 'someone-elses', { createTable: true })).rejects.toThrow(
      /not a gym-bridge state table \(keys id\/-, expected pk\/sk\)/,
    );
  });

  it('an endpoint where nothing answers is a PreflightError (exit 1) pointing at local-aws', async () => {
    const dead = new DynamoDBClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    try {
      const check = checkTableExists(dead, 'gym-bridge-state', { where: 'http://127.0.0.1:9' });
      await expect(check).rejects.toThrow(PreflightError);
      await expect(
        checkTableExists(dead, 'gym-bridge-state', { where: 'http://127.0.0.1:9' }),
      ).rejects.toThrow(/at http:\/\/127\.0\.0\.1:9 failed: .*local-aws/);
    } finally {
      dead.destroy();
    }
  });
});

describe('checkBusExists (local EventBridge)', () => {
  let local: LocalEventBridge;
  let client: EventBridgeClient;
  beforeAll(async () => {
    local = await startLocalEventBridge({ buses: ['gym-bridge'] });
    client = new EventBridgeClient({
      endpoint: local.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await local.close();
  });

  it('passes for an existing bus, by name or ARN', async () => {
    await checkBusExists(client, 'gym-bridge');
    await checkBusExists(client, 'arn:aws:events:us-east-1:000000000000:event-bus/gym-bridge');
  });

  it('a missing bus is a usage error naming it', async () => {
    await expect(checkBusExists(client, 'nope', { where: local.endpoint })).rejects.toThrow(CliUsageError);
    await expect(checkBusExists(client, 'nope', { where: local.endpoint })).rejects.toThrow(
      `event bus 'nope' does not exist at ${local.endpoint}`,
    );
  });
});

describe('whereFromEnv', () => {
  it('names the endpoint override, or the region', () => {
    expect(whereFromEnv('DYNAMODB', { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:4567' })).toBe(
      'http://127.0.0.1:4567',
    );
    expect(whereFromEnv('EVENTBRIDGE', { AWS_ENDPOINT_URL: 'http://h:1' })).toBe('http://h:1');
    expect(whereFromEnv('DYNAMODB', { AWS_REGION: 'eu-west-1' })).toBe('region eu-west-1');
    expect(whereFromEnv('DYNAMODB', {})).toBe('region (unset)');
  });
});
