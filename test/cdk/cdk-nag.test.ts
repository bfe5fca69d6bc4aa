import type { Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { createGymBridgeApp } from '../../lib/gym-bridge-app';
import { FIXTURE_ENTRIES } from './support';

describe('cdk-nag AwsSolutions checks', () => {
  it('pass for the prod stack with every optional part (alarm topic, example rules)', () => {
    const { app } = createGymBridgeApp({
      context: { stage: 'prod', alarmEmail: 'ops@example.com' },
      handlerEntries: FIXTURE_ENTRIES,
    });
    expect(() => app.synth()).not.toThrow();
  });

  it('are really applied: an unacknowledged finding fails the synth', () => {
    const { app, stack } = createGymBridgeApp({ context: { stage: 'dev' }, handlerEntries: FIXTURE_ENTRIES });
    // A queue without a DLQ, TLS enforcement or acknowledgment: AwsSolutions-SQS3 and SQS4.
    new sqs.Queue(stack as Stack, 'UncheckedQueue');
    let report = '';
    try {
      app.synth();
    } catch (err) {
      report = String(err);
    }
    expect(report).toMatch(/UncheckedQueue[\s\S]*AwsSolutions-SQS3/);
    // Only the new queue is reported: the bridge's own resources stay clean.
    expect(
      report.match(/^ {3}GymBridge-dev\/[^\s]+/gm)?.every((path) => path.includes('UncheckedQueue')),
    ).toBe(true);
  });
});
