/**
 * Paging and filters against the sandbox over a real socket. The oracle is the sandbox's own view of
 * its data for the same query, parsed with the operation's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MEMBER_STATUSES,
  OPERATION_NAMES,
  type OperationName,
  PROSPECT_STATUSES,
} from '../../../lambdas/gym-api';
import type { Sandbox } from '../../../sandbox';
import { canonical, expectedItems, recordingClient, startTestSandbox } from './sandbox-harness';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox({ clubs: [{ visits: 4200 }] });
});
afterAll(async () => {
  await sandbox.close();
});

/** A fromdate a week before the sandbox clock, in the seed's zone-less format. */
function weekAgo(): string {
  return new Date(sandbox.clock.now().getTime() - 7 * 86_400_000).toISOString().slice(0, 19);
}

describe('paging', () => {
  it('reads several thousand visits in pages of 500, each exactly once and none missing', async () => {
    const { client, dataEvents } = recordingClient(sandbox);
    const expected = expectedItems(sandbox, 0, 'visits');
    expect(expected.length).toBeGreaterThan(4000);

    const offsets: number[] = [];
    const items: unknown[] = [];
    for await (const page of client.pages('visits')) {
      offsets.push(page.offset);
      expect(page.invalid).toEqual([]);
      expect(page.limit).toBe(500);
      items.push(...page.items);
    }

    expect(items).toEqual(expected); // same records, same (stable) order
    const fullPages = Math.floor(expected.length / 500);
    expect(offsets).toEqual(Array.from({ length: fullPages + 1 }, (_, i) => i * 500));
    expect(dataEvents()).toHaveLength(fullPages + 1);
  });

  it('small page sizes deliver the same records', async () => {
    const { client } = recordingClient(sandbox);
    const fromdate = new Date(sandbox.clock.now().getTime() - 2 * 86_400_000).toISOString().slice(0, 19);
    const expected = expectedItems(sandbox, 0, 'visits', { fromdate });
    expect(expected.length).toBeGreaterThan(300);
    for (const pageSize of [37, 100]) {
      const result = await client.fetchAll('visits', { fromdate }, { pageSize });
      expect(result.items).toEqual(expected);
      expect(result.pageCount).toBe(Math.floor(expected.length / pageSize) + 1);
    }
    const one = await client.fetchAll('debtCollection', {}, { pageSize: 1 });
    expect(one.items).toEqual(expectedItems(sandbox, 0, 'debtCollection'));
    expect(one.pageCount).toBe(one.items.length + 1);
  });

  it('resumes from startOffset', async () => {
    const { client } = recordingClient(sandbox);
    const expected = expectedItems(sandbox, 0, 'members');
    const rest = await client.fetchAll('members', {}, { startOffset: 120, pageSize: 50 });
    expect(rest.items).toEqual(expected.slice(120));
  });
});

describe('filters: every filter of every operation', () => {
  it.each(OPERATION_NAMES)('%s: fromdate narrows to what the sandbox holds from that date', async (op) => {
    const { client, dataEvents } = recordingClient(sandbox);
    const fromdate = weekAgo();
    const all = expectedItems(sandbox, 0, op);
    const expected = expectedItems(sandbox, 0, op, { fromdate });

    const result = await client.fetchAll(op, { fromdate }, { pageSize: 200 });

    expect(canonical(result.items)).toEqual(canonical(expected));
    expect(result.invalid).toEqual([]);
    expect(dataEvents().every((e) => e.status === 200)).toBe(true);
    if (all.length > 1) expect(expected.length).toBeLessThan(all.length); // the filter did something
  });

  it('fromdate: the returned dates are on or after it where the seed names the field', async () => {
    const { client } = recordingClient(sandbox);
    const fromdate = weekAgo();
    const visits = await client.fetchAll('visits', { fromdate });
    expect(visits.items.length).toBeGreaterThan(0);
    expect(visits.items.every((v) => (v.VisitDateTime ?? '') >= fromdate)).toBe(true);
    const members = await client.fetchAll('members', { fromdate });
    expect(members.items.every((m) => (m.Membership?.StartDate ?? '') >= fromdate)).toBe(true);
  });

  it('members: updatedate filters by LastUpdatedUtcDateTime', async () => {
    const { client } = recordingClient(sandbox);
    const updatedate = new Date(sandbox.clock.now().getTime() - 3 * 86_400_000).toISOString().slice(0, 19);
    const expected = expectedItems(sandbox, 0, 'members', { updatedate });
    const result = await client.fetchAll('members', { updatedate });
    expect(canonical(result.items)).toEqual(canonical(expected));
    expect(result.items.length).toBeGreaterThan(0);
    expect(result.items.length).toBeLessThan(expectedItems(sandbox, 0, 'members').length);
    expect(result.items.every((m) => (m.LastUpdatedUtcDateTime ?? '') >= updatedate)).toBe(true);
  });

  const statusCases: [OperationName, string][] = [
    ...MEMBER_STATUSES.map((s): [OperationName, string] => ['members', s]),
    ...MEMBER_STATUSES.map((s): [OperationName, string] => ['visits', s]),
    ...PROSPECT_STATUSES.map((s): [OperationName, string] => ['prospects', s]),
  ];

  it.each(statusCases)('%s: status=%s returns what the sandbox holds for it', async (op, status) => {
    const { client } = recordingClient(sandbox);
    const expected = expectedItems(sandbox, 0, op, { status });
    const result = await client.fetchAll(op, { status } as never);
    expect(canonical(result.items)).toEqual(canonical(expected));
    if (op !== 'visits') {
      expect(result.items.every((r) => (r as { Status?: unknown }).Status === status)).toBe(true);
    }
  });

  it('status filters select different, non-empty sets', async () => {
    const { client } = recordingClient(sandbox);
    const active = await client.fetchAll('members', { status: 'Active' });
    const paymentIssue = await client.fetchAll('members', { status: 'PaymentIssue' });
    expect(active.items.length).toBeGreaterThan(0);
    expect(paymentIssue.items.length).toBeGreaterThan(0);
    const activeNumbers = new Set(active.items.map((m) => m.Number));
    expect(paymentIssue.items.some((m) => activeNumbers.has(m.Number))).toBe(false);
    // The visits status filter is the visiting member's status.
    const paymentIssueVisits = await client.fetchAll('visits', { status: 'PaymentIssue' });
    expect(paymentIssueVisits.items.length).toBeGreaterThan(0);
    const paymentIssueNumbers = new Set(paymentIssue.items.map((m) => m.Number));
    expect(paymentIssueVisits.items.every((v) => paymentIssueNumbers.has(v.MemberNumber))).toBe(true);
  });

  it('fromdate and status combine', async () => {
    const { client } = recordingClient(sandbox);
    const fromdate = weekAgo();
    const both = expectedItems(sandbox, 0, 'visits', { fromdate, status: 'PaymentIssue' });
    const result = await client.fetchAll('visits', { fromdate, status: 'PaymentIssue' });
    expect(canonical(result.items)).toEqual(canonical(both));
    expect(both.length).toBeGreaterThan(0);
    expect(both.length).toBeLessThan(expectedItems(sandbox, 0, 'visits', { fromdate }).length);
    expect(both.length).toBeLessThan(expectedItems(sandbox, 0, 'visits', { status: 'PaymentIssue' }).length);
  });
});
