import { describe, expect, it } from 'vitest';
import { AppendDetection } from '../../../../lambdas/engine/scan/append-detection';
import { publishPageEvents } from '../../../../lambdas/engine/scan/publish-commit';
import type { ScanMode } from '../../../../lambdas/engine/scan/scan-types';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { SOURCES } from '../../../../lambdas/sources';
import type { AppendSource } from '../../../../lambdas/sources/source';
import { MemoryStateStore } from '../../../../lambdas/state';
import { sydney, visit } from '../../sources/fixtures';

const visits = SOURCES.visits as AppendSource;
const records = [visit({ MemberNumber: 'M1' }), visit({ MemberNumber: 'M2' })].map((item) => ({
  id: visits.identity(item as never)!,
  item,
}));

function setup() {
  const store = new MemoryStateStore();
  const sink = new MemorySink();
  const detector = () =>
    new AppendDetection(store, sydney, visits, sydney.observedAtMs, async (page, quarantine) => {
      await publishPageEvents(sink, page, quarantine);
    });
  return { store, sink, detector };
}

const run = (detection: AppendDetection, mode: ScanMode) => detection.detect(records, mode, []);

describe('AppendDetection', () => {
  it('a baseline publishes nothing and files every facet as seen', async () => {
    // Prepare
    const { sink, detector } = setup();
    // Act
    await run(detector(), 'baseline');
    await run(detector(), 'tail');
    // Assess
    expect(sink.events).toHaveLength(0);
  });

  it('a tail publishes each new facet once, across scans', async () => {
    // Prepare
    const { sink, detector } = setup();
    // Act
    await run(detector(), 'tail');
    const first = sink.events.length;
    await run(detector(), 'tail');
    // Assess
    expect(first).toBeGreaterThanOrEqual(2);
    expect(sink.events).toHaveLength(first);
  });

  it('a backfill publishes seen facets again, with the same eventIds', async () => {
    // Prepare
    const { sink, detector } = setup();
    await run(detector(), 'tail');
    const ids = sink.events.map((e) => e.detail.eventId);
    // Act
    await run(detector(), 'backfill');
    // Assess
    expect(sink.events.slice(ids.length).map((e) => e.detail.eventId)).toEqual(ids);
  });

  it('keeps what it filed within one scan: a page read again publishes nothing', async () => {
    // Prepare
    const { sink, detector } = setup();
    const detection = detector();
    // Act
    await run(detection, 'tail');
    const first = sink.events.length;
    await run(detection, 'tail');
    // Assess
    expect(sink.events).toHaveLength(first);
  });
});
