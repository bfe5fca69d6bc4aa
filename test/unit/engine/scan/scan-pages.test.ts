import { describe, expect, it } from 'vitest';
import { quarantineKey } from '../../../../lambdas/engine/scan/quarantine';
import { ScanPageReader } from '../../../../lambdas/engine/scan/scan-pages';
import type { EngineScan } from '../../../../lambdas/engine/scan/scan-types';
import {
  DeadlineExceededError,
  type GymApiClient,
  MAX_PAGE_SIZE,
  type Page,
} from '../../../../lambdas/gym-api';
import type { OperationName } from '../../../../lambdas/gym-api/operations';
import { SOURCES } from '../../../../lambdas/sources';
import { sydney, visit } from '../../sources/fixtures';

const pageOf = (items: unknown[], invalid: { raw: unknown; issues: string }[] = []) =>
  ({
    offset: 0,
    limit: 100,
    items,
    invalid,
    rawCount: items.length + invalid.length,
  }) as unknown as Page<OperationName>;

/** A client that records its calls and answers with the given pages, or throws. */
function fakeClient(answer: Page<OperationName>[] | Error) {
  const calls: { operation: string; query: unknown; options: unknown }[] = [];
  const client = {
    async *pages(operation: string, query: unknown, options: unknown) {
      calls.push({ operation, query, options });
      if (answer instanceof Error) throw answer;
      yield* answer;
    },
  } as unknown as GymApiClient;
  return { client, calls };
}

const scan: EngineScan = {
  mode: 'tail',
  fromdate: '2025-06-01T05:00:00',
  nextOffset: 0,
  startedAt: '',
  pages: 0,
  records: 0,
};

describe('ScanPageReader', () => {
  it('splits a page into identified records with times, and records to quarantine', () => {
    // Prepare
    const reader = new ScanPageReader(fakeClient([]).client, SOURCES.visits, sydney, { deadlineMs: 0 });
    const noIdentity = visit({ MemberNumber: '' as never, VisitDateTime: '' as never });
    const page = pageOf(
      [visit({ MemberNumber: 'M1' }), noIdentity],
      [{ raw: { bad: 1 }, issues: 'Door: required' }],
    );
    // Act
    const read = reader.read(page);
    // Assess
    expect(read.identified.map((r) => r.item)).toEqual([visit({ MemberNumber: 'M1' })]);
    expect(read.quarantine.map((q) => q.key)).toEqual([quarantineKey({ bad: 1 }), quarantineKey(noIdentity)]);
    expect([...read.times.values()]).toEqual(['2025-06-01T06:00:00']);
    expect(read.maxRecordMs).toBe(Date.parse('2025-05-31T20:00:00Z'));
  });

  it('queries the source operation with its filter from the offset', async () => {
    // Prepare
    const { client, calls } = fakeClient([pageOf([])]);
    const reader = new ScanPageReader(client, SOURCES.visits, sydney, { deadlineMs: 42, pageSize: 7 });
    // Act
    for await (const _ of reader.pages(scan, 300)) break;
    // Assess
    expect(calls).toEqual([
      {
        operation: SOURCES.visits.operation,
        query: { fromdate: scan.fromdate },
        options: { startOffset: 300, deadline: 42, pageSize: 7 },
      },
    ]);
  });

  it('a verification page is one response of the largest size; out of time it is undefined', async () => {
    // Prepare
    const ok = fakeClient([pageOf([visit()]), pageOf([visit()])]);
    const late = fakeClient(new DeadlineExceededError('late', { operation: SOURCES.visits.operation }));
    // Act
    const page = await new ScanPageReader(ok.client, SOURCES.visits, sydney, {
      deadlineMs: 1,
    }).verificationPage('t');
    const none = await new ScanPageReader(late.client, SOURCES.visits, sydney, {
      deadlineMs: 1,
    }).verificationPage('t');
    // Assess
    expect(page?.items).toHaveLength(1);
    expect(ok.calls[0]?.options).toEqual({ deadline: 1, pageSize: MAX_PAGE_SIZE });
    expect(none).toBeUndefined();
  });
});
