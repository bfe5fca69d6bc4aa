import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppendDetection, seenTime } from '../../../../lambdas/engine/scan/append-detection';
import { publishPageEvents } from '../../../../lambdas/engine/scan/publish-commit';
import { ScanPageReader } from '../../../../lambdas/engine/scan/scan-pages';
import type { ScanMode } from '../../../../lambdas/engine/scan/scan-types';
import { MemorySink } from '../../../../lambdas/events/publisher';
import type { GymApiClient } from '../../../../lambdas/gym-api';
import { SOURCES } from '../../../../lambdas/sources';
import type { AppendSource } from '../../../../lambdas/sources/source';
import { MemoryStateStore } from '../../../../lambdas/state';
import { openSession } from '../../../support/state-seeds';
import { sydney, visit } from '../../sources/fixtures';

const visits = SOURCES.visits as AppendSource;
const records = [visit({ MemberNumber: 'M1' }), visit({ MemberNumber: 'M2' })].map((item) => ({
  id: visits.identity(item as never)!,
  item,
}));

async function setup() {
  const store = new MemoryStateStore();
  const session = await openSession(store, sydney.clubId);
  const sink = new MemorySink();
  const detector = () =>
    new AppendDetection(session, sydney, visits, sydney.observedAtMs, async (page, quarantine) => {
      await publishPageEvents(sink, page, quarantine);
    });
  return { store, session, sink, detector };
}

const run = (detection: AppendDetection, mode: ScanMode) => detection.detect(records, { mode }, []);

describe('AppendDetection', () => {
  it('a baseline publishes nothing and files every facet as seen', async () => {
    // Prepare
    const { sink, detector } = await setup();
    // Act
    await run(detector(), 'baseline');
    await run(detector(), 'tail');
    // Assess
    expect(sink.events).toHaveLength(0);
  });

  it('a tail publishes each new facet once, across scans', async () => {
    // Prepare
    const { sink, detector } = await setup();
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
    const { sink, detector } = await setup();
    await run(detector(), 'tail');
    const ids = sink.events.map((e) => e.detail.eventId);
    // Act
    await run(detector(), 'backfill');
    // Assess
    expect(sink.events.slice(ids.length).map((e) => e.detail.eventId)).toEqual(ids);
  });

  it('keeps what it filed within one scan: a page read again publishes nothing', async () => {
    // Prepare
    const { sink, detector } = await setup();
    const detection = detector();
    // Act
    await run(detection, 'tail');
    const first = sink.events.length;
    await run(detection, 'tail');
    // Assess
    expect(sink.events).toHaveLength(first);
  });

  it("reads each record's time once: the page reader's instant is the seen entry's time", async () => {
    // Prepare: a source that counts its record-time reads
    let reads = 0;
    const counted: AppendSource = {
      ...visits,
      recordTime: (v) => {
        reads++;
        return visits.recordTime!(v as never);
      },
    };
    const { store, session, sink } = await setup();
    const items = [
      visit({ MemberNumber: 'M1' }),
      visit({ MemberNumber: 'M2', VisitDateTime: '2025-06-01T07:30:00' }),
    ];
    const reader = new ScanPageReader({} as GymApiClient, counted, sydney, { deadlineMs: 0 });
    const detection = new AppendDetection(session, sydney, counted, sydney.observedAtMs, (page, q) =>
      publishPageEvents(sink, page, q).then(() => undefined),
    );
    // Act
    const page = reader.read({ offset: 0, limit: 500, items, invalid: [], rawCount: items.length });
    await detection.detect(page.identified, { mode: 'tail' }, []);
    // Assess: 06:00 and 07:30 in Sydney (AEST) are 20:00Z and 21:30Z the day before
    const entries = await store.parts.seen.seenEntriesSince(
      sydney.clubId,
      'visits',
      '2025-05-01T00:00:00.000Z',
      0,
    );
    expect(entries.map((e) => e.at).sort()).toEqual(['2025-05-31T20:00:00.000Z', '2025-05-31T21:30:00.000Z']);
    expect(reads).toBe(2); // the reader's, one a record
  });
});

describe('seenTime', () => {
  /** The rule before instants were kept as numbers: the ISO form if 24 characters, read back. */
  const viaIso = (ms: number) => {
    if (!Number.isFinite(ms)) return undefined;
    try {
      const at = new Date(ms).toISOString();
      return at.length === 24 ? Date.parse(at) : undefined;
    } catch {
      return undefined;
    }
  };

  it('takes the instants whose ISO form has 24 characters (years 0-9999), as whole ms', () => {
    const edges = [
      -62_167_219_200_001,
      -62_167_219_200_000,
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      8.64e15 + 1,
      -8.64e15 - 1,
      0,
      -0.5,
      1.5,
      -1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    ];
    for (const ms of edges) expect(seenTime(ms), String(ms)).toBe(viaIso(ms));
    fc.assert(
      fc.property(fc.double({ min: -1e16, max: 1e16 }), (ms) => {
        expect(seenTime(ms)).toBe(viaIso(ms));
      }),
      { numRuns: 5_000 },
    );
  });
});
