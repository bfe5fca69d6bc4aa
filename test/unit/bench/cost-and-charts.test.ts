import { describe, expect, it } from 'vitest';
import { clubCost, laneBatch } from '../../../bench/cost';
import { PRICES } from '../../../bench/prices';
import { barChart } from '../../../bench/report/charts';
import { pollConcurrencyFor } from '../../../lib/stage-config';
import { benchDeployment, SAMPLE_CLUB_COUNTS, SAMPLE_SHARE } from '../../support/bench-deployment';

const deployment = benchDeployment();

const counts = SAMPLE_CLUB_COUNTS;
const share = SAMPLE_SHARE;

describe('clubCost', () => {
  it("prices the fast lane's invocations on lines of their own, and their platform log lines", () => {
    // Prepare: the same club with 3,000 probe invocations' worth of probes (batch of 1 here).
    const lane = {
      pollInvocations: 3000,
      pollLocalMs: 300,
      criticalApiRequests: 3000,
      pollStoreRequests: 3000,
      putEventsRequests: 0,
    };
    // Act
    const without = clubCost(counts, deployment, share, 100, { gymApiRequest: 100 });
    const withLane = clubCost({ ...counts, lane }, deployment, share, 100, { gymApiRequest: 100 });
    // Assess: the minute's polls cost what they did; the lane's lines price its own invocations.
    const line = (c: typeof without, key: string) => c.lines.find((l) => l.key === key)?.usd;
    expect(line(withLane, 'lambdaPollCompute')).toBeCloseTo(line(without, 'lambdaPollCompute')!, 12);
    expect(line(without, 'lambdaFastLaneCompute')).toBeUndefined();
    // 100 clubs spread over the minute: 5 within a group's 3 s, so 5 probes an invocation.
    const batch = laneBatch(deployment, 100);
    expect(batch).toBe(5);
    // 0.3 s x 1769/1024 + 3,000 x (100 ms + 5 ms) / 5 side by side, 1 GB.
    const gbSeconds = 0.3 * (1769 / 1024) + (3000 * 0.105) / batch;
    expect(line(withLane, 'lambdaFastLaneCompute')).toBeCloseTo(gbSeconds * PRICES.lambdaArmGbSecond.usd, 8);
    expect(line(withLane, 'lambdaFastLaneRequests')).toBeCloseTo(
      (3000 / batch) * PRICES.lambdaRequest.usd,
      12,
    );
    expect(line(withLane, 'logsIngestion')! - line(without, 'logsIngestion')!).toBeCloseTo(
      (((3000 / batch) * 420) / 1e9) * 0.5,
      12,
    );
    expect(withLane.laneBilledMsPerInvocation).toBeCloseTo((gbSeconds * 1000 * batch) / 3000, 6);
    // At most 50 a message, however large the fleet.
    expect(laneBatch(deployment, 50_000)).toBe(50);
  });

  it('prices each counted quantity at its list price, every line keyed', () => {
    const cost = clubCost(counts, deployment, share, 100, { gymApiRequest: 0 });
    const line = (key: string) => cost.lines.find((l) => l.key === key)!.usd;
    expect(line('dynamoReads')).toBeCloseTo(1_000_000 * PRICES.dynamoReadUnit.usd, 10);
    expect(line('dynamoWrites')).toBeCloseTo(200_000 * PRICES.dynamoWriteUnit.usd, 10);
    expect(line('dynamoStorage')).toBeCloseTo(0.25, 10);
    expect(line('dynamoPitr')).toBeCloseTo(0.2, 10);
    expect(line('eventBridgeEvents')).toBeCloseTo(5000 * PRICES.eventBridgeEvent.usd, 10);
    // 5 MB archived once ($0.10/GB) and kept 12 months ($0.023/GB-month)
    expect(line('eventBridgeArchive')).toBeCloseTo(0.005 * (0.1 + 12 * 0.023), 10);
    // One shared secret for 100 clubs, and its calls: a container each per TTL (1,440 a month)
    const containers = pollConcurrencyFor(100, 1);
    expect(line('secrets')).toBeCloseTo((0.4 + containers * 1440 * PRICES.secretsApiCall.usd) / 100, 10);
    // 1 + 1 MB of lines and EMF, 1,000 invocations x 420 B of platform lines
    expect(line('logsIngestion')).toBeCloseTo(((2e6 + 1000 * 420) / 1e9) * 0.5, 10);
    expect(line('cloudWatchAlarms')).toBeCloseTo((7 * 0.1) / 100, 10);
    expect(line('cloudWatchDashboard')).toBeCloseTo(3 / 100, 10);
    expect(line('kms')).toBeCloseTo(1 / 100, 10);
    // 5 s measured x 1769/1024 (the CPU share of 1 GB) + 10,000 x 5 ms + 100 x 20 ms, batch of 1.
    expect(cost.pollGbSeconds).toBeCloseTo(5 * (1769 / 1024) + 50 + 2, 6);
    expect(cost.total).toBeCloseTo(
      cost.lines.reduce((a, l) => a + l.usd, 0),
      10,
    );
    expect(cost.total).toBeGreaterThan(cost.variableTotal);
    expect(new Set(cost.lines.map((l) => l.key)).size).toBe(cost.lines.length);
  });

  it('divides the fleet-wide costs over the clubs', () => {
    const small = clubCost(counts, deployment, share, 100);
    const large = clubCost(counts, deployment, share, 5000);
    // The dispatcher's time grows with the fleet; the rest does not
    expect(large.fleetFixedUsd).toBeGreaterThan(small.fleetFixedUsd);
    expect(small.total - small.variableTotal).toBeGreaterThan(large.total - large.variableTotal);
    expect(small.total - small.variableTotal).toBeCloseTo(small.fleetFixedUsd / 100, 10);
  });

  it('grows with the API latency assumption, shared by the clubs of a batch', () => {
    const fast = clubCost(counts, deployment, share, 100, { gymApiRequest: 0 });
    const slow = clubCost(counts, deployment, share, 100, { gymApiRequest: 500 });
    // Only the requests a poll waits for: its sources run side by side.
    expect(slow.pollGbSeconds - fast.pollGbSeconds).toBeCloseTo(1200 * 0.5, 6);
    const batched = { ...deployment, pollBatchSize: 10 };
    const fastB = clubCost(counts, batched, share, 100, { gymApiRequest: 0 });
    const slowB = clubCost(counts, batched, share, 100, { gymApiRequest: 500 });
    expect(slowB.pollGbSeconds - fastB.pollGbSeconds).toBeCloseTo((1200 * 0.5) / 10, 6);
  });

  it('stretches the measured CPU time below a full vCPU', () => {
    const small = { ...deployment, poll: { ...deployment.poll, memoryMb: 256 } };
    const cost = clubCost({ ...counts, pollStoreRequests: 0, putEventsRequests: 0 }, small, share, 100, {
      gymApiRequest: 100,
    });
    // (5 s x 1769/256 + 1200 x 0.1 s) x 0.25 GB
    expect(cost.pollGbSeconds).toBeCloseTo((5 * (1769 / 256) + 120) * 0.25, 6);
  });
});

describe('barChart', () => {
  it('draws one labelled bar per value, escaping text, on a log scale when asked', () => {
    const svg = barChart({
      title: 'Rows <per> change',
      bars: [
        { label: 'bridge', value: 90 },
        { label: 'naive & co', value: 50_000 },
      ],
      log: true,
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Rows &lt;per&gt; change');
    expect(svg).toContain('naive &amp; co');
    expect(svg.match(/<rect x="\d+" y="\d+" width="[\d.]+" height="18"/g)).toHaveLength(2);
  });
});
