import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE_OVERDUE_MINUTES } from '../../lambdas/common/deployment-contract';
import { DEFAULT_EVENT_SOURCE } from '../../lambdas/events/catalog';
import {
  POLL_INVOCATION_SECONDS_P95,
  pollConcurrencyFor,
  resolveStageConfig,
  StageConfigError,
} from '../../lib/stage-config';

const context =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

describe('resolveStageConfig', () => {
  it('defaults to dev, which deletes its data with the stack and polls every minute', () => {
    const config = resolveStageConfig(context({}));
    expect(config).toMatchObject({
      stage: 'dev',
      pollRateMinutes: 1,
      retainData: false,
      piiPolicyDefault: 'minimal',
    });
    expect(config.eventSource).not.toBe(DEFAULT_EVENT_SOURCE);
    expect(config.alarmEmail).toBeUndefined();
  });

  it('prod keeps its data and publishes with the default event source', () => {
    const config = resolveStageConfig(context({ stage: 'prod' }));
    expect(config).toMatchObject({ stage: 'prod', retainData: true, eventSource: DEFAULT_EVENT_SOURCE });
    expect(config.pollMaxConcurrency).toBeGreaterThan(resolveStageConfig(context({})).pollMaxConcurrency);
  });

  it('sizes the poll concurrency from the club count unless it is given', () => {
    // Act
    const fleet = (clubs: number) => resolveStageConfig(context({ stage: 'prod', clubs: String(clubs) }));
    // Assess: invocations a minute x seconds each / 60, doubled, within 2..1000
    expect(fleet(100).pollMaxConcurrency).toBe(pollConcurrencyFor(100, 10));
    expect(fleet(5000).pollMaxConcurrency).toBe(
      Math.ceil(((5000 / 10) * POLL_INVOCATION_SECONDS_P95 * 2) / 60),
    );
    expect(fleet(5000).pollMaxConcurrency).toBeGreaterThan(fleet(1000).pollMaxConcurrency);
    expect(pollConcurrencyFor(1, 10)).toBe(2);
    expect(pollConcurrencyFor(1_000_000, 1)).toBe(1000);
    expect(pollConcurrencyFor(5000, 10, 8, 5)).toBe(Math.ceil(((500 * 8) / 300) * 2));
    expect(
      resolveStageConfig(context({ stage: 'prod', clubs: '5000', pollMaxConcurrency: '40' }))
        .pollMaxConcurrency,
    ).toBe(40);
    expect(() => resolveStageConfig(context({ clubs: '0' }))).toThrow(
      /clubs="0": must be a whole number of clubs >= 1/,
    );
    expect(() => resolveStageConfig(context({ pollBatchSize: '11' }))).toThrow(
      /pollBatchSize="11": must be an integer in 1\.\.10/,
    );
  });

  it('sizes the dispatch shards from the club count, a shard per 5,000 clubs, unless given', () => {
    const fleet = (values: Record<string, unknown>) =>
      resolveStageConfig(context({ stage: 'prod', ...values }));
    expect(fleet({ clubs: '1000' })).toMatchObject({ dispatchShards: 1, dispatchMemoryMb: 1024 });
    expect(fleet({ clubs: '5001' }).dispatchShards).toBe(2);
    expect(fleet({ clubs: '50000' })).toMatchObject({ dispatchShards: 10, pollMaxConcurrency: 1000 });
    expect(fleet({ clubs: '50000', dispatchShards: '16', dispatchMemoryMb: 1769 })).toMatchObject({
      dispatchShards: 16,
      dispatchMemoryMb: 1769,
    });
  });

  it('refuses too few shards for the fleet, more shards than the directory has buckets, and a fleet one deployment cannot poll', () => {
    const fleet = (values: Record<string, unknown>) => () =>
      resolveStageConfig(context({ stage: 'prod', ...values }));
    expect(fleet({ clubs: '50000', dispatchShards: '4' })).toThrow(StageConfigError);
    expect(fleet({ clubs: '50000', dispatchShards: '4' })).toThrow(
      /context dispatchShards="4": must be an integer in 5\.\.64 for 50000 clubs \(a shard dispatches at most 10000 clubs/,
    );
    expect(fleet({ dispatchShards: '65' })).toThrow(/dispatchShards="65": must be an integer in 1\.\.64/);
    expect(fleet({ dispatchShards: '0' })).toThrow(/dispatchShards="0"/);
    expect(fleet({ dispatchMemoryMb: '64' })).toThrow(
      /dispatchMemoryMb="64": must be an integer in 128\.\.10240/,
    );
    expect(fleet({ clubs: '80000' })).toThrow(
      /context clubs=80000: one deployment polls at most 75000 clubs at pollBatchSize 10 every 1 min .* split the fleet over two deployments/,
    );
    expect(fleet({ clubs: '80000', pollBatchSize: '5' })).toThrow(/at most 37500 clubs/);
    expect(fleet({ clubs: '80000', pollRateMinutes: '2' })).not.toThrow();
  });

  it('takes overrides as command-line strings (-c key=value) and as JSON values (cdk.json)', () => {
    const config = resolveStageConfig(
      context({
        stage: 'prod',
        eventSource: 'acme.gyms',
        pollRateMinutes: '5',
        clubs: '3000',
        pollBatchSize: 5,
        pollMaxConcurrency: 20,
        piiPolicyDefault: 'full',
        quotaReserve: '0.25',
        alarmEmail: 'ops@example.com',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alarms',
        sourceOverdueMinutes: '30',
        archiveRetentionDays: '0',
        exampleRules: 'false',
        exampleRulesEmailDetail: 'full',
        retainData: false,
      }),
    );
    expect(config).toEqual({
      stage: 'prod',
      eventSource: 'acme.gyms',
      pollRateMinutes: 5,
      clubs: 3000,
      pollBatchSize: 5,
      pollMaxConcurrency: 20,
      dispatchShards: 1,
      dispatchMemoryMb: 1024,
      piiPolicyDefault: 'full',
      quotaReserve: 0.25,
      alarmEmail: 'ops@example.com',
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alarms',
      sourceOverdueMinutes: 30,
      archiveRetentionDays: 0,
      exampleRules: false,
      exampleRulesEmailDetail: 'full',
      retainData: false,
    });
  });

  it('e-mails a summary of PaymentIssue members, without member data, unless asked for the whole event', () => {
    for (const stage of ['dev', 'prod']) {
      expect(resolveStageConfig(context({ stage })).exampleRulesEmailDetail).toBe('summary');
      expect(
        resolveStageConfig(context({ stage, exampleRulesEmailDetail: 'full' })).exampleRulesEmailDetail,
      ).toBe('full');
    }
  });

  it('calls a source overdue after minutes without a successful poll, not hours', () => {
    for (const stage of ['dev', 'prod']) {
      const minutes = resolveStageConfig(context({ stage })).sourceOverdueMinutes;
      expect(minutes).toBe(DEFAULT_SOURCE_OVERDUE_MINUTES);
      expect(minutes).toBeGreaterThanOrEqual(5);
      expect(minutes).toBeLessThanOrEqual(30);
    }
  });

  it.each([
    [{ stage: 'staging' }, /stage="staging".*dev, prod/],
    [{ pollRateMinutes: '0.5' }, /pollRateMinutes="0.5": must be a whole number/],
    [{ pollMaxConcurrency: '1' }, /pollMaxConcurrency="1": must be an integer in 2\.\.1000/],
    [{ quotaReserve: '1' }, /quotaReserve="1"/],
    [{ quotaReserve: 'ten' }, /quotaReserve="ten"/],
    [{ piiPolicyDefault: 'none' }, /piiPolicyDefault="none": must be one of full, minimal/],
    [{ eventSource: 'aws.gyms' }, /eventSource="aws\.gyms".*'aws\.' is reserved/],
    [{ eventSource: 'x'.repeat(257) }, /eventSource=.*257 characters long/],
    [{ eventSource: 'gym bridge' }, /eventSource="gym bridge".*only letters, digits/],
    [{ sourceOverdueMinutes: '0' }, /sourceOverdueMinutes="0": must be a whole number of minutes >= 1/],
    [{ watermarkLagAlarmMinutes: '90' }, /watermarkLagAlarmMinutes: was replaced by sourceOverdueMinutes/],
    [{ alarmEmail: 'ops' }, /alarmEmail="ops": must be an e-mail address/],
    [{ alarmTopicArn: 'ops-alarms' }, /alarmTopicArn="ops-alarms": must be an SNS topic ARN/],
    [{ exampleRules: 'yes' }, /exampleRules="yes": must be true or false/],
    [{ exampleRulesEmailDetail: 'all' }, /exampleRulesEmailDetail="all": must be one of summary, full/],
    [{ exampleRulesEmailDetail: true }, /exampleRulesEmailDetail=true: must be one of summary, full/],
  ])('rejects %o naming the key and the rule', (values, message) => {
    expect(() => resolveStageConfig(context(values))).toThrow(StageConfigError);
    expect(() => resolveStageConfig(context(values))).toThrow(message);
  });
});
