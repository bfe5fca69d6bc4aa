import { describe, expect, it } from 'vitest';
import { DEFAULT_SOURCE_OVERDUE_MINUTES } from '../../lambdas/common/deployment-contract';
import { DEFAULT_EVENT_SOURCE } from '../../lambdas/events/catalog';
import { tableCapacityFor } from '../../lib/fleet-sizing';
import {
  FAST_LANE_INVOCATION_SECONDS,
  POLL_INVOCATION_SECONDS,
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
    // Assess: (poll invocations a minute x seconds each + the fast lane's at its fastest: 3 probes
    // a club a minute, 50 an invocation) / 60, doubled, within 2..1000
    const lane = (clubs: number, probesPerMinute: number) =>
      ((clubs * probesPerMinute) / 50) * FAST_LANE_INVOCATION_SECONDS;
    expect(fleet(100).pollMaxConcurrency).toBe(pollConcurrencyFor(100, 20));
    expect(fleet(5000).pollMaxConcurrency).toBe(
      Math.ceil((((5000 / 20) * POLL_INVOCATION_SECONDS + lane(5000, 3)) * 2) / 60),
    );
    expect(fleet(5000).pollMaxConcurrency).toBe(169);
    expect(fleet(5000).pollMaxConcurrency).toBeGreaterThan(fleet(1000).pollMaxConcurrency);
    expect(pollConcurrencyFor(1, 10)).toBe(2);
    expect(pollConcurrencyFor(1_000_000, 1)).toBe(1000);
    // Every 5 minutes: the polls' invocations spread over 5 minutes, the lane's 3.8 probes a minute.
    expect(pollConcurrencyFor(5000, 10, 8, 5)).toBe(Math.ceil(((500 * 8) / 300 + lane(5000, 3.8) / 60) * 2));
    expect(
      resolveStageConfig(context({ stage: 'prod', clubs: '5000', pollMaxConcurrency: '40' }))
        .pollMaxConcurrency,
    ).toBe(40);
    expect(() => resolveStageConfig(context({ clubs: '0' }))).toThrow(
      /clubs="0": must be a whole number of clubs >= 1/,
    );
    expect(() => resolveStageConfig(context({ pollBatchSize: '21' }))).toThrow(
      /pollBatchSize="21": must be a whole number in 1\.\.20/,
    );
  });

  it('sizes the dispatch shards from the club count, a shard per 5,000 clubs, unless given', () => {
    // The table quota raised (tableMaxUnits): these fleets' provisioned max passes the default 40,000.
    const fleet = (values: Record<string, unknown>) =>
      resolveStageConfig(context({ stage: 'prod', tableMaxUnits: '120000', ...values }));
    expect(fleet({ clubs: '1000' })).toMatchObject({ dispatchShards: 1, dispatchMemoryMb: 1024 });
    expect(fleet({ clubs: '5001' }).dispatchShards).toBe(2);
    // 50,000 clubs need 842 at once (no headroom): the event source's 1,000 leaves 1.19 times that.
    expect(fleet({ clubs: '50000' })).toMatchObject({ dispatchShards: 10, pollMaxConcurrency: 1000 });
    expect(fleet({ clubs: '50000', dispatchShards: '16', dispatchMemoryMb: 1769 })).toMatchObject({
      dispatchShards: 16,
      dispatchMemoryMb: 1769,
    });
  });

  it('refuses too few shards for the fleet, more shards than the directory has buckets, and a fleet one deployment cannot poll', () => {
    const fleet = (values: Record<string, unknown>) => () =>
      resolveStageConfig(context({ stage: 'prod', tableMaxUnits: '120000', ...values }));
    expect(fleet({ clubs: '50000', dispatchShards: '4' })).toThrow(StageConfigError);
    expect(fleet({ clubs: '50000', dispatchShards: '4' })).toThrow(
      /context dispatchShards="4": must be an integer in 5\.\.64 for 50000 clubs \(a shard dispatches at most 10000 clubs/,
    );
    expect(fleet({ dispatchShards: '65' })).toThrow(/dispatchShards="65": must be an integer in 1\.\.64/);
    expect(fleet({ dispatchShards: '0' })).toThrow(/dispatchShards="0"/);
    expect(fleet({ dispatchMemoryMb: '64' })).toThrow(
      /dispatchMemoryMb="64": must be an integer in 128\.\.10240/,
    );
    expect(fleet({ clubs: '60000' })).toThrow(
      /context clubs=60000: one deployment polls at most 59400 clubs at pollBatchSize 20 every 1 min .* split the fleet over two deployments/,
    );
    expect(fleet({ clubs: '59400' })).not.toThrow();
    expect(fleet({ clubs: '30000', pollBatchSize: '5' })).toThrow(/at most 20270 clubs/);
    expect(fleet({ clubs: '80000', pollRateMinutes: '2', tableCapacity: 'on-demand' })).not.toThrow();
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
        tableCapacity: 'on-demand',
        tableTargetUtilization: '60',
        tableMaxUnits: 80000,
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
      tableCapacity: 'on-demand',
      tableTargetUtilization: 60,
      tableMaxUnits: 80000,
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
    [{ tableCapacity: 'auto' }, /tableCapacity="auto": must be one of on-demand, provisioned/],
    [{ tableCapacity: 'PROVISIONED' }, /tableCapacity="PROVISIONED": must be one of on-demand, provisioned/],
    [{ tableTargetUtilization: '95' }, /tableTargetUtilization="95": must be a whole percentage in 20\.\.90/],
    [{ tableTargetUtilization: '19' }, /tableTargetUtilization="19": must be a whole percentage in 20\.\.90/],
    [{ tableTargetUtilization: '0.7' }, /tableTargetUtilization="0\.7": must be a whole percentage/],
    [{ tableMaxUnits: '0' }, /tableMaxUnits="0": must be a whole number of capacity units >= 1 .*L-CF0CBE56/],
    [{ tableMaxUnits: 'lots' }, /tableMaxUnits="lots": must be a whole number of capacity units/],
  ])('rejects %o naming the key and the rule', (values, message) => {
    expect(() => resolveStageConfig(context(values))).toThrow(StageConfigError);
    expect(() => resolveStageConfig(context(values))).toThrow(message);
  });

  it('provisions the state table in prod and keeps dev on demand, both at a 70% target unless given', () => {
    expect(resolveStageConfig(context({ stage: 'prod' }))).toMatchObject({
      tableCapacity: 'provisioned',
      tableTargetUtilization: 70,
      tableMaxUnits: 40_000,
    });
    expect(resolveStageConfig(context({}))).toMatchObject({
      tableCapacity: 'on-demand',
      tableTargetUtilization: 70,
    });
    expect(resolveStageConfig(context({ tableCapacity: 'provisioned' })).tableCapacity).toBe('provisioned');
    expect(resolveStageConfig(context({ stage: 'prod', tableCapacity: 'on-demand' })).tableCapacity).toBe(
      'on-demand',
    );
  });

  it('refuses a provisioned max above the table quota assumed, naming the quota to raise', () => {
    const prod = (values: Record<string, unknown>) => () =>
      resolveStageConfig(context({ stage: 'prod', ...values }));
    // 28,000 clubs' first hour at 70% is 40,000 read units: the default quota, just.
    expect(prod({ clubs: '28000' })).not.toThrow();
    expect(prod({ clubs: '28001' })).toThrow(StageConfigError);
    expect(prod({ clubs: '50000' })).toThrow(
      /context tableCapacity=provisioned: 50000 clubs at tableTargetUtilization 70% need a max of 71429 read units \(quota L-CF0CBE56\), above tableMaxUnits=40000.*-c tableMaxUnits=.*-c tableCapacity=on-demand/,
    );
    // A lower target needs more units: at 20%, 250,000 read units and 36,500 write units.
    expect(prod({ clubs: '50000', tableTargetUtilization: '20' })).toThrow(
      /need a max of 250000 read units \(quota L-CF0CBE56\), above/,
    );
    expect(prod({ clubs: '50000', tableTargetUtilization: '20', tableMaxUnits: '36499' })).toThrow(
      /250000 read units \(quota L-CF0CBE56\) and 36500 write units \(quota L-AB614373\), above tableMaxUnits=36499/,
    );
    expect(prod({ clubs: '50000', tableMaxUnits: '80000' })).not.toThrow();
    expect(prod({ clubs: '50000', tableCapacity: 'on-demand' })).not.toThrow();
  });
});

