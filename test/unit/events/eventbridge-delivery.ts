/**
 * Events as an EventBridge rule target receives them, built the way the bridge publishes: the
 * PutEvents entry comes from the publisher's own `toEntry` (lambdas/events/put-events-batches.ts,
 * what EventBridgeSink sends), and EventBridge wraps it: version "0", a fresh id, the account and
 * region of the bus, `time` from the entry's Time in whole seconds, the parsed Detail.
 */
import { randomUUID } from 'node:crypto';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { toEntry } from '../../../lambdas/events/put-events-batches';

export interface DeliveredEvent {
  version: string;
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

export function deliveredEvent(
  event: BridgeEvent,
  source = 'gym-bridge',
  busName = 'gym-bridge',
): DeliveredEvent {
  const { entry } = toEntry(event, source, busName);
  if (!entry.Source || !entry.DetailType || !entry.Detail || !entry.Time) {
    throw new Error('toEntry left out a field EventBridge requires');
  }
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '123456789012',
    time: entry.Time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'eu-west-1',
    resources: entry.Resources ?? [],
    detail: JSON.parse(entry.Detail) as Record<string, unknown>,
  };
}
