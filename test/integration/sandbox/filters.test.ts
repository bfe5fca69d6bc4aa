import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../../lambdas/gym-api/operations';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { formatNaive, parseNaive, TimeZone } from '../../../sandbox/naive-time';
import { getAll, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';

/** The field each operation's fromdate filters by (prospects: a hidden field, tested apart). */
const FILTER_FIELD: Partial<Record<OperationName, (r: Record<string, unknown>) => string>> = {
  members: (r) => (r.Membership as { StartDate: string }).StartDate,
  visits: (r) => String(r.VisitDateTime),
  paymentHistory: (r) => String(r.PaymentDate),
  posTransactions: (r) => String(r.TransactionDate),
  disbursements: (r) => String(r.TransactionDate),
  debtCollection: (r) => String(r.DebtCollectionDate),
  classAttendance: (r) => String(r.ClassDateTime),
};

const PATHS: Record<OperationName, string> = {
  members: '/members',
  visits: '/members/attendance/visits',
  paymentHistory: '/members/payment/history',
  posTransactions: '/members/pos/transactions',
  prospects: '/prospects',
  disbursements: '/financial/disbursements',
  debtCollection: '/financial/debtcollection',
  classAttendance: '/members/attendance/classes',
};

const ms = (naive: string) => {
  const v = parseNaive(naive);
  if (v === undefined) throw new Error(`bad date-time ${naive}`);
  return v;
};

describe('sandbox fromdate / updatedate / status filters', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;
  const club = 'club-1';

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 21, clubs: 1, members: 150, startTime: START });
    sandbox.advance(2 * 86_400_000);
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  it.each(Object.keys(FILTER_FIELD) as OperationName[])(
    '%s: fromdate is inclusive (>=) on its field, in the field order',
    async (op) => {
      const field = FILTER_FIELD[op];
      if (!field) throw new Error('no field');
      const all = sandbox.records(club, op);
      expect(all.length).toBeGreaterThan(3);
      const pivot = field(all[Math.floor(all.length / 2)] ?? {});
      const expected = all.filter((r) => ms(field(r)) >= ms(pivot));
      const got = await getAll(sandbox, token, apiKey, PATHS[op], { fromdate: pivot });
      expect(got).toEqual(expected);
      expect(got.some((r) => field(r) === pivot)).toBe(true);
      // One second later drops the records stamped exactly at the pivot.
      const later = formatNaive(ms(pivot) + 1000);
      const after = await getAll(sandbox, token, apiKey, PATHS[op], { fromdate: later });
      expect(after).toEqual(all.filter((r) => ms(field(r)) >= ms(later)));
      expect(after.some((r) => field(r) === pivot)).toBe(false);
    },
  );

  it('members: updatedate filters LastUpdatedUtcDateTime and orders by it; both dates combine', async () => {
    const all = sandbox.records(club, 'members');
    const updated = all.map((m) => String(m.LastUpdatedUtcDateTime)).sort();
    const pivot = updated[Math.floor(updated.length * 0.9)] ?? '';
    const got = await getAll(sandbox, token, apiKey, '/members', { updatedate: pivot });
    const expectedNumbers = all
      .filter((m) => ms(String(m.LastUpdatedUtcDateTime)) >= ms(pivot))
      .map((m) => m.Number);
    expect(got.map((m) => m.Number).sort()).toEqual(expectedNumbers.sort());
    const order = got.map((m) => ms(String(m.LastUpdatedUtcDateTime)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const start = '2025-01-01T00:00:00';
    const both = await getAll(sandbox, token, apiKey, '/members', { updatedate: pivot, fromdate: start });
    expect(both.map((m) => m.Number).sort()).toEqual(
      got
        .filter((m) => ms((m.Membership as { StartDate: string }).StartDate) >= ms(start))
        .map((m) => m.Number)
        .sort(),
    );
  });

  it('members and visits: status filters on the member current status', async () => {
    const members = sandbox.records(club, 'members');
    const statusOf = new Map(members.map((m) => [m.Number, m.Status]));
    for (const status of ['Active', 'Suspended', 'PaymentIssue', 'Archived']) {
      const got = await getAll(sandbox, token, apiKey, '/members', { status });
      expect(got).toEqual(members.filter((m) => m.Status === status));
    }
    const visits = sandbox.records(club, 'visits');
    const issueVisits = await getAll(sandbox, token, apiKey, '/members/attendance/visits', {
      status: 'PaymentIssue',
    });
    expect(issueVisits).toEqual(visits.filter((v) => statusOf.get(v.MemberNumber) === 'PaymentIssue'));
    expect(issueVisits.length).toBeGreaterThan(0);
    const from = String(visits[Math.floor(visits.length / 2)]?.VisitDateTime);
    const activeLate = await getAll(sandbox, token, apiKey, '/members/attendance/visits', {
      status: 'Active',
      fromdate: from,
    });
    expect(activeLate).toEqual(
      visits.filter(
        (v) => statusOf.get(v.MemberNumber) === 'Active' && ms(String(v.VisitDateTime)) >= ms(from),
      ),
    );
  });

  it('prospects: status filters on the prospect status', async () => {
    const prospects = sandbox.records(club, 'prospects');
    for (const status of ['Enquiry', 'Sale', 'OnTrial']) {
      const got = await getAll(sandbox, token, apiKey, '/prospects', { status });
      expect(got.map((p) => p.Number).sort()).toEqual(
        prospects
          .filter((p) => p.Status === status)
          .map((p) => String(p.Number))
          .sort(),
      );
    }
  });
});

describe.each(['local', 'utc'] as const)('ambiguousZone %s', (ambiguousZone) => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;
  const zone = new TimeZone('Australia/Sydney');
  const write = (utcMs: number) => formatNaive(ambiguousZone === 'local' ? zone.toNaive(utcMs) : utcMs);

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 31, clubs: 1, members: 200, startTime: START, ambiguousZone });
    sandbox.advance(86_400_000);
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  it('writes payment and POS dates in that zone, and visits always in local time', () => {
    const entries = sandbox.journal.entries();
    let payments = 0;
    let sales = 0;
    let visits = 0;
    for (const e of entries) {
      const at = Date.parse(e.at);
      const second = Math.floor(at / 1000) * 1000;
      if (e.kind === 'paymentRecorded') {
        payments++;
        expect(e.paymentDate).toBe(write(second));
      } else if (e.kind === 'posTransaction') {
        sales++;
        expect(e.transactionDate).toBe(write(second));
      } else if (e.kind === 'visit') {
        visits++;
        expect(e.visitDateTime).toBe(formatNaive(zone.toNaive(second)));
      }
    }
    expect(payments * sales * visits).toBeGreaterThan(0);
  });

  it('reads the prospects fromdate (last status update) in that zone', async () => {
    const cut = Date.parse(START) + 12 * 3_600_000;
    const lastChange = new Map<string, number>();
    for (const e of sandbox.journal.entries()) {
      if (e.kind === 'prospectCreated' || e.kind === 'prospectStatusChanged')
        lastChange.set(e.prospectNumber, Date.parse(e.at));
    }
    const expected = [...lastChange].filter(([, at]) => at >= cut).map(([n]) => n);
    expect(expected.length).toBeGreaterThan(0);
    const got = await getAll(sandbox, token, apiKey, '/prospects', { fromdate: write(cut) });
    expect(got.map((p) => String(p.Number)).sort()).toEqual(expected.sort());
  });
});
