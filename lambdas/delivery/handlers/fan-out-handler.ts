/**
 * The webhook fan-out Lambda's handler (SQS event source on the ingest queue, which the one
 * webhook rule of the bus feeds; partial batch responses): each record is an EventBridge event;
 * its deliveries are queued (../fan-out.ts); a record whose deliveries could not all be queued is
 * reported back and comes again (its deliveries already queued then come twice, with the same
 * webhook-id: delivery is at least once).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC } from '../../common/deployment-contract';
import { logger } from '../../common/logger';
import { fanOut } from '../fan-out';
import type { FanOutRuntime } from './runtime';

export function createFanOutHandler(rt: FanOutRuntime, now: () => number = Date.now) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const result = await fanOut(
      { registry: rt.registry, queue: rt.queue, pacer: rt.pacer, now },
      event.Records.map((r) => ({ recordId: r.messageId, body: r.body })),
    );
    rt.metrics.addMetric(METRIC.webhookDeliveriesQueued, MetricUnit.Count, result.deliveries);
    rt.metrics.publishStoredMetrics();
    logger.info('webhook fan-out', {
      events: result.events,
      deliveries: result.deliveries,
      failed: result.failedRecordIds.length,
    });
    return { batchItemFailures: result.failedRecordIds.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
