/**
 * The deployed webhook functions, checked on a second implementation of AWS (moto_server), by hand:
 *
 *   npm run synth -- -c stage=prod && npx tsx test/moto/webhook-bundles-cross-check.ts
 *
 * Reads cdk.out/GymBridge-prod.template.json and imports the fan-out and delivery bundles (the
 * assets the template names) with exactly the environment the template gives them, the table,
 * queue and bus refs resolved to moto's. Endpoints are added with the real library (webhook table
 * in moto's DynamoDB, key secret in moto's Secrets Manager, compare-and-swap included), events are
 * put on moto's bus, reach an ingest queue through a rule with the template's pattern, and each
 * function is invoked with the SQS events its event source would pass; the ESM's part (delete what
 * succeeded) is done here. Checks: each event delivered once to each matching endpoint and to no
 * other, signed (verified by the official `standardwebhooks` package) with its eventId as
 * webhook-id; the fan-out's first attempts (one per endpoint), the deliveries it paced queued and
 * grouped by endpoint for the delivery function; an endpoint whose name resolves to loopback
 * refused by the deployed fan-out before any connection, its failure in moto's table and its retry
 * queued.
 *
 * The deployed function only connects to public addresses over HTTPS with the system's CAs (its
 * address policy), and every address of this machine is private. So the script runs itself in a
 * network and mount namespace of its own (`unshare`, no privilege: nothing on the machine changes)
 * where `hooks.test` is 44.1.2.3, an address on that namespace's loopback interface, and
 * `rebind.test` is 127.0.0.1; the receiver's certificate (test/integration/delivery/fixtures) is
 * trusted through NODE_EXTRA_CA_CERTS. moto_server runs inside too. Not part of `npm test`.
 *
 * moto 5.2's GetSecretValue (no VersionStage) keeps answering with a secret's first version after
 * UpdateSecretVersionStage moved AWSCURRENT off it (with VersionStage 'AWSCURRENT' it answers
 * right; Secrets Manager answers AWSCURRENT either way). The key secrets' compare-and-swap moves
 * AWSCURRENT, so here each endpoint gets a key secret of its own (one CreateSecret each); the
 * script checks and reports moto's behaviour. The CAS itself is tested on the local Secrets
 * Manager (test/integration/delivery/signing-keys-concurrency.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateEventBusCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { SecretsManagerSigningKeys } from '../../lambdas/delivery/signing-keys';
import { type AdminContext, addEndpoint, endpointStatus } from '../../lambdas/delivery/webhook-admin';
import { WebhookStore } from '../../lambdas/delivery/webhook-store';
import { createStateTable } from '../../lambdas/state/table';
import { importBundle, motoConfig, resourceOf } from './deployed-bundle';
import { startMoto } from './moto-server';

const PUBLIC_ADDRESS = '44.1.2.3';
const PORT = 8443;
const INSIDE = 'GYM_BRIDGE_WEBHOOK_CROSS_CHECK_NAMESPACE';
const fixtures = fileURLToPath(new URL('../integration/delivery/fixtures/', import.meta.url));

/** Runs this script again inside its own network and mount namespace (see the module comment). */
function reexecInNamespace(): never {
  const hosts = `/tmp/gym-bridge-webhook-hosts-${process.pid}`;
  writeFileSync(hosts, `127.0.0.1 localhost\n${PUBLIC_ADDRESS} hooks.test\n127.0.0.1 rebind.test\n`);
  const setup = [
    'ip link set lo up',
    `ip addr add ${PUBLIC_ADDRESS}/32 dev lo`,
    `mount --bind ${hosts} /etc/hosts`,
    `exec "${process.execPath}" --import tsx "${fileURLToPath(import.meta.url)}"`,
  ].join(' && ');
  const run = spawnSync('unshare', ['--user', '--map-root-user', '--net', '--mount', 'sh', '-c', setup], {
    stdio: 'inherit',
    env: { ...process.env, [INSIDE]: '1', NODE_EXTRA_CA_CERTS: join(fixtures, 'receiver-cert.pem') },
  });
  if (run.error || run.status === null) {
    console.error(`could not run in a namespace of its own (unshare): ${run.error?.message ?? run.signal}`);
    process.exit(2);
  }
  process.exit(run.status);
}

