import { describe, expect, it } from 'vitest';
import { barChart } from '../../../bench/charts';
import { clubCost, type MonthlyClubCounts } from '../../../bench/cost';
import type { DeploymentSettings } from '../../../bench/deployment';
import { PRICES } from '../../../bench/prices';

const deployment: DeploymentSettings = {
  stage: 'prod',
  dispatch: { memoryMb: 256, architecture: 'arm64', timeoutSec: 50 },
  poll: { memoryMb: 1024, architecture: 'arm64', timeoutSec: 120 },
  scheduleRateMinutes: 1,
  pollBatchSize: 1,
  pollMaxConcurrency: 10,
  handlersPresent: true,
};

const counts: MonthlyClubCounts = {
  pollInvocations: 1000,
  pollLocalMs: 5000,
  apiRequests: 2000,
  criticalApiRequests: 1200,
  tokenRequests: 10,
  pollStoreRequests: 10_000,
  putEventsRequests: 100,
  secretsCalls: 50,
  readUnits: 1_000_000,
  writeUnits: 200_000,
  billedEvents: 5000,
  sqsMessages: 1000,
  emfBytes: 1e6,
  logBytes: 1e6,
  perClubMetrics: 9,
  storedBytes: 1e6,
};

describe('clubCost', () => {
  it('prices each counted quantity at its list price', () => {
    const cost = clubCost(
      counts,
      deployment,
      { cpuMsPerClub: 0.1, requestsPerClub: 2, concurrency: 16 },
      100,
      {
        gymApiRequest: 0,
      },
    );
    const line = (name: string) => cost.lines.find((l) => l.item.startsWith(name))!.usd;
    expect(line('DynamoDB: reads')).toBeCloseTo(1_000_000 * PRICES.dynamoReadUnit.usd, 10);
    expect(line('DynamoDB: writes')).toBeCloseTo(200_000 * PRICES.dynamoWriteUnit.usd, 10);
    expect(line('EventBridge: custom events')).toBeCloseTo(5000 * PRICES.eventBridgeEvent.usd, 10);
    expect(line('CloudWatch: custom metrics')).toBeCloseTo(9 * 0.3, 10);
    expect(line('Secrets Manager: the club secret')).toBe(0.4);
    // 5 s measured × 1769/1024 (the CPU share of 1 GB) + 10,000 × 5 ms + 100 × 20 ms + 50 × 20 ms.
    expect(cost.pollGbSeconds).toBeCloseTo(5 * (1769 / 1024) + 50 + 2 + 1, 6);
    expect(cost.total).toBeGreaterThan(cost.briefTotal);
  });

  it('grows with the API latency assumption', () => {
    const share = { cpuMsPerClub: 0.1, requestsPerClub: 2, concurrency: 16 };
    const fast = clubCost(counts, deployment, share, 100, { gymApiRequest: 0 });
    const slow = clubCost(counts, deployment, share, 100, { gymApiRequest: 500 });
    // Only the requests a poll waits for: its sources run side by side.
    expect(slow.pollGbSeconds - fast.pollGbSeconds).toBeCloseTo(1200 * 0.5, 6);
  });

  it('stretches the measured CPU time below a full vCPU and bills less memory for the waiting', () => {
    const share = { cpuMsPerClub: 0.1, requestsPerClub: 2, concurrency: 16 };
    const small = { ...deployment, poll: { ...deployment.poll, memoryMb: 256 } };
    const cost = clubCost(
      { ...counts, pollStoreRequests: 0, putEventsRequests: 0, secretsCalls: 0 },
      small,
      share,
      100,
      {
        gymApiRequest: 100,
      },
    );
    // (5 s × 1769/256 + 1200 × 0.1 s) × 0.25 GB
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
