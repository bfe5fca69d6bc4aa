import { describe, expect, it } from 'vitest';
import { publishPageEvents } from '../../../../lambdas/engine/scan/publish-commit';
import type { EngineScan, ScanMode } from '../../../../lambdas/engine/scan/scan-types';
import { splitIntent } from '../../../../lambdas/engine/scan/snapshot-intent';
import { StateDetection } from '../../../../lambdas/engine/scan/state-detection';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { SOURCES } from '../../../../lambdas/sources';
import type { StateSource } from '../../../../lambdas/sources/source';
import { MemoryStateStore } from '../../../../lambdas/state';
import { member, sydney } from '../../sources/fixtures';

const members = SOURCES.members as StateSource;
const scanOf = (mode: ScanMode): EngineScan => ({
  mode,
  fromdate: '',
  nextOffset: 0,
  startedAt: new Date(sydney.observedAtMs).toISOString(),
  pages: 0,
  records: 0,
});
const rec = (status: string) => [{ id: 'M1', item: member({ Number: 'M1', Status: status }) }];

function setup() {
  const store = new MemoryStateStore();
  const sink = new MemorySink();
  let failNext = false;
  const detection = new StateDetection(store, sydney, members, async (page, quarantine) => {
    if (failNext && page.events.length > 0) {
      failNext = false;
      throw new Error('EventBridge down');
    }
    await publishPageEvents(sink, page, quarantine);
  });
  const failNextPublish = () => {
    failNext = true;
  };
  return { store, sink, detection, failNextPublish };
}

describe('StateDetection', () => {
  it('a baseline stores snapshots and publishes nothing; a change after it is published once', async () => {
    // Prepare
    const { sink, detection } = setup();
    await detection.detect(rec('Active'), scanOf('baseline'), []);
    // Act
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    const afterChange = sink.events.length;
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    // Assess
    expect(afterChange).toBeGreaterThan(0);
    expect(sink.events).toHaveLength(afterChange);
  });

  it('a publish that fails leaves an intent; the next poll publishes the same events and commits', async () => {
    // Prepare
    const { store, sink, detection, failNextPublish } = setup();
    await detection.detect(rec('Active'), scanOf('baseline'), []);
    failNextPublish();
    // Act
    await expect(detection.detect(rec('PaymentIssue'), scanOf('tail'), [])).rejects.toThrow(
      'EventBridge down',
    );
    const stored = (await store.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    const after = (await store.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    // Assess
    expect(splitIntent(stored).published).toHaveLength(1);
    expect(sink.events.length).toBeGreaterThan(0);
    expect(splitIntent(after).published).toHaveLength(0);
  });
});