if (process.env[INSIDE] !== '1') reexecInNamespace();

interface Hit {
  readonly path: string;
  readonly webhookId: string;
  readonly type: string;
  readonly verified: boolean;
}

/** An HTTPS receiver that verifies each request with `standardwebhooks` and answers 204. */
async function startReceiver(host: string, secrets: Map<string, string>, hits: Hit[]) {
  const server = createHttpsServer(
    {
      key: readFileSync(join(fixtures, 'receiver-key.pem')),
      cert: readFileSync(join(fixtures, 'receiver-cert.pem')),
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        let verified = false;
        try {
          new Webhook(secrets.get(path) ?? 'whsec_').verify(body, req.headers as Record<string, string>);
          verified = true;
        } catch {}
        const webhookId = String(req.headers['webhook-id']);
        hits.push({ path, webhookId, type: (JSON.parse(body) as { type: string }).type, verified });
        res.writeHead(204).end();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(PORT, host, resolve));
  return server;
}

/** True when moto answers GetSecretValue with a stale version after AWSCURRENT moved (see above). */
async function staleAfterStageMove(sm: SecretsManagerClient): Promise<boolean> {
  const first = await sm.send(new CreateSecretCommand({ Name: 'probe', SecretString: 'one' }));
  const token = randomUUID();
  await sm.send(
    new PutSecretValueCommand({
      SecretId: 'probe',
      SecretString: 'two',
      ClientRequestToken: token,
      VersionStages: ['AWSPENDING'],
    }),
  );
  await sm.send(
    new UpdateSecretVersionStageCommand({
      SecretId: 'probe',
      VersionStage: 'AWSCURRENT',
      MoveToVersionId: token,
      RemoveFromVersionId: first.VersionId,
    }),
  );
  return (await sm.send(new GetSecretValueCommand({ SecretId: 'probe' }))).SecretString !== 'two';
}

const [busId] = resourceOf('AWS::Events::EventBus');
const [tableId] = resourceOf('AWS::DynamoDB::Table', 'WebhooksTable');
const [queueId] = resourceOf('AWS::SQS::Queue', 'WebhooksDeliveryQueue');
const [ingestQueueId] = resourceOf('AWS::SQS::Queue', 'WebhooksIngestQueue');
const rule = resourceOf('AWS::Events::Rule', 'WebhooksRule')[1];
const fanOutFn = resourceOf('AWS::Lambda::Function', 'WebhooksFanOutFunction')[1];
const deliverFn = resourceOf('AWS::Lambda::Function', 'WebhooksDeliverFunction')[1];

const moto = await startMoto();
const hits: Hit[] = [];
const secrets = new Map<string, string>();
const receivers = await Promise.all([
  startReceiver(PUBLIC_ADDRESS, secrets, hits),
  startReceiver('127.0.0.1', secrets, hits),
]);
try {
  const config = motoConfig(moto.endpoint);
  const tableName = 'gym-bridge-webhooks';
  const busName = 'gym-bridge-prod';
  await createStateTable(new DynamoDBClient(config), tableName);
  await moto.eventBridge.send(new CreateEventBusCommand({ Name: busName }));
  const queue = async (name: string) => {
    const url = (await moto.sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
    const attributes = await moto.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    return { url, arn: attributes.Attributes!.QueueArn! };
  };
  const ingest = await queue('webhook-ingest');
  const delivery = await queue('webhook-delivery');
  const pattern = rule.Properties.EventPattern as { source: string[] };
  await moto.eventBridge.send(
    new PutRuleCommand({ Name: 'webhooks', EventBusName: busName, EventPattern: JSON.stringify(pattern) }),
  );
  await moto.eventBridge.send(
    new PutTargetsCommand({
      Rule: 'webhooks',
      EventBusName: busName,
      Targets: [{ Id: 'i', Arn: ingest.arn }],
    }),
  );

  // Exactly the template's environment, refs resolved to moto's resources.
  const refs = {
    [tableId]: tableName,
    [queueId]: delivery.url,
    [ingestQueueId]: ingest.url,
    [busId]: busName,
  };
  const fanOut = await importBundle(fanOutFn, refs, moto.endpoint);
  const deliver = await importBundle(deliverFn, refs, moto.endpoint);

  // Endpoints, as `webhooks add` writes them (the deployed stage's policy: https, public names).
  const sm = new SecretsManagerClient(config);
  const stale = await staleAfterStageMove(sm);
  const admin: AdminContext = {
    store: new WebhookStore({ client: new DynamoDBClient(config), tableName }),
    keys: new SecretsManagerSigningKeys({ client: sm }),
    secretPrefix: deliver.env.WEBHOOK_SECRET_PREFIX!,
    // A key secret per endpoint (moto's stale reads after a stage move: see the module comment).
    secretShards: 4096,
    policy: 'public',
  };
  const endpoints = new Map<string, string>();
  const add = async (
    path: string,
    host: string,
    filter: { detailTypes: string[]; detailPattern?: string },
  ) => {
    const { endpoint, secret } = await addEndpoint(admin, {
      url: `https://${host}:${PORT}${path}`,
      ...filter,
    });
    secrets.set(path, secret);
    endpoints.set(endpoint.endpointId, path);
    return endpoint.endpointId;
  };
  await add('/all', 'hooks.test', { detailTypes: ['*'] });
  await add('/dishonours', 'hooks.test', {
    detailTypes: ['Payment Failed'],
    detailPattern: '{"reason":["dishonoured"]}',
  });
  await add('/quota', 'hooks.test', { detailTypes: ['Club Quota Low'] });
  const rebindId = await add('/rebind', 'rebind.test', { detailTypes: ['Member Joined'] });
  const secretNames = new Set((await admin.store.listEndpoints()).map((e) => e.secretName));
  assert.equal(secretNames.size, endpoints.size, 'a key secret per endpoint (draw again if this fails)');

  // Events on the bus, as the bridge puts them.
  const source = pattern.source[0]!;
  const detail = (type: string, extra: Record<string, unknown> = {}) => ({
    eventId: `evt_${randomUUID().replaceAll('-', '')}`,
    eventVersion: 1,
    clubId: 'club-1',
    source: 'members',
    occurredAt: new Date().toISOString(),
    observedAt: new Date().toISOString(),
    subject: {},
    ...extra,
    type,
  });
  const events = [
    detail('Member Joined'),
    detail('Payment Failed', { reason: 'dishonoured' }),
    detail('Payment Failed', { reason: 'declined' }),
  ];
  await moto.eventBridge.send(
    new PutEventsCommand({
      Entries: events.map(({ type, ...d }) => ({
        EventBusName: busName,
        Source: source,
        DetailType: type,
        Detail: JSON.stringify(d),
      })),
    }),
  );

  const receive = async (url: string, want: number): Promise<Message[]> => {
    const got: Message[] = [];
    for (let round = 0; round < 20 && got.length < want; round++) {
      const out = await moto.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      got.push(...(out.Messages ?? []));
    }
    return got;
  };
  const sqsEvent = (messages: Message[], arn: string) => ({
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body!,
      attributes: m.Attributes ?? {},
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: 'us-east-1',
    })),
  });
  const context = (fn: string, timeoutSec: number) => ({
    awsRequestId: randomUUID(),
    functionName: `GymBridge-prod-${fn}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:GymBridge-prod-${fn}`,
    memoryLimitInMB: '256',
    getRemainingTimeInMillis: () => timeoutSec * 1000,
  });
  /** Invokes a bundle with the messages, then deletes those it did not give back (the ESM's part). */
  const invoke = async (
    bundle: typeof fanOut,
    fn: string,
    q: { url: string; arn: string },
    messages: Message[],
  ) => {
    const out = (await bundle.handler(sqsEvent(messages, q.arn), context(fn, fn === 'FanOut' ? 30 : 60))) as {
      batchItemFailures: { itemIdentifier: string }[];
    };
    const back = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
    const done = messages.filter((m) => !back.has(m.MessageId!));
    if (done.length > 0) {
      await moto.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: q.url,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    return back;
  };

  // The fan-out: the three events from the rule's queue.
  const incoming = await receive(ingest.url, events.length);
  assert.equal(incoming.length, events.length, 'each event reached the ingest queue through the rule');
  assert.equal((await invoke(fanOut, 'FanOut', ingest, incoming)).size, 0, 'the fan-out fails no record');

  // The fan-out's first attempts: one per endpoint (/all, /dishonours; /rebind refused); /all's
  // two others paced (its rate over the fan-out's concurrency) into the delivery queue.
  const first = hits.map((h) => h.path).sort();
  assert.deepEqual(first, ['/all', '/dishonours'], `the fan-out's first attempts, got ${first.join(', ')}`);
  const queued = await receive(delivery.url, 2);
  const groups = queued.map(
    (m) => `${m.Attributes?.MessageGroupId ?? '-'} ${endpoints.get(JSON.parse(m.Body!).ep)}`,
  );
  assert.equal(queued.length, 2, `two deliveries queued, got ${queued.length}: ${groups.join(', ')}`);
  for (const m of queued) {
    assert.equal(m.Attributes?.MessageGroupId, JSON.parse(m.Body!).ep, 'grouped by endpoint (fair queue)');
  }
  const back = await invoke(deliver, 'Deliver', delivery, queued);
  assert.equal(back.size, 0, 'the delivery function gives no message back');

  const seen = (path: string) =>
    hits
      .filter((h) => h.path === path)
      .map((h) => h.webhookId)
      .sort();
  const ids = (list: typeof events) => list.map((e) => e.eventId).sort();
  assert.deepEqual(seen('/all'), ids(events), '/all: each event once');
  assert.deepEqual(seen('/dishonours'), ids([events[1]!]), '/dishonours: the dishonour only');
  assert.deepEqual(seen('/quota'), [], '/quota: nothing');
  assert.deepEqual(seen('/rebind'), [], '/rebind: no connection to loopback');
  assert.ok(
    hits.every((h) => h.verified),
    'every delivery verified by standardwebhooks',
  );
  const [rebind] = await endpointStatus(admin, [rebindId]);
  assert.match(rebind?.lastFailure?.error ?? '', /address not allowed: .*loopback/);
  const retry = await receive(delivery.url, 1);
  assert.equal(retry.length, 1, "the refused delivery's next attempt is queued");
  assert.equal(JSON.parse(retry[0]!.Body!).n, 1);

  console.log(
    [
      `webhook bundles on moto ${moto.endpoint}: ${incoming.length} events through the rule (pattern ${JSON.stringify(pattern)}),`,
      `${first.length} first attempts by the fan-out, ${queued.length} deliveries paced into the queue with their endpoint as MessageGroupId,`,
      `${hits.length} delivered over HTTPS to hooks.test (${PUBLIC_ADDRESS}) and verified by standardwebhooks`,
      `(${[...new Set(hits.map((h) => h.path))].map((p) => `${p} ${seen(p).length}`).join(', ')});`,
      `rebind.test refused before connecting ('${rebind?.lastFailure?.error}'), its attempt 2 queued: ok.`,
      `moto's GetSecretValue after a stage move: ${stale ? 'stale (its limitation; a key secret per endpoint here)' : 'current'}`,
    ].join(' '),
  );
} finally {
  for (const r of receivers) r.close();
  moto.close();
}
