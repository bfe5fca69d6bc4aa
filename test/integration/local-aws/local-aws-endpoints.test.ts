/**
 * The local SQS and Secrets Manager endpoints speak the protocols the real SDK clients use: every
 * call here goes through @aws-sdk/client-sqs or @aws-sdk/client-secrets-manager over a socket. Both
 * (and the local EventBridge) stand on the one AWS JSON helper, local-aws/aws-json-server.ts,
 * whose protocol answers are checked here over plain HTTP.
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsJsonError, type AwsJsonServer, startAwsJsonServer } from '../../../local-aws/aws-json-server';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../support/local-secrets-manager';
import { type LocalSqs, startLocalSqs } from '../../support/local-sqs';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

describe('local SQS (AWS JSON 1.0)', () => {
  let sqs: LocalSqs;
  let client: SQSClient;

  beforeAll(async () => {
    sqs = await startLocalSqs();
    client = new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials });
  });
  afterAll(async () => {
    client.destroy();
    await sqs.close();
  });

  it('sends in batches, receives with MD5s the SDK verifies, hides received messages and deletes them', async () => {
    // Prepare
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'roundtrip' }));
    // Act
    const batch = await client.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: 'a', MessageBody: '{"n":1}' },
          { Id: 'b', MessageBody: 'héllo ✓' },
        ],
      }),
    );
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'third' }));
    const first = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    const again = await client.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    for (const m of first.Messages ?? []) {
      await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle }));
    }
    const attributes = await client.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    // Assess
    expect(QueueUrl).toBe(`${sqs.endpoint}/000000000000/roundtrip`);
    expect(batch.Successful?.map((s) => s.Id)).toEqual(['a', 'b']);
    expect(batch.Failed ?? []).toEqual([]);
    expect(first.Messages?.map((m) => m.Body)).toEqual(['{"n":1}', 'héllo ✓', 'third']);
    expect(again.Messages ?? []).toEqual([]);
    expect(sqs.queue('roundtrip').messages).toEqual([]);
    expect(attributes.Attributes?.ApproximateNumberOfMessages).toBe('0');
  });

  it('reports injected entry failures in Failed, and a missing queue as QueueDoesNotExist', async () => {
    // Prepare
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'faults' }));
    sqs.failNextEntries(1);
    // Act
    const batch = await client.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: '0', MessageBody: 'x' },
          { Id: '1', MessageBody: 'y' },
        ],
      }),
    );
    const missing = client.send(
      new SendMessageCommand({ QueueUrl: `${sqs.endpoint}/000000000000/nope`, MessageBody: 'x' }),
    );
    // Assess
    expect(batch.Failed).toEqual([
      { Id: '0', SenderFault: false, Code: 'InternalError', Message: 'Injected failure' },
    ]);
    expect(batch.Successful?.map((s) => s.Id)).toEqual(['1']);
    await expect(missing).rejects.toBeInstanceOf(QueueDoesNotExist);
    await expect(
      client.send(
        new SendMessageBatchCommand({
          QueueUrl,
          Entries: Array.from({ length: 11 }, (_, i) => ({ Id: `${i}`, MessageBody: 'x' })),
        }),
      ),
    ).rejects.toMatchObject({ name: 'TooManyEntriesInBatchRequest' });
  });

  it('emulates the Lambda event source: failed records come back, succeeded ones are deleted', async () => {
    // Prepare
    const queue = sqs.createQueue('esm');
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'ok' }));
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'fails' }));
    // Act
    const event = sqs.takeEvent('esm');
    const failing = event.Records.find((r) => r.body === 'fails')!;
    sqs.settle(event, { batchItemFailures: [{ itemIdentifier: failing.messageId }] });
    const retry = sqs.takeEvent('esm');
    // Assess
    expect(event.Records.map((r) => r.body)).toEqual(['ok', 'fails']);
    expect(event.Records[0]!.eventSourceARN).toBe(queue.arn);
    expect(retry.Records.map((r) => [r.body, r.attributes.ApproximateReceiveCount])).toEqual([
      ['fails', '2'],
    ]);
  });
});

describe('local Secrets Manager (AWS JSON 1.1)', () => {
  let sm: LocalSecretsManager;
  let client: SecretsManagerClient;

  beforeAll(async () => {
    sm = await startLocalSecretsManager();
    client = new SecretsManagerClient({ endpoint: sm.endpoint, region: 'us-east-1', credentials });
  });
  afterAll(async () => {
    client.destroy();
    await sm.close();
  });

  it('creates, reads (by name and ARN), versions and describes secrets', async () => {
    // Act
    const created = await client.send(
      new CreateSecretCommand({ Name: 'app/one', SecretString: 'v1', Description: 'd' }),
    );
    const v1 = await client.send(new GetSecretValueCommand({ SecretId: 'app/one' }));
    const put = await client.send(new PutSecretValueCommand({ SecretId: 'app/one', SecretString: 'v2' }));
    const v2 = await client.send(new GetSecretValueCommand({ SecretId: created.ARN }));
    const described = await client.send(new DescribeSecretCommand({ SecretId: 'app/one' }));
    // Assess
    expect(created.Name).toBe('app/one');
    expect(created.ARN).toMatch(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:app\/one-[0-9a-f]{6}$/,
    );
    expect(v1.SecretString).toBe('v1');
    expect(v1.VersionId).toBe(created.VersionId);
    expect(v1.CreatedDate).toBeInstanceOf(Date);
    expect(put.VersionId).not.toBe(created.VersionId);
    expect(v2.SecretString).toBe('v2');
    expect(v2.VersionStages).toEqual(['AWSCURRENT']);
    expect(described.Description).toBe('d');
    // As Secrets Manager does: the version that was current becomes AWSPREVIOUS.
    expect(described.VersionIdsToStages).toEqual({
      [put.VersionId!]: ['AWSCURRENT'],
      [created.VersionId!]: ['AWSPREVIOUS'],
    });
    expect(sm.getSecretValueCalls('app/one')).toBe(2);
  });

  it('answers with the error types the SDK maps to its exception classes', async () => {
    await client.send(new CreateSecretCommand({ Name: 'app/dup', SecretString: 'x' }));
    await expect(
      client.send(new CreateSecretCommand({ Name: 'app/dup', SecretString: 'y' })),
    ).rejects.toBeInstanceOf(ResourceExistsException);
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'app/none' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });
});

describe('the AWS JSON helper (local-aws/aws-json-server.ts)', () => {
  let server: AwsJsonServer;

  const call = async (target: string, body: string, method = 'POST') => {
    const res = await fetch(server.endpoint, {
      method,
      headers: { 'x-amz-target': target, 'content-type': 'application/x-amz-json-1.1' },
      ...(method === 'POST' ? { body } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    server = await startAwsJsonServer({
      targetPrefix: 'Demo',
      contentType: 'application/x-amz-json-1.1',
      operations: {
        Echo: (input) => ({ got: input }),
        Refuse: () => {
          throw new AwsJsonError('NotAllowed', 'refused', 403, { 'x-extra': 'yes' });
        },
        Crash: () => {
          throw new Error('a bug');
        },
      },
      errorType: (type) => `demo#${type}`,
      errorTypeHeader: true,
      internalErrorType: 'InternalException',
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers an operation with its object, in the protocol content type, and counts the call', async () => {
    // Act
    const answer = await call('Demo.Echo', '{"a":1}');
    // Assess
    expect(answer).toMatchObject({ status: 200, body: { got: { a: 1 } } });
    expect(answer.headers.get('content-type')).toBe('application/x-amz-json-1.1');
    expect(answer.headers.get('x-amzn-requestid')).toBeTruthy();
    expect(server.calls.get('Echo')).toBe(1);
  });

  it('answers an AwsJsonError with its status, mapped type, message and headers', async () => {
    // Act
    const answer = await call('Demo.Refuse', '{}');
    // Assess
    expect(answer).toMatchObject({ status: 403, body: { __type: 'demo#NotAllowed', message: 'refused' } });
    expect(answer.headers.get('x-amzn-errortype')).toBe('demo#NotAllowed');
    expect(answer.headers.get('x-extra')).toBe('yes');
  });

  it('refuses unknown operations, other methods and bodies that are not a JSON object; a bug is a 500', async () => {
    // Act
    const unknown = await call('Other.Echo', '{}');
    const get = await call('Demo.Echo', '', 'GET');
    const array = await call('Demo.Echo', '[1]');
    const broken = await call('Demo.Echo', '{');
    const crash = await call('Demo.Crash', '{}');
    // Assess
    expect(unknown).toMatchObject({ status: 400, body: { __type: 'demo#UnknownOperationException' } });
    expect(get.status).toBe(404);
    expect(array.body.__type).toBe('demo#SerializationException');
    expect(broken.body.__type).toBe('demo#SerializationException');
    expect(crash).toMatchObject({
      status: 500,
      body: { __type: 'InternalException', message: 'internal error' },
    });
  });
});
