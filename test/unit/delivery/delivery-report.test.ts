/**
 * The EMF documents of one delivery invocation (Powertools Metrics writing to stdout): the fleet's
 * (dimension `service` only), and one of its own for each endpoint with metrics on (dimensions
 * `service` and `endpointId`, the fleet's names), never for an endpoint with metrics off; each
 * document within EMF's 100 values a metric.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../../lambdas/common/deployment-contract';
import { createMetrics, EMF_MAX_VALUES } from '../../../lambdas/common/metrics';
import { createEndpointMetrics, DeliveryReport } from '../../../lambdas/delivery/delivery-report';
import { emfDocuments } from '../../support/emf';

interface Emf {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

const ON = 'ep-00000000000000a1';
const OFF = 'ep-00000000000000b2';

describe('the delivery report', () => {
  let stdout: string[];
  let stderr: string[];
  beforeEach(() => {
    stdout = [];
    stderr = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const documents = (): Emf[] => emfDocuments<Emf>(stdout);
  const fleet = () => documents().filter((d) => !('endpointId' in d));
  const ofEndpoint = (id: string) => documents().filter((d) => d.endpointId === id);
  const sinks = {
    fleet: createMetrics({ serviceName: 'svc' }),
    endpoint: (id: string) => createEndpointMetrics(id, { serviceName: 'svc' }),
  };

  it('writes an endpoint with metrics on its own document (service and endpointId), none for one with metrics off', () => {
    // Prepare: two endpoints' deliveries, one endpoint measured.
    const report = new DeliveryReport();
    report.measure(ON);
    report.add(ON, 'w1', 'delivered', { status: 204, attempt: 1, latencyMs: 120.4 });
    report.add(ON, 'w2', 'delivered', { status: 200, attempt: 2, latencyMs: 340 });
    report.add(ON, 'w3', 'failed', { status: 503, attempt: 1, ageMs: 65_200 });
    report.add(OFF, 'w4', 'delivered', { status: 204, attempt: 1, latencyMs: 50 });
    report.add(OFF, 'w5', 'waiting', { ageMs: 200_000 });
    // Act
    report.flush(sinks.fleet, sinks.endpoint);
    // Assess: the fleet's document as before, over both endpoints.
    const [all, ...moreFleet] = fleet();
    expect(moreFleet).toEqual([]);
    expect(all!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(all![METRIC.webhookDelivered]).toBe(3);
    expect(all![METRIC.webhookAttemptsFailed]).toBe(1);
    expect(all![METRIC.webhookLatency]).toEqual([120, 340, 50]);
    expect(all![METRIC.webhookOldestUndeliveredAge]).toBe(200);
    // The measured endpoint's own: the same names and namespace, its figures only.
    const [own, ...moreOwn] = ofEndpoint(ON);
    expect(moreOwn).toEqual([]);
    const directive = own!._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Dimensions).toEqual([['service', 'endpointId']]);
    expect(own!.service).toBe('svc');
    expect(own![METRIC.webhookDelivered]).toBe(2);
    expect(own![METRIC.webhookAttemptsFailed]).toBe(1);
    expect(own![METRIC.webhookLatency]).toEqual([120, 340]);
    expect(own![METRIC.webhookOldestUndeliveredAge]).toBe(65);
    expect(Object.fromEntries(directive.Metrics.map((m) => [m.Name, m.Unit]))).toEqual({
      [METRIC.webhookDelivered]: 'Count',
      [METRIC.webhookAttemptsFailed]: 'Count',
      [METRIC.webhookOldestUndeliveredAge]: 'Seconds',
      [METRIC.webhookLatency]: 'Milliseconds',
    });
    // Metrics off: nothing of its own.
    expect(ofEndpoint(OFF)).toEqual([]);
    expect(documents()).toHaveLength(2);
  });

  it(`keeps to ${EMF_MAX_VALUES} values a metric: every document of a busy endpoint carries its endpointId`, () => {
    // Prepare
    const report = new DeliveryReport();
    const deliveries = 2 * EMF_MAX_VALUES + 50;
    report.measure(ON);
    for (let i = 0; i < deliveries; i++) report.add(ON, `w${i}`, 'delivered', { status: 204, latencyMs: i });
    // Act
    report.flush(sinks.fleet, sinks.endpoint);
    // Assess: three documents each, every value once, the counts once.
    const own = ofEndpoint(ON);
    const values = (docs: Emf[], name: string) =>
      docs.flatMap((d) => (d[name] === undefined ? [] : [d[name]].flat()));
    expect(own).toHaveLength(3);
    expect(fleet()).toHaveLength(3);
    expect(documents()).toHaveLength(6);
    for (const d of own) {
      expect(d._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'endpointId']]);
      expect([d[METRIC.webhookLatency]].flat().length).toBeLessThanOrEqual(EMF_MAX_VALUES);
    }
    const all = Array.from({ length: deliveries }, (_, i) => i);
    expect(values(own, METRIC.webhookLatency)).toEqual(all);
    expect(values(fleet(), METRIC.webhookLatency)).toEqual(all);
    expect(values(own, METRIC.webhookDelivered)).toEqual([deliveries]);
    expect(values(fleet(), METRIC.webhookDelivered)).toEqual([deliveries]);
    // No empty publish: Powertools warns of one on stderr.
    expect(stderr.join('')).not.toContain('No application metrics');
  });

  it('measures an endpoint for one invocation: the next report of it writes only the fleet document', () => {
    // Prepare
    const report = new DeliveryReport();
    report.measure(ON);
    report.add(ON, 'w1', 'delivered', { status: 204, latencyMs: 10 });
    report.flush(sinks.fleet, sinks.endpoint);
    // Act: an invocation whose deliveries did not find the endpoint's metrics on.
    report.add(ON, 'w2', 'delivered', { status: 204, latencyMs: 20 });
    report.flush(sinks.fleet, sinks.endpoint);
    // Without endpoint sinks (the local demo), the fleet's only.
    report.measure(ON);
    report.add(ON, 'w3', 'delivered', { status: 204, latencyMs: 30 });
    report.flush(sinks.fleet);
    // Assess
    expect(ofEndpoint(ON).map((d) => d[METRIC.webhookLatency])).toEqual([10]);
    expect(fleet().map((d) => d[METRIC.webhookLatency])).toEqual([10, 20, 30]);
  });

  it("leaves the fleet's zero counts out of its document (an endpoint's own keeps them); the line is the deliveries", () => {
    // Prepare: deliveries only, one endpoint measured.
    const report = new DeliveryReport();
    report.measure(ON);
    report.add(ON, 'w1', 'delivered', { status: 204, attempt: 1, latencyMs: 90 });
    report.add(OFF, 'w2', 'delivered', { status: 204, attempt: 1, latencyMs: 110 });
    // Act
    const fields = report.flush(sinks.fleet, sinks.endpoint);
    // Assess: the fleet's document names two metrics; the measured endpoint keeps its zeros.
    const [all] = fleet();
    expect(all!._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name).sort()).toEqual(
      [METRIC.webhookDelivered, METRIC.webhookLatency].sort(),
    );
    expect(all![METRIC.webhookAttemptsFailed]).toBeUndefined();
    const [own] = ofEndpoint(ON);
    expect(own).toMatchObject({ [METRIC.webhookAttemptsFailed]: 0, [METRIC.webhookOldestUndeliveredAge]: 0 });
    // The line: each delivery with its latency (or its age), no figures per endpoint beside.
    report.add(OFF, 'w3', 'failed', { status: 503, attempt: 2, ageMs: 65_200.4 });
    report.add(OFF, 'w4', 'queued');
    expect(fields).toEqual({ deliveries: [`w1 ${ON} delivered 204 1 90`, `w2 ${OFF} delivered 204 1 110`] });
    expect(report.flush(sinks.fleet)).toEqual({
      deliveries: [`w3 ${OFF} failed 503 2 65200`, `w4 ${OFF} queued - -`],
    });
  });
});
