/**
 * The `webhooks` commands against a deployed stage's resources, found as the stack outputs give
 * them ($WEBHOOK_TABLE_NAME, $WEBHOOK_SECRET_PREFIX, $WEBHOOK_QUEUE_URL, the bus, its archive and
 * the webhook rule): the webhook table in dynalite, the keys in the local Secrets Manager, the
 * delivery queue in the local SQS, and an EventBridge that records the replay it is asked for; each
 * command a child process with the real SDK. Outside the local stack a URL must be https and
 * public; the keys and static header values land in Secrets Manager, never in the table or output.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDeliveryMessage } from '../../../lambdas/delivery/delivery-message';
import { SecretsManagerSigningKeys } from '../../../lambdas/delivery/signing-keys';
import { WebhookStore } from '../../../lambdas/delivery/webhook-store';
import { makeEventId } from '../../../lambdas/events/event-id';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from '../../../local-aws/aws-json-server';
import { DUMMY_AWS_ENV, runCli } from '../../support/cli-process';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';
import { type LocalQueue, type LocalSqs, startLocalSqs } from '../../support/local-sqs';

const PREFIX = 'gym-bridge/test/webhooks/';
const HEADER_VALUE = 'saas-api-key-77f1e2d3';
const ACCOUNT = '123456789012';
const BUS_ARN = `arn:aws:events:us-east-1:${ACCOUNT}:event-bus/gym-bridge-test`;
const ARCHIVE_ARN = `arn:aws:events:us-east-1:${ACCOUNT}:archive/gym-bridge-test-archive`;
const RULE_ARN = `arn:aws:events:us-east-1:${ACCOUNT}:rule/gym-bridge-test/webhooks-rule`;

let db: Dynalite;
let sm: LocalSecretsManager;
let sqs: LocalSqs;
let queue: LocalQueue;
let events: AwsJsonServer;
const replays: Record<string, unknown>[] = [];
let table: string;
let store: WebhookStore;
let env: Record<string, string>;

/** An EventBridge with the stack's bus, its archive and the webhook rule, recording StartReplay. */
function eventBridge(): Promise<AwsJsonServer> {
  const notFound = () => new AwsJsonError('ResourceNotFoundException', 'not found');
  return startAwsJsonServer({
    targetPrefix: 'AWSEvents',
    contentType: 'application/x-amz-json-1.1',
    errorTypeHeader: true,
    operations: {
      DescribeEventBus: (input) => {
        if (input.Name !== 'gym-bridge-test' && input.Name !== BUS_ARN) throw notFound();
        return { Name: 'gym-bridge-test', Arn: BUS_ARN };
      },
      ListArchives: () => ({ Archives: [{ ArchiveName: 'gym-bridge-test-archive', State: 'ENABLED' }] }),
      DescribeArchive: (input) => {
        if (input.ArchiveName !== 'gym-bridge-test-archive') throw notFound();
        return {
          ArchiveName: 'gym-bridge-test-archive',
          ArchiveArn: ARCHIVE_ARN,
          EventSourceArn: BUS_ARN,
          RetentionDays: 90,
          State: 'ENABLED',
          CreationTime: Date.parse('2026-01-01T00:00:00Z') / 1000,
        };
      },
      DescribeRule: (input) => {
        if (input.Name !== 'webhooks-rule' || input.EventBusName !== 'gym-bridge-test') throw notFound();
        return { Name: 'webhooks-rule', Arn: RULE_ARN };
      },
      StartReplay: (input) => {
        replays.push(input);
        return {
          ReplayArn: `arn:aws:events:us-east-1:${ACCOUNT}:replay/${input.ReplayName}`,
          State: 'STARTING',
        };
      },
    },
  });
}

const webhooks = (args: string[], extra: Record<string, string> = {}) =>
  runCli(['webhooks', ...args], { ...env, ...extra });

