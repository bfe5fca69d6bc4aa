/**
 * The deployed dispatcher, checked on a second implementation of AWS (moto_server), by hand:
 *
 *   npm run synth -- -c stage=prod -c clubs=12000 && npx tsx test/moto/dispatch-bundle-cross-check.ts
 *
 * Reads cdk.out/GymBridge-prod.template.json, imports the dispatch function's bundle (the asset the
 * template names) with exactly the environment the template gives it (the table and queue refs
 * resolved to moto's), registers clubs in moto's DynamoDB through the real registry, and invokes
 * the handler once per shard schedule with the schedule's own input (Scheduler's
 * `<aws.scheduler.scheduled-time>` filled in). Checks: every club queued exactly once across the
 * shards, in messages the poll handler reads (POLL_CLUBS_PER_MESSAGE clubs each), each message
 * delayed within the spread. Not part of `npm test` (it needs moto_server).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDbClubRegistry } from '../../lambdas/clubs/dynamodb-club-registry';
import { parsePollBody } from '../../lambdas/common/poll-message';
import { createStateTable } from '../../lambdas/state/table';
import { importBundle, motoConfig, resourceOf, templateResources } from './deployed-bundle';
import { startMoto } from './moto-server';

const CLUBS = 40;
const [dispatchId, dispatchFn] = resourceOf('AWS::Lambda::Function', 'Dispatch');
const schedules = templateResources().filter(([, r]) => r.Type === 'AWS::Scheduler::Schedule');
const tableId = resourceOf('AWS::DynamoDB::Table')[0];
const queueId = resourceOf('AWS::SQS::Queue', 'PollQueue')[0];

const moto = await startMoto();
try {
  const config = motoConfig(moto.endpoint);
  const tableName = 'gym-bridge-state';
  await createStateTable(new DynamoDBClient(config), tableName);
  const queueUrl = (await moto.sqs.send(new CreateQueueCommand({ QueueName: 'poll-queue' }))).QueueUrl!;
  const registry = new DynamoDbClubRegistry({ client: new DynamoDBClient(config), tableName });
  for (let i = 0; i < CLUBS; i++) {
    await registry.put({
      clubId: `club-${i}`,
      baseUrl: 'https://api.example.com',
      timeZone: 'Australia/Sydney',
      plan: 'basic',
      enabled: true,
      secretName: 'gym-bridge/prod/clubs-0',
    } as never);
  }

  // Exactly the template's environment, refs resolved to moto's resources.
  const bundle = await importBundle(dispatchFn, { [tableId]: tableName, [queueId]: queueUrl }, moto.endpoint);
  const scheduledAt = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
  for (const [id, s] of schedules) {
    const input = JSON.parse(
      String((s.Properties.Target as { Input: string }).Input).replace(
        '<aws.scheduler.scheduled-time>',
        scheduledAt,
      ),
    );
    const result = await bundle.handler(input, {
      awsRequestId: `cross-check-${id}`,
      getRemainingTimeInMillis: () => 50_000,
    });
    console.log(`${dispatchId} invoked by ${id} with ${JSON.stringify(input)}: ${JSON.stringify(result)}`);
  }

  const attributes = await moto.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const visible = Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0);
  const delayed = Number(attributes.Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
  const perMessage = Number(
    (dispatchFn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables
      ?.POLL_CLUBS_PER_MESSAGE ?? 1,
  );
  console.log(
    `queue: ${visible} visible, ${delayed} delayed (${CLUBS} clubs, up to ${perMessage} a message)`,
  );
  const seen = new Map<string, number>();
  let messages = 0;
  for (let round = 0; round < 60 && [...seen.values()].reduce((a, b) => a + b, 0) < CLUBS; round++) {
    const got = await moto.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const m of got.Messages ?? []) {
      const body = parsePollBody(m.Body ?? '');
      if (!body.ok || body.problems.length > 0)
        throw new Error(`a poll message the poll handler cannot read: ${m.Body}`);
      messages++;
      for (const { clubId } of body.messages) seen.set(clubId, (seen.get(clubId) ?? 0) + 1);
    }
  }
  const twice = [...seen].filter(([, n]) => n > 1);
  const ok = visible + delayed === messages && seen.size === CLUBS && twice.length === 0 && messages <= CLUBS;
  console.log(
    ok
      ? `ok: every club queued once, in ${messages} messages`
      : `MISMATCH: ${seen.size} clubs in ${messages} messages (${visible + delayed} queued), twice: ${twice}`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  moto.close();
}
