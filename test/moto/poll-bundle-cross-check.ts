/**
 * The deployed poll function, checked on a second implementation of AWS (moto_server), by hand:
 *
 *   npm run synth -- -c stage=prod && npx tsx test/moto/poll-bundle-cross-check.ts
 *
 * Reads cdk.out/GymBridge-prod.template.json, imports the poll function's bundle (the asset the
 * template names) with exactly the environment the template gives it (the table, bus and secret
 * prefix resolved to moto's), registers a sandbox club in moto's DynamoDB and Secrets Manager, and
 * invokes the handler with SQS events as the event source would: a baseline, then an hour of
 * the sandbox later, then a minute's poll that pays for fast-lane probes and a probe message (a
 * group of one, `lane: 'fast'`) 15 s after it. The events reach a queue through a rule on moto's bus.
 * Checks: the second poll's events arrive, no batch item fails, the seen digests of the long
 * windows are stored, the minute's poll marks the visits cursor paid, and the probe publishes the
 * visits that came in its 15 s with no request of its session's own. Not part of `npm test` (it
 * needs moto_server).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { readClubsFile } from '../../lambdas/clubs/clubs-file';
import { DynamoDbClubRegistry } from '../../lambdas/clubs/dynamodb-club-registry';
import { decodeSeenDigest } from '../../lambdas/engine/scan/seen-digest';
import { DEFAULT_SOURCES } from '../../lambdas/sources';
import { DynamoDbStateStore } from '../../lambdas/state';
import { createStateTable } from '../../lambdas/state/table';
import { startSandbox } from '../../sandbox';
import { importBundle, motoConfig, resourceOf } from './deployed-bundle';
import { startMoto } from './moto-server';

const pollFn = resourceOf('AWS::Lambda::Function', 'PollFunction')[1];
const tableId = resourceOf('AWS::DynamoDB::Table')[0];
const busId = resourceOf('AWS::Events::EventBus')[0];

const moto = await startMoto();
const sandbox = await startSandbox({
  seed: 21,
  clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', open24h: true }],
  members: 120,
  historyDays: 2,
  activityScale: 40,
});
const dir = await mkdtemp(join(tmpdir(), 'gym-bridge-poll-moto-'));
try {
  const config = motoConfig(moto.endpoint);
  const tableName = 'gym-bridge-state';
  const busName = 'gym-bridge-prod';
  await createStateTable(new DynamoDBClient(config), tableName);
  await moto.eventBridge.send(new CreateEventBusCommand({ Name: busName }));
  const queueUrl = (await moto.sqs.send(new CreateQueueCommand({ QueueName: 'events' }))).QueueUrl!;
  const queueArn = (
    await moto.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn!;
  await moto.eventBridge.send(
    new PutRuleCommand({
      Name: 'all',
      EventBusName: busName,
      EventPattern: JSON.stringify({ source: [{ prefix: '' }] }),
    }),
  );
  await moto.eventBridge.send(
    new PutTargetsCommand({ Rule: 'all', EventBusName: busName, Targets: [{ Id: 'q', Arn: queueArn }] }),
  );

  // Exactly the template's environment, refs resolved to moto's resources.
  const bundle = await importBundle(pollFn, { [tableId]: tableName, [busId]: busName }, moto.endpoint);
  const clubsFile = join(dir, 'clubs.json');
  await sandbox.writeClubsFile(clubsFile);
  const [club] = await readClubsFile(clubsFile);
  const secretName = `${bundle.env.CLUB_SECRET_PREFIX}/club-1`;
  await new SecretsManagerClient(config).send(
    new CreateSecretCommand({ Name: secretName, SecretString: JSON.stringify(club!.credentials) }),
  );
  const { credentials: _c, ...record } = club!;
  await new DynamoDbClubRegistry({ client: new DynamoDBClient(config), tableName }).put({
    ...record,
    secretName,
  } as never);

  // The first poll's message is one club's (as releases before groups sent it), the others a
  // group's (POLL_CLUBS_PER_MESSAGE > 1): the deployed handler reads both.
  const invoke = async (n: number, more: Record<string, unknown> = {}) => {
    const message = {
      clubId: 'club-1',
      sources: more.lane ? ['visits'] : (record.sources ?? DEFAULT_SOURCES),
      dispatchedAt: new Date().toISOString(),
      ...more,
    };
    const body = JSON.stringify(n === 1 ? message : { polls: [message] });
    const event = {
      Records: [
        {
          messageId: `m-${n}`,
          receiptHandle: `r-${n}`,
          body,
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()) },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:poll',
          awsRegion: 'us-east-1',
        },
      ],
    };
    return (await bundle.handler(event, {
      awsRequestId: `poll-${n}`,
      getRemainingTimeInMillis: () => 110_000,
    })) as { batchItemFailures?: unknown[] } | undefined;
  };
  const first = await invoke(1);
  assert.deepEqual(first?.batchItemFailures ?? [], [], 'the baseline poll fails no item');
  sandbox.advance(3_600_000);
  const second = await invoke(2);
  assert.deepEqual(second?.batchItemFailures ?? [], [], 'the second poll fails no item');

  const drain = async () => {
    const types = new Map<string, number>();
    for (let round = 0; round < 60; round++) {
      const got = await moto.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (!got.Messages?.length) break;
      for (const m of got.Messages) {
        const type = (JSON.parse(m.Body!) as { 'detail-type': string })['detail-type'];
        types.set(type, (types.get(type) ?? 0) + 1);
      }
      await moto.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: got.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    return types;
  };
  const types = await drain();
  const total = [...types.values()].reduce((a, b) => a + b, 0);
  assert.ok(total > 0, 'the second poll published events through the bus');

  const store = new DynamoDbStateStore({ client: new DynamoDBClient(config), tableName });
  const digests: string[] = [];
  for (const source of ['disbursements', 'paymentHistory'] as const) {
    const bytes = await store.parts.seen.getSeenDigest('club-1', source, Math.floor(Date.now() / 1000));
    const buckets = bytes && decodeSeenDigest(bytes);
    assert.ok(buckets && buckets.length > 0, `the ${source} seen digest is stored`);
    digests.push(`${source} ${buckets.length} buckets`);
  }

  // The fast lane: a minute's poll that pays for three probes, then a probe 15 s later (the
  // sandbox's visits of those 15 s, past the tail's count, published by the probe's session).
  // A minute's poll first: the second (three hours of events) may leave visits' scan to finish,
  // and a probe asks only past a whole tail's count.
  sandbox.advance(60_000);
  assert.deepEqual((await invoke(3))?.batchItemFailures ?? [], [], 'a minute poll fails no item');
  sandbox.advance(60_000);
  const minute = await invoke(4, {
    probes: { count: 3, until: new Date(Date.now() + 60_000).toISOString() },
  });
  assert.deepEqual(minute?.batchItemFailures ?? [], [], 'the minute poll fails no item');
  const visits = async () => (await store.view('club-1').listCursors()).find((c) => c.source === 'visits')!;
  const paid = await visits();
  assert.ok((paid.stats?.fastLanePaidUntilMs ?? 0) > Date.now(), 'the minute poll marks its probes paid');
  await drain();
  const seq = sandbox.journal.lastSeq;
  // 15 s at a time until a visit comes (the sandbox's clock; the paid mark is in real time).
  const cameSince = () => sandbox.journal.entries(seq).filter((e) => e.kind === 'visit').length;
  for (let i = 0; i < 20 && cameSince() === 0; i++) sandbox.advance(15_000);
  const came = cameSince();
  assert.ok(came > 0, 'visits came for the probe');
  const used = sandbox.requestCounts('club-1').used;
  const probe = await invoke(5, { lane: 'fast' });
  assert.deepEqual(probe?.batchItemFailures ?? [], [], 'the probe fails no item');
  assert.equal(sandbox.requestCounts('club-1').used - used, 1, 'a probe is one request, its session none');
  const laneTypes = await drain();
  assert.equal(laneTypes.get('Member Visit Recorded') ?? 0, came, 'the probe publishes the visits that came');
  const counted = (await visits()).stats?.probeRows ?? 0;
  assert.equal(counted, (paid.stats?.probeRows ?? 0) + came, "the tail's count moves past the probe's rows");
  digests.push(`fast lane: ${came} visit(s) published by the probe`);
  console.log(
    `poll bundle on moto: ${total} events through the bus (${[...types].map(([t, n]) => `${t} ${n}`).join(', ')}); seen digests: ${digests.join(', ')}: ok`,
  );
} finally {
  await sandbox.close();
  moto.close();
  await rm(dir, { recursive: true, force: true });
}
