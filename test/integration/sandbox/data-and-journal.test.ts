import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { OPERATION_NAMES } from '../../../lambdas/gym-api/operations';
import { MEMBER_STATUSES, PROSPECT_STATUSES } from '../../../lambdas/gym-api/statuses';
import { type JournalEntry, PAYMENT_RESPONSES, type Sandbox, startSandbox } from '../../../sandbox';
import { getAll, rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
const DAY = 86_400_000;
const RESPONSES = new Set<string>([
  PAYMENT_RESPONSES.approved,
  ...PAYMENT_RESPONSES.declined,
  ...PAYMENT_RESPONSES.dishonoured,
]);

type Entry<K extends JournalEntry['kind']> = Extract<JournalEntry, { kind: K }>;
const ofKind = <K extends JournalEntry['kind']>(entries: JournalEntry[], kind: K) =>
  entries.filter((e): e is Entry<K> => e.kind === kind);

describe('sandbox data and ground-truth journal', () => {
  let sandbox: Sandbox;
  let token: string;
  let before: Map<string, Record<string, unknown>>;
  let seqBefore: number;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 42, members: 300, startTime: START });
    before = new Map(sandbox.records('club-1', 'paymentHistory').map((p) => [String(p.Id), p]));
    seqBefore = sandbox.journal.lastSeq;
    sandbox.advance(6 * DAY);
    token = await requestToken(sandbox);
  });
  afterAll(() => sandbox.close());

  it('starts with an empty journal: the initial history is not journaled', async () => {
    const fresh = await startSandbox({ seed: 42, members: 20, clubs: 1, startTime: START });
    try {
      expect(fresh.journal.lastSeq).toBe(0);
      expect(fresh.records('club-1', 'visits').length).toBeGreaterThan(0);
      fresh.advance(DAY);
      expect(fresh.journal.lastSeq).toBeGreaterThan(0);
    } finally {
      await fresh.close();
    }
    expect(seqBefore).toBe(0);
  });

  it('writes int64 ids above 2^53 as bare JSON integer literals', async () => {
    const apiKey = sandbox.clubs[0]?.apiKey ?? '';
    const payments = await rawGet(sandbox, '/members/payment/history?limit=3', { token, apiKey });
    expect(payments.text).toMatch(/"Id":9007199254740993[,}]/);
    // Plain JSON.parse would round it; the int64-safe parser keeps every digit.
    const naive = JSON.parse(payments.text) as { data: { Id: number }[] };
    expect(String(naive.data[0]?.Id)).not.toBe('9007199254740993');
    const safe = parseJsonPreservingInt64(payments.text) as { data: { Id: string }[] };
    expect(safe.data[0]?.Id).toBe('9007199254740993');
    const pos = await rawGet(sandbox, '/members/pos/transactions?limit=1', { token, apiKey });
    expect(pos.text).toMatch(/"PosTransactionId":9007199254\d{6}[,}]/);
    expect(pos.text).toMatch(/"ItemId":9007199255\d{6}[,}]/);
  });

  it('keeps journal seq increasing, timestamps within the advanced span, and every kind present', () => {
    const entries = sandbox.journal.entries();
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    const start = Date.parse(START);
    const end = sandbox.clock.now().getTime();
    for (const e of entries) {
      expect(e.at).toMatch(/Z$/);
      const at = Date.parse(e.at);
      expect(at).toBeGreaterThanOrEqual(start);
      expect(at).toBeLessThan(end);
    }
    const kinds = new Set(entries.map((e) => e.kind));
    for (const kind of [
      'visit',
      'paymentRecorded',
      'paymentResponseChanged',
      'paymentRefunded',
      'posTransaction',
      'disbursement',
      'debtCollection',
      'memberJoined',
      'memberStatusChanged',
      'membershipCancelled',
      'memberContactPreferencesChanged',
      'memberDetailsChanged',
      'prospectCreated',
      'prospectStatusChanged',
      'classAttendance',
    ] as const) {
      expect(kinds.has(kind), kind).toBe(true);
    }
    expect(sandbox.journal.entries(entries.length - 5).map((e) => e.seq)).toEqual(
      entries.slice(-5).map((e) => e.seq),
    );
  });

  it('matches the journal against the data served over HTTP', async () => {
    for (const club of sandbox.clubs) {
      const entries = sandbox.journal.entries().filter((e) => e.clubId === club.clubId);
      const get = (path: string, q: Record<string, string> = {}) =>
        getAll(sandbox, token, club.apiKey, path, q);
      const visits = await get('/members/attendance/visits', { fromdate: '2025-03-08T00:00:00' });
      const visitKeys = new Set(
        visits.map((v) => `${v.MemberNumber}|${v.VisitDateTime}|${v.Door}|${v.ScanSource}`),
      );
      for (const v of ofKind(entries, 'visit')) {
        expect(visitKeys.has(`${v.memberNumber}|${v.visitDateTime}|${v.door}|${v.scanSource}`)).toBe(true);
      }
      const payments = new Map((await get('/members/payment/history')).map((p) => [String(p.Id), p]));
      for (const p of ofKind(entries, 'paymentRecorded')) {
        const served = payments.get(p.paymentId);
        expect(served?.PaymentDate).toBe(p.paymentDate);
        expect(served?.Number).toBe(p.memberNumber);
        expect(served?.PaymentType).toBe(p.paymentType);
      }
      const lastResponse = new Map<string, string>();
      for (const e of entries) {
        if (e.kind === 'paymentRecorded') lastResponse.set(e.paymentId, e.response);
        if (e.kind === 'paymentResponseChanged') lastResponse.set(e.paymentId, e.current);
      }
      for (const [id, response] of lastResponse) expect(payments.get(id)?.Response).toBe(response);
      for (const r of ofKind(entries, 'paymentRefunded')) {
        expect(payments.get(r.paymentId)?.Refund).toEqual({
          IsRefunded: true,
          RefundedPaymentId: r.refundedPaymentId,
        });
      }
      const members = new Map((await get('/members')).map((m) => [String(m.Number), m]));
      const lastStatus = new Map<string, string>();
      for (const e of entries) {
        if (e.kind === 'memberJoined') lastStatus.set(e.memberNumber, e.status);
        if (e.kind === 'memberStatusChanged') lastStatus.set(e.memberNumber, e.current);
      }
      for (const [number, status] of lastStatus) expect(members.get(number)?.Status).toBe(status);
      for (const c of ofKind(entries, 'membershipCancelled')) {
        const membership = members.get(c.memberNumber)?.Membership as
          | { CancellationDate?: string }
          | undefined;
        expect(membership?.CancellationDate).toBe(c.cancellationDate);
      }
      const lastPrefs = new Map<string, { optOutEmail: boolean; optOutSms: boolean }>();
      for (const c of ofKind(entries, 'memberContactPreferencesChanged'))
        lastPrefs.set(c.memberNumber, c.current);
      for (const [number, prefs] of lastPrefs) {
        const contact = members.get(number)?.Contact as { OptOutEmail: boolean; OptOutSms: boolean };
        expect({ optOutEmail: contact.OptOutEmail, optOutSms: contact.OptOutSms }).toEqual(prefs);
      }
      const prospects = new Map((await get('/prospects')).map((p) => [String(p.Number), p]));
      const lastProspect = new Map<string, string>();
      for (const e of entries) {
        if (e.kind === 'prospectCreated') lastProspect.set(e.prospectNumber, e.status);
        if (e.kind === 'prospectStatusChanged') lastProspect.set(e.prospectNumber, e.current);
      }
      for (const [number, status] of lastProspect) expect(prospects.get(number)?.Status).toBe(status);
      const pos = new Set((await get('/members/pos/transactions')).map((t) => String(t.PosTransactionId)));
      for (const t of ofKind(entries, 'posTransaction')) expect(pos.has(t.posTransactionId)).toBe(true);
      const disbursements = await get('/financial/disbursements');
      const disbursementKeys = new Set(
        disbursements.map((d) => `${d.MemberNumber}|${d.TransactionDate}|${d.Amount}`),
      );
      for (const d of ofKind(entries, 'disbursement')) {
        expect(disbursementKeys.has(`${d.memberNumber}|${d.transactionDate}|${d.amount}`)).toBe(true);
      }
      const debts = new Set(
        (await get('/financial/debtcollection')).map((d) => `${d.MemberNumber}|${d.DebtCollectionDate}`),
      );
      for (const d of ofKind(entries, 'debtCollection'))
        expect(debts.has(`${d.memberNumber}|${d.debtCollectionDate}`)).toBe(true);
      const classes = new Set((await get('/members/attendance/classes')).map((c) => c.AttendanceId));
      for (const c of ofKind(entries, 'classAttendance')) expect(classes.has(c.attendanceId)).toBe(true);
    }
  });

  it('dishonours an Approved direct debit in place (same Id and PaymentDate) and charges a separate fee', () => {
    const entries = sandbox.journal.entries().filter((e) => e.clubId === 'club-1');
    const dishonours = ofKind(entries, 'paymentResponseChanged');
    expect(dishonours.length).toBeGreaterThan(0);
    const now = new Map(sandbox.records('club-1', 'paymentHistory').map((p) => [String(p.Id), p]));
    const recorded = new Map(ofKind(entries, 'paymentRecorded').map((p) => [p.paymentId, p]));
    for (const d of dishonours) {
      expect(d.previous).toBe('Approved');
      expect(PAYMENT_RESPONSES.dishonoured).toContain(d.current);
      const payment = now.get(d.paymentId);
      expect(payment?.PaymentType).toBe('DD');
      const original = before.get(d.paymentId) ?? { PaymentDate: recorded.get(d.paymentId)?.paymentDate };
      expect(payment?.PaymentDate).toBe(original.PaymentDate);
      const at = Date.parse(d.at);
      const fee = [...now.values()].find(
        (p) =>
          p.Number === d.memberNumber &&
          (p.FeeBreakdown as { DishonourFee: number }[])[0]?.DishonourFee &&
          recorded.get(String(p.Id)) &&
          Date.parse(recorded.get(String(p.Id))?.at ?? '') === at,
      );
      expect(fee, `dishonour fee for ${d.paymentId}`).toBeDefined();
    }
  });

  it('uses the fixed Response vocabulary and realistic statuses and memberships', () => {
    for (const club of sandbox.clubs) {
      const payments = sandbox.records(club.clubId, 'paymentHistory');
      for (const p of payments) expect(RESPONSES.has(String(p.Response))).toBe(true);
      const members = sandbox.records(club.clubId, 'members');
      const active = members.filter((m) => m.Status === 'Active').length;
      expect(active / members.length).toBeGreaterThan(0.6);
      for (const m of members) {
        expect(MEMBER_STATUSES).toContain(m.Status);
        const ms = m.Membership as { Type: string; ExpiryDate?: string };
        expect(ms.Type === 'Paid in Full').toBe(ms.ExpiryDate !== undefined);
      }
      for (const p of sandbox.records(club.clubId, 'prospects'))
        expect(PROSPECT_STATUSES).toContain(p.Status);
    }
  });

  it('serves the journal on the admin route, from a seq and per club', async () => {
    const origin = new URL(sandbox.url).origin;
    const since = sandbox.journal.lastSeq - 10;
    const res = await fetch(`${origin}/__admin/journal?since=${since}`);
    const body = (await res.json()) as { lastSeq: number; entries: JournalEntry[] };
    expect(body.lastSeq).toBe(sandbox.journal.lastSeq);
    expect(body.entries).toEqual(sandbox.journal.entries(since));
    const club2 = (await (await fetch(`${origin}/__admin/journal?clubId=club-2`)).json()) as {
      entries: JournalEntry[];
    };
    expect(club2.entries.length).toBeGreaterThan(0);
    expect(club2.entries.every((e) => e.clubId === 'club-2')).toBe(true);
    expect((await fetch(`${origin}/__admin/journal?since=-1`)).status).toBe(400);
  });
});

