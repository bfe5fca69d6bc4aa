/**
 * The webhook bench's own parts (bench/webhooks/): the fair queue it serves SQS from, the filters
 * it writes out to know what is due (checked against the delivery code's matcher), and the cost
 * arithmetic on counts made up for the test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebhookDeploymentSettings } from '../../../bench/deployment';
import { PRICES } from '../../../bench/prices';
import { FairQueue } from '../../../bench/webhooks/fair-queue';
import { addedPerClubMonth, webhookCost } from '../../../bench/webhooks/webhook-cost';
import type { WindowCounts } from '../../../bench/webhooks/webhook-load';
import { BILLING_TYPES, endpointFilter, filterTakes } from '../../../bench/webhooks/webhook-rig';
import { compileFilter, type Endpoint } from '../../../lambdas/delivery/endpoint';

afterEach(() => {
  vi.useRealTimers();
});

describe('the bench fair queue', () => {
  it('delays, hides, deletes; a receive returns quiet tenants before a noisy one (>10% and >= 30 in flight)', () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const q = new FairQueue('q', 'q', 30);
    for (let i = 0; i < 40; i++) q.send(`noisy-${i}`, 0, 'noisy');
    const inFlight = q.receive(10).concat(q.receive(10), q.receive(10), q.receive(5));
    expect(inFlight).toHaveLength(35);
    q.send('delayed', 2, 'quiet-b');
    q.send('quiet', 0, 'quiet-a');
    // Act
    const next = q.receive(2);
    // Assess: 35 of 35 in flight are the noisy tenant's: the quiet message comes first.
    expect(next.map((m) => m.body)).toEqual(['quiet', 'noisy-35']);
    expect(q.receive(10).map((m) => m.body)).not.toContain('delayed');
    vi.advanceTimersByTime(2_000);
    expect(q.receive(10).map((m) => m.body)).toEqual(['delayed']);
    const [first] = inFlight;
    expect(q.changeVisibility(first!.receiptHandle!, 0)).toBe(true);
    const again = q.receive(1);
    expect(again[0]!.body).toBe(first!.body);
    expect(again[0]!.receiveCount).toBe(2);
    expect(q.delete(again[0]!.receiptHandle!)).toBe(true);
    expect(q.delete(again[0]!.receiptHandle!)).toBe(false);
    q.close();
  });
});

describe("the bench's written-out filters", () => {
  it('take exactly the events the delivery code matches for each kind of endpoint', () => {
    const events = [
      { type: 'Member Visit Recorded', detail: {} },
      { type: 'Payment Failed', detail: { reason: 'dishonoured' } },
      { type: 'Payment Failed', detail: { reason: 'declined' } },
      ...BILLING_TYPES.map((type) => ({ type, detail: {} })),
    ];
    for (const index of [0, 1, 3, 5, 10, 15]) {
      const filter = endpointFilter(index);
      const endpoint = {
        endpointId: 'ep-0123456789abcdef',
        clubs: [`club-${index}`],
        detailTypes: [...filter.detailTypes],
        ...(filter.detailPattern ? { detailPattern: filter.detailPattern } : {}),
      } as Endpoint;
      const matches = compileFilter(endpoint);
      for (const e of events) {
        const detail = { ...e.detail, clubId: `club-${index}` };
        expect(filterTakes(index, e.type, detail), `${index} ${e.type}`).toBe(
          matches({ 'detail-type': e.type, detail }),
        );
      }
    }
  });
});

const settings = {
  memoryMb: 256,
  architecture: 'arm64',
  timeoutSec: 30,
  batchSize: 10,
  batchingWindowSec: 0,
  maxConcurrency: 2,
  visibilitySec: 180,
  environment: {},
};
const deployment: WebhookDeploymentSettings = {
  fanOut: settings,
  deliver: { ...settings, timeoutSec: 60, maxConcurrency: 50 },
  alarms: 4,
  logRetentionDays: 90,
};

function figures(invocations: number, cpuMs: number) {
  return {
    invocations,
    records: invocations,
    billedMs: invocations * 100,
    durationsMs: [],
    itemFailures: 0,
    containers: 2,
    peakConcurrency: 2,
    errors: 0,
    output: { logBytes: 0, logLines: 0, emfBytes: 0, emfDocuments: 0 },
    failures: {},
    attempts: {
      ms: Array(invocations).fill(100),
      batches: invocations,
      endpoints: invocations,
      longestChains: invocations,
      heldMs: 0,
    },
    cpuMs,
  };
}

describe('the webhook cost arithmetic', () => {
  it('prices each count once per million deliveries, and a club-month from the variable lines', () => {
    // Prepare: 1,000 deliveries in 10 s, 2,000 SQS requests in all, nothing else billed but Lambda.
    const window: WindowCounts = {
      seconds: 10,
      delivered: 1000,
      due: 1000,
      fanOut: figures(0, 0),
      deliver: figures(0, 0),
      aws: {
        dynamo: { fanOut: {}, deliver: {}, bench: {} },
        sqs: {
          'eventBridge webhook-ingest': { SendMessage: { requests: 1000, billed: 1000, messages: 1000 } },
          'deliver webhook-delivery': { ReceiveMessage: { requests: 1000, billed: 1000, messages: 1000 } },
          'bench webhook-delivery': { SendMessage: { requests: 500, billed: 500, messages: 500 } },
        },
        secretReads: { fanOut: 0, deliver: 0, bench: 0 },
        putEventsRequests: 0,
      },
      cpuMs: { fanOut: 0, deliver: 0, aws: 0, receivers: 0, bench: 0 },
      receivers: { bytesIn: 0, connections: 0, heldByDead: 0 },
    };
    // Act
    const cost = webhookCost(window, deployment, 0);
    // Assess: 2,000 requests of the rig's clients per 1,000 deliveries (the bench's own not counted).
    const sqs = cost.perMillion.lines.find((l) => l.key === 'sqs')!;
    expect(sqs.usd).toBeCloseTo(2 * PRICES.sqsRequest.usd * 1e6, 10);
    expect(cost.fixedMonthly.total).toBeCloseTo(2 * 648_000 * 0.4e-6 + 4 * 0.1 + 7 * 0.3 + 4 * 0.4, 6);
    expect(cost.fixedMonthly.lines.map((l) => l.key)).toContain('webhookTable');
    const variable = cost.perMillion.lines.filter((l) => !l.fixed).reduce((a, l) => a + l.usd, 0);
    const club = addedPerClubMonth(cost, 92_090, 1000);
    expect(club.variableUsd).toBeCloseTo((variable * 92_090) / 1e6, 10);
    expect(club.fixedShareUsd).toBeCloseTo(cost.fixedMonthly.total / 1000, 10);
  });
});

describe('the webhook duration model', () => {
  it("adds each invocation's longest chain of answered attempts and, as measured, the longest wait a deadline ended", () => {
    // Prepare: 10 fan-out invocations, each with one answered attempt; one also held 2 s (a hand-off).
    const fanOut = {
      ...figures(10, 0),
      attempts: { ms: Array(11).fill(100), batches: 10, endpoints: 11, longestChains: 10, heldMs: 2_000 },
    };
    const window = {
      seconds: 10,
      delivered: 10,
      due: 10,
      fanOut,
      deliver: figures(0, 0),
      aws: {
        dynamo: { fanOut: {}, deliver: {}, bench: {} },
        sqs: {},
        secretReads: { fanOut: 0, deliver: 0, bench: 0 },
        putEventsRequests: 0,
      },
      cpuMs: { fanOut: 0, deliver: 0, aws: 0, receivers: 0, bench: 0 },
      receivers: { bytesIn: 0, connections: 0, heldByDead: 0 },
    } as WindowCounts;
    // Act
    const cost = webhookCost(window, deployment, 10);
    // Assess: an answered attempt is the stated answer plus one round trip (no new connection).
    const attemptMs = 100 + 30;
    expect(cost.duration.fanOut.attemptsMs).toBeCloseTo((10 * attemptMs + 2_000) / 10, 6);
    expect(cost.duration.deliver.attemptsMs).toBe(0);
  });
});
