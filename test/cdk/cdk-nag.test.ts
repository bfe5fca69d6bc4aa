import type { Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGymBridgeApp } from '../../lib/gym-bridge-app';
import { FIXTURE_ENTRIES, synthTemplate, type ValidationReport } from './support';

/** Every acknowledged finding, reviewed: a new one must be added here on purpose. */
const ACKNOWLEDGED = [
  'AwsSolutions::AwsSolutions-L1',
  'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:gym-bridge/prod/clubs/*]',
  'AwsSolutions::AwsSolutions-IAM5[Resource::<PollerDispatchFunction608CD047.Arn>:*]',
  'AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:gym-bridge/prod/webhooks/*]',
  'AwsSolutions::AwsSolutions-SQS3',
];

describe('cdk-nag AwsSolutions checks', () => {
  let report: ValidationReport;

  beforeAll(() => {
    // app.synth() throws when a finding is not acknowledged; the prod stack with every optional part.
    report = synthTemplate({ stage: 'prod', alarmEmail: 'ops@example.com' }).validationReport;
  });

  it('pass for the prod stack with its optional parts (alarm topic, example rules)', () => {
    const nag = report.pluginReports.find((r) => r.pluginName === 'AwsSolutions');
    expect(nag?.conclusion).toBe('success');
    expect(nag?.violations).toEqual([]);
  });

  it('acknowledge only the reviewed findings, each with a written reason', () => {
    const suppressed = report.pluginReports.flatMap((r) => r.suppressedViolations);
    expect([...new Set(suppressed.map((v) => v.acknowledgedId))].sort()).toEqual([...ACKNOWLEDGED].sort());
    for (const finding of suppressed) expect(finding.reason.length).toBeGreaterThan(40);
  });

  it('are really applied: an unacknowledged finding fails the synth', () => {
    const { app, stack } = createGymBridgeApp({ context: { stage: 'dev' }, handlerEntries: FIXTURE_ENTRIES });
    // A queue without a DLQ or TLS enforcement: AwsSolutions-SQS3 and SQS4.
    new sqs.Queue(stack as Stack, 'UncheckedQueue');
    let failure = '';
    try {
      app.synth();
    } catch (err) {
      failure = String(err);
    }
    expect(failure).toMatch(/UncheckedQueue[\s\S]*AwsSolutions-SQS3/);
    // Only the new queue is reported: the bridge's own resources stay clean.
    const paths = failure.match(/^ {3}GymBridge-dev\/\S+/gm) ?? [];
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((path) => path.includes('UncheckedQueue'))).toBe(true);
  });
});