describe('sandbox determinism', () => {
  it('gives the same data, keys and journal for the same seed, and different data for another', async () => {
    const options = { members: 80, startTime: START };
    const [a, b, c] = await Promise.all([
      startSandbox({ ...options, seed: 77 }),
      startSandbox({ ...options, seed: 77 }),
      startSandbox({ ...options, seed: 78 }),
    ]);
    try {
      expect(a.clubs).toEqual(b.clubs);
      expect(a.integrator).toEqual(b.integrator);
      expect(a.clubs[0]?.apiKey).not.toBe(c.clubs[0]?.apiKey);
      for (const sb of [a, b, c]) sb.advance(DAY / 2);
      for (const club of a.clubs) {
        for (const op of OPERATION_NAMES) {
          expect(a.records(club.clubId, op)).toEqual(b.records(club.clubId, op));
        }
      }
      expect(a.journal.entries()).toEqual(b.journal.entries());
      expect(a.records('club-1', 'members')).not.toEqual(c.records('club-1', 'members'));
      // The raw HTTP bodies agree too (ports differ, so compare the data part).
      const [ta, tb] = await Promise.all([requestToken(a), requestToken(b)]);
      const key = a.clubs[0]?.apiKey ?? '';
      const [ra, rb] = await Promise.all([
        rawGet(a, '/members/payment/history?limit=50', { token: ta, apiKey: key }),
        rawGet(b, '/members/payment/history?limit=50', { token: tb, apiKey: key }),
      ]);
      const dataOf = (text: string) => text.slice(text.indexOf('"data":'));
      expect(dataOf(ra.text)).toBe(dataOf(rb.text));
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});
