/**
 * Every source in SOURCES, table-driven: the table is keyed by SourceName, so a new source fails to
 * compile here until it has a row.
 */
import { describe, expect, it } from 'vitest';
import { type BridgeEvent, EVENT_SCHEMAS } from '../../../lambdas/events/catalog';
import { OPERATIONS } from '../../../lambdas/gym-api/operations';
import { SOURCE_ORDER, SOURCES } from '../../../lambdas/sources';
import {
  type ClubContext,
  type Facet,
  type SourceDefinition,
  tailLookbackFor,
} from '../../../lambdas/sources/source';
import { type Snapshot, SOURCE_NAMES, type SourceName } from '../../../lambdas/state/store';
import {
  classAttendance,
  debtCollection,
  disbursement,
  member,
  payment,
  posTransaction,
  prospect,
  sydney,
  visit,
} from './fixtures';

interface Row {
  /** A complete record as the API returns it. */
  readonly record: unknown;
  /** The same record without a field its identity needs (null: every record has an identity). */
  readonly unidentified: unknown;
  /** recordTime of `record` (undefined: the source has none). */
  readonly recordTime: string | undefined;
}

const TABLE: Record<SourceName, Row> = {
  members: {
    record: member(),
    unidentified: member({ Number: null }),
    recordTime: '2025-06-01T06:00:00',
  },
  prospects: { record: prospect(), unidentified: prospect({ Number: undefined }), recordTime: undefined },
  visits: {
    record: visit(),
    unidentified: visit({ VisitDateTime: null }),
    recordTime: '2025-06-01T06:00:00',
  },
  paymentHistory: {
    record: payment(),
    unidentified: payment({ Id: null }),
    recordTime: '2025-06-01T06:00:00',
  },
  posTransactions: {
    record: posTransaction(),
    unidentified: posTransaction({ PosTransactionId: undefined }),
    recordTime: '2025-06-01T06:00:00',
  },
  disbursements: {
    record: disbursement(),
    unidentified: disbursement({ TransactionDate: null, DisbursementDate: null }),
    recordTime: '2025-06-01T06:00:00',
  },
  debtCollection: {
    record: debtCollection(),
    unidentified: debtCollection({ MemberNumber: undefined }),
    recordTime: '2025-06-01T06:00:00',
  },
  classAttendance: { record: classAttendance(), unidentified: null, recordTime: '2025-06-01T06:00:00' },
};

type Loose = {
  identity: (i: unknown) => string | undefined;
  recordTime?: (i: unknown) => string | null | undefined;
};

/** The events the engine would publish for a record it has never seen (not a baseline). */
function firstSightingEvents(source: SourceDefinition, record: unknown, ctx: ClubContext): BridgeEvent[] {
  const id = (source as Loose).identity(record)!;
  if (source.kind === 'append') {
    const facets = (source.facets as (i: unknown, id: string) => Facet[])(record, id);
    return facets.flatMap((f) => f.events(ctx));
  }
  const snapshot = (source.snapshot as (...a: unknown[]) => Snapshot)(record, id, undefined, ctx);
  return (source.diff as (...a: unknown[]) => BridgeEvent[])(undefined, record, snapshot, ctx);
}

describe('SOURCES', () => {
  it('has one source per source name, named after its key, and SOURCE_ORDER lists each once', () => {
    expect(Object.keys(SOURCES).sort()).toEqual([...SOURCE_NAMES].sort());
    for (const [key, source] of Object.entries(SOURCES)) expect(source.name).toBe(key);
    expect([...SOURCE_ORDER].sort()).toEqual([...SOURCE_NAMES].sort());
    expect(new Set(SOURCE_ORDER).size).toBe(SOURCE_ORDER.length);
    expect(SOURCE_ORDER[0]).toBe('members');
  });

  describe.each(SOURCE_NAMES)('%s', (name) => {
    const source = SOURCES[name];
    const row = TABLE[name];
    const loose = source as unknown as Loose;

    it('polls an operation that takes its filter parameter', () => {
      const operation = OPERATIONS[source.operation];
      expect(operation.params as readonly string[]).toContain(source.filterParam);
      expect(operation.itemSchema.safeParse(row.record).success).toBe(true);
    });

    it('identifies the record, and not one missing a required field', () => {
      expect(loose.identity(row.record)).toEqual(expect.any(String));
      if (row.unidentified !== null) expect(loose.identity(row.unidentified)).toBeUndefined();
    });

    it('reads the record time from the filtered field', () => {
      expect(loose.recordTime?.(row.record) ?? undefined).toBe(row.recordTime);
    });

    it('turns a first sighting into valid events of its own source', () => {
      const events = firstSightingEvents(source, row.record, sydney);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) {
        expect(event.detail.source).toBe(name);
        expect(event.detail.clubId).toBe(sydney.clubId);
        expect(EVENT_SCHEMAS[event.detailType].safeParse(event.detail).success).toBe(true);
      }
    });

    it('re-reads enough to absorb either reading of a zone the API does not state, until it is confirmed', () => {
      // A zone-less value read as local instead of UTC (or back) moves by the club's offset, up to
      // 14 hours: the unconfirmed lookback covers it. Zones the API states, and a reading the
      // operator has confirmed, need only cover late arrivals (the chaos suite's go up to 55 min).
      const unconfirmed = tailLookbackFor(source, { unstatedZoneConfirmed: false });
      const confirmed = tailLookbackFor(source, { unstatedZoneConfirmed: true });
      expect(confirmed).toBe(source.tailLookbackMs);
      expect(confirmed).toBeGreaterThan(0);
      if (source.filterZone === 'unstated') {
        expect(confirmed).toBeGreaterThanOrEqual(3_600_000);
        expect(unconfirmed).toBeGreaterThanOrEqual(15 * 3_600_000);
      } else expect(unconfirmed).toBe(confirmed);
      expect(unconfirmed).toBeGreaterThanOrEqual(confirmed);
      if (source.sweep) expect(source.sweep.windowMs).toBeGreaterThanOrEqual(unconfirmed);
    });
  });
});