describe('tableCapacityFor', () => {
  it("takes the steady mean at the target for the min, a whole fleet's first hour (reads) or busiest hour (writes) for the max", () => {
    // Reads: 0.2 a club a second steady (the min: half of it), 1 in the first hour; writes: 0.073,
    // busiest hour 2 x 0.073.
    expect(tableCapacityFor(1000, 70)).toEqual({
      read: { min: 143, max: 1429 },
      write: { min: 53, max: 209 },
    });
    expect(tableCapacityFor(5000, 70)).toEqual({
      read: { min: 715, max: 7143 },
      write: { min: 261, max: 1043 },
    });
    expect(tableCapacityFor(50_000, 70)).toEqual({
      read: { min: 7143, max: 71_429 },
      write: { min: 2608, max: 10_429 },
    });
    // A higher target, fewer units; a rounding product (0.07 x 1000 / 0.7) does not gain a unit.
    expect(tableCapacityFor(1000, 80).read).toEqual({ min: 125, max: 1250 });
    expect(tableCapacityFor(1000, 50).write).toEqual({ min: 73, max: 292 });
    // At least one unit, however small the fleet.
    expect(tableCapacityFor(1, 90)).toEqual({ read: { min: 1, max: 2 }, write: { min: 1, max: 1 } });
  });
});