async function ok(args: string[], extra: Record<string, string> = {}): Promise<string> {
  const r = await webhooks(args, extra);
  expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

function deadLetter(endpointId: string, n: number) {
  const eventId = makeEventId('webhooks-deployed-test', String(n));
  const message = newDeliveryMessage(
    {
      'detail-type': 'Member Joined',
      time: '2026-11-20T10:00:00Z',
      detail: { eventId, clubId: 'club-1', occurredAt: '2026-11-20T09:59:00Z' },
    },
    endpointId,
    Date.now(),
  );
  return store.putDeadLetter(endpointId, {
    webhookId: eventId,
    message: JSON.stringify(message),
    reason: 'schedule-exhausted',
    deadLetteredAt: Date.now(),
    attempts: 10,
    lastStatus: 503,
  });
}

beforeAll(async () => {
  [db, sm, sqs, events] = await Promise.all([
    startDynalite(),
    startLocalSecretsManager(),
    startLocalSqs(),
    eventBridge(),
  ]);
  table = await createTestTable(db.client, 'webhooks-deployed');
  store = new WebhookStore({ client: db.client, tableName: table });
  queue = sqs.createQueue('gym-bridge-test-webhook-delivery');
  env = {
    ...DUMMY_AWS_ENV,
    AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
    WEBHOOK_TABLE_NAME: table,
    WEBHOOK_SECRET_PREFIX: PREFIX,
    WEBHOOK_QUEUE_URL: queue.url,
  };
}, 60_000);

afterAll(async () => {
  await Promise.all([db?.close(), sm?.close(), sqs?.close(), events?.close()]);
});

describe('webhooks against a deployed stage', () => {
  let id: string;
  let secret: string;
  const keys = () =>
    new SecretsManagerSigningKeys({
      client: new SecretsManagerClient({
        endpoint: sm.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      }),
      ttlMs: 0,
    });

  it('adds an endpoint: its key and header values in Secrets Manager under the prefix, not in the table', async () => {
    const out = await ok(
      ['add', '--url', 'https://hooks.example.com/catch/123/s3cr3t-path', '--type', 'Member Joined'],
      { GYM_BRIDGE_WEBHOOK_HEADERS: `X-Api-Key: ${HEADER_VALUE}` },
    );
    id =
      /^(ep-[0-9a-f]{16}) added: POST https:\/\/hooks\.example\.com\/… {2}Member Joined; 10\/s; headers X-Api-Key$/m.exec(
        out,
      )![1]!;
    secret = out.trimEnd().split('\n').at(-1)!;
    expect(out).not.toContain('s3cr3t-path');
    expect(out).not.toContain(HEADER_VALUE);
    const endpoint = (await store.getEndpoint(id))!;
    expect(endpoint.secretName.startsWith(PREFIX)).toBe(true);
    const entry = await keys().entry(endpoint.secretName, id, 1);
    expect(entry).toEqual({ keyVersion: 1, key: secret, headers: { 'X-Api-Key': HEADER_VALUE } });
    const items = await db.client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'ENDPOINT' } },
      }),
    );
    expect(JSON.stringify(items.Items)).not.toContain(HEADER_VALUE);
    expect(JSON.stringify(items.Items)).not.toContain(secret);
  }, 60_000);

  it("--metrics: add turns an endpoint's own metrics on, update off and on; list and show say so; a record without the field reads as off", async () => {
    const out = await ok(['add', '--url', 'https://hooks.example.com/m', '--type', '*', '--metrics']);
    const measured =
      /^(ep-[0-9a-f]{16}) added: POST https:\/\/hooks\.example\.com\/… {2}every event; 10\/s; metrics on$/m.exec(
        out,
      )![1]!;
    expect((await store.getEndpoint(measured))!.metrics).toBe(true);
    // `id` was added without --metrics: its item has no such attribute.
    const items = await db.client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': { S: 'ENDPOINT' } },
      }),
    );
    const itemOf = (endpointId: string) => items.Items!.find((i) => i.sk?.S === endpointId)!;
    expect(itemOf(id)).not.toHaveProperty('metrics');
    expect(itemOf(measured).metrics).toEqual({ BOOL: true });
    const [json, text, shown] = await Promise.all([
      ok(['list', '--json']),
      ok(['list']),
      ok(['show', '--endpoint', measured]),
    ]);
    const listed = JSON.parse(json) as { endpointId: string; metrics: boolean }[];
    expect(Object.fromEntries(listed.map((e) => [e.endpointId, e.metrics]))).toEqual({
      [id]: false,
      [measured]: true,
    });
    const rows = text.trimEnd().split('\n');
    expect(rows[0]).toMatch(/ {2}HEADERS +METRICS$/);
    expect(rows.find((r) => r.startsWith(measured))).toMatch(/ {2}- +on$/);
    expect(rows.find((r) => r.startsWith(id))).toMatch(/ {2}X-Api-Key +off$/);
    expect(shown).toContain('\n  metrics      on: its own CloudWatch metrics (dimension endpointId)\n');

    expect(await ok(['update', '--endpoint', measured, '--metrics', 'off'])).toBe(
      `${measured} updated: POST https://hooks.example.com/…  every event; 10/s\n`,
    );
    const [off, offText] = await Promise.all([
      ok(['show', '--endpoint', measured, '--json']),
      ok(['show', '--endpoint', measured]),
    ]);
    expect((JSON.parse(off) as { metrics: boolean }).metrics).toBe(false);
    expect(offText).toContain('\n  metrics      off\n');
    expect((await store.getEndpoint(measured))!.metrics).toBe(false);
    expect(await ok(['update', '--endpoint', measured, '--metrics'])).toContain('; metrics on\n');
    expect((await store.getEndpoint(measured))!.metrics).toBe(true);
    const bad = await webhooks(['update', '--endpoint', measured, '--metrics', 'yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('gym-bridge webhooks: --metrics is on or off (alone: on)\n');
    expect(await ok(['remove', '--endpoint', measured])).toContain(`${measured} removed`);
  }, 90_000);

  it('refuses http, private addresses and a missing key prefix: one line, exit 2', async () => {
    const [http, priv, noPrefix] = await Promise.all([
      webhooks(['add', '--url', 'http://127.0.0.1:9000/hook', '--type', '*']),
      webhooks(['add', '--url', 'https://10.1.2.3/hook', '--type', '*']),
      webhooks(['add', '--url', 'https://hooks.example.com/', '--type', '*'], { WEBHOOK_SECRET_PREFIX: '' }),
    ]);
    expect([http.code, priv.code, noPrefix.code]).toEqual([2, 2, 2]);
    expect(http.stderr).toBe('gym-bridge webhooks: a webhook URL must be https:// outside the local stage\n');
    expect(priv.stderr).toBe('gym-bridge webhooks: address not allowed: 10.1.2.3 is a private address\n');
    expect(noPrefix.stderr).toMatch(
      /^gym-bridge webhooks: give where the signing keys go with --secret-prefix[^\n]*\n$/,
    );
  }, 60_000);

  it('rotate-secret keeps the old key signing for 24 h beside the new one', async () => {
    const out = await ok(['rotate-secret', '--endpoint', id]);
    const fresh = out.trimEnd().split('\n').at(-1)!;
    const entry = (await keys().entry((await store.getEndpoint(id))!.secretName, id, 2))!;
    expect(entry.key).toBe(fresh);
    expect(entry.previous?.key).toBe(secret);
    expect(entry.previous!.until - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(entry.headers).toEqual({ 'X-Api-Key': HEADER_VALUE });
  }, 60_000);

  it('redrive queues the dead letters on the delivery queue with their webhook-ids', async () => {
    await deadLetter(id, 1);
    await deadLetter(id, 2);
    expect(await ok(['redrive', '--endpoint', id])).toContain(`${id}: 2 dead letter(s) queued again`);
    const queued = queue.messages.map((m) => JSON.parse(m.body) as { id: string; ep: string; from?: string });
    expect(queued.map((m) => m.id).sort()).toEqual(
      [makeEventId('webhooks-deployed-test', '1'), makeEventId('webhooks-deployed-test', '2')].sort(),
    );
    expect(queued.every((m) => m.ep === id && m.from === 'redrive')).toBe(true);
    expect(await store.countDeadLetters(id)).toBe(0);
  }, 60_000);

  it('replay asks EventBridge for a replay of the archive limited to the webhook rule, named for the endpoint', async () => {
    const [done, noRule] = await Promise.all([
      ok([
        'replay',
        '--endpoint',
        id,
        '--from',
        '2026-11-01',
        '--to',
        '2026-11-02T12:00:00Z',
        '--bus',
        'gym-bridge-test',
        '--rule',
        'webhooks-rule',
      ]),
      webhooks(['replay', '--endpoint', id, '--from', '2026-11-01', '--bus', 'gym-bridge-test']),
    ]);
    expect(replays).toHaveLength(1);
    const replay = replays[0]!;
    expect(replay.ReplayName).toMatch(new RegExp(`^webhooks-${id}-\\d{14}$`));
    expect(replay).toMatchObject({
      EventSourceArn: ARCHIVE_ARN,
      Destination: { Arn: BUS_ARN, FilterArns: [RULE_ARN] },
      EventStartTime: Date.parse('2026-11-01T00:00:00Z') / 1000,
      EventEndTime: Date.parse('2026-11-02T12:00:00Z') / 1000,
    });
    expect(done).toContain(`replay ${replay.ReplayName} started`);
    expect(noRule.code).toBe(2);
    expect(noRule.stderr).toMatch(/--rule NAME\|ARN \(WebhookRuleArn\)/);
  }, 60_000);

  it('explain --event says where a dead-lettered event is; remove takes the keys away', async () => {
    await deadLetter(id, 3);
    const out = await runCli(['explain', '--event', makeEventId('webhooks-deployed-test', '3')], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(
      new RegExp(
        `${id}  hooks\\.example\\.com\\n {4}- in its dead letters since \\S+: schedule-exhausted after 10 attempt\\(s\\), last answer 503; webhooks redrive --endpoint ${id}`,
      ),
    );
    const secretName = (await store.getEndpoint(id))!.secretName;
    expect(await ok(['remove', '--endpoint', id])).toContain(`${id} removed`);
    expect(await keys().entry(secretName, id, 1)).toBeUndefined();
    expect(await store.getEndpoint(id)).toBeUndefined();
  }, 60_000);
});
