/**
 * The stack's poller: the dispatcher's schedules (one per dispatch shard), the spread of the polls
 * over the dispatch period, the poll queue with its dead-letter queue, and the poll function's event
 * source (batch size, partial batch responses, maximum concurrency), for prod, dev and a
 * 50,000-club fleet.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/common/deployment-contract';
import { pollConcurrencyFor } from '../../lib/stage-config';
import { devTemplate, envOf, fleetTemplate, getAtt, prodTemplate } from './stack-fixture';
import { bridgeFunction, onlyResource, outsideWebhooks } from './support';

let prod: Template;
let dev: Template;
let fleet: Template;

beforeAll(() => {
  prod = prodTemplate();
  dev = devTemplate();
  fleet = fleetTemplate();
});

/** Each dispatch schedule's input, parsed. */
const scheduleInputs = (template: Template) =>
  Object.values(template.findResources('AWS::Scheduler::Schedule')).map(
    (r) => JSON.parse(String((r.Properties.Target as { Input: string }).Input)) as Record<string, unknown>,
  );

describe('poller', () => {
  it('runs the dispatcher on a one-minute schedule, without retries of stale runs', () => {
    prod.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Target: {
        Arn: getAtt(bridgeFunction(prod, 'dispatch').id),
        RetryPolicy: { MaximumRetryAttempts: 0 },
      },
    });
    dev.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(2 minutes)' });
  });

  it('runs one schedule per dispatch shard, each naming its shard and stamping its scheduled time', () => {
    // 1,000 clubs (prod's default): one shard; 50,000 clubs: ten, shards 0..9 of 10.
    expect(scheduleInputs(prod)).toEqual([
      { shard: 0, shards: 1, scheduledAt: '<aws.scheduler.scheduled-time>' },
    ]);
    const inputs = scheduleInputs(fleet);
    expect(inputs.map((i) => i.shard).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, i) => i),
    );
    for (const input of inputs)
      expect(input).toMatchObject({ shards: 10, scheduledAt: '<aws.scheduler.scheduled-time>' });
    fleet.resourcePropertiesCountIs(
      'AWS::Scheduler::Schedule',
      {
        ScheduleExpression: 'rate(1 minute)',
        Target: {
          Arn: getAtt(bridgeFunction(fleet, 'dispatch').id),
          RetryPolicy: { MaximumRetryAttempts: 0 },
        },
      },
      10,
    );
  });

  it('spreads the polls over the dispatch period, and gives the dispatcher a vCPU share sized for its shard', () => {
    expect(envOf(bridgeFunction(prod, 'dispatch').resource)[ENV.dispatchSpreadSeconds]).toBe('60');
    expect(envOf(bridgeFunction(dev, 'dispatch').resource)[ENV.dispatchSpreadSeconds]).toBe('120');
    const dispatch = bridgeFunction(fleet, 'dispatch').resource.Properties;
    expect(dispatch.MemorySize).toBe(1024);
    expect(dispatch.Timeout).toBe(50);
    // 50,000 clubs need more poll Lambdas than 1,000 clubs: 2,500 invocations a minute of 13 s and
    // the fast lane's 3,000 of 6 s, doubled, within the event source's 1,000.
    fleet.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: pollConcurrencyFor(50_000, 20) },
    });
    expect(pollConcurrencyFor(50_000, 20)).toBe(1000);
  });

  it('the poll queue redrives to the DLQ and hides a message longer than a poll can run', () => {
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    );
    const redrive = queue.resource.Properties.RedrivePolicy as {
      deadLetterTargetArn: unknown;
      maxReceiveCount: number;
    };
    expect(redrive.maxReceiveCount).toBe(3);
    const dlqId = (redrive.deadLetterTargetArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(prod.toJSON().Resources[dlqId].Type).toBe('AWS::SQS::Queue');
    const pollTimeout = Number(bridgeFunction(prod, 'poll').resource.Properties.Timeout);
    // AWS's advice for SQS event sources: six times the function timeout.
    expect(Number(queue.resource.Properties.VisibilityTimeout)).toBe(6 * pollTimeout);
    for (const id of [queue.id, dlqId]) {
      expect(prod.toJSON().Resources[id].Properties.SqsManagedSseEnabled).toBe(true);
    }
  });

  it('the poll Lambda consumes the queue with partial batch responses and a maximum concurrency', () => {
    const queue = onlyResource(
      prod,
      'AWS::SQS::Queue',
      (p, id) => p.VisibilityTimeout !== undefined && outsideWebhooks(p, id),
    ).id;
    prod.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: getAtt(queue),
      FunctionName: { Ref: bridgeFunction(prod, 'poll').id },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // One message an invocation, the message carrying 20 clubs: pollConcurrencyFor(1000, 20) = 34
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: pollConcurrencyFor(1000, 20) },
    });
    expect(pollConcurrencyFor(1000, 20)).toBe(34);
    const mapping = onlyResource(prod, 'AWS::Lambda::EventSourceMapping', outsideWebhooks);
    expect(mapping.resource.Properties.MaximumBatchingWindowInSeconds).toBeUndefined();
    dev.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it("the dispatcher puts the stage's pollBatchSize clubs in each poll message", () => {
    for (const template of [prod, dev]) {
      const env = bridgeFunction(template, 'dispatch').resource.Properties.Environment as {
        Variables: Record<string, unknown>;
      };
      expect(env.Variables).toMatchObject({ POLL_CLUBS_PER_MESSAGE: '20' });
    }
  });
});
