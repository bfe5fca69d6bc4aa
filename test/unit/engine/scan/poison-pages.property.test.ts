/**
 * Property-based: pages mixing good records with arbitrary ones, through the whole engine
 * (pollClub: the real API client reading the JSON text, the engine's page reader, the append or the
 * state detector, the publisher, the quarantine and the cursor), for every source of the API
 * document. The fetch is scripted (no network) and the store is in memory, so hundreds of pages run
 * in seconds. Whatever a poison record holds (strings of any length and content, lone surrogates,
 * nulls, wrong types, int64 in forms that would round, nesting thousands deep, fields of 300 KB,
 * unknown fields, exact duplicates of good records):
 *
 * - the poll does not fail (the source completes: nothing thrown past the quarantine);
 * - every good record is published;
 * - the watermark reaches the good records' time;
 * - no more records are quarantined than poison was sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClubsFile } from '../../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../../../lambdas/events/publisher';
import type { FetchFn } from '../../../../lambdas/gym-api';
import { MemoryStateStore, type SourceName } from '../../../../lambdas/state';

const START = Date.parse('2026-05-04T08:00:00Z');
/** Local (Sydney, +10) and UTC forms of a few minutes before the poll. */
const LOCAL = (m: number) => `2026-05-04T17:${String(50 + m).padStart(2, '0')}:00`;
const UTC = (m: number) => `2026-05-04T07:${String(50 + m).padStart(2, '0')}:00`;

interface SourceCase {
  readonly source: SourceName;
  readonly path: string;
  /** A valid record whose identity carries `id` (a G-prefixed marker), at minute `m`. */
  readonly good: (id: string, m: number) => Record<string, unknown>;
  /** The field whose value names the record (for mutations that keep an identity). */
  readonly identityField: string;
}

const CASES: readonly SourceCase[] = [
  {
    source: 'members',
    path: '/members',
    identityField: 'Number',
    good: (id, m) => ({
      Number: id,
      FirstName: 'Ada',
      Status: 'Active',
      LastUpdatedUtcDateTime: UTC(m),
      Contact: { Email: 'a@example.com', OptOutEmail: false, OptOutSms: false },
      Membership: { Id: 3, Name: 'Gold', StartDate: LOCAL(m), Type: 'DD' },
    }),
  },
  {
    source: 'prospects',
    path: '/prospects',
    identityField: 'Number',
    good: (id, m) => ({ Number: id, FirstName: 'Bo', Status: 'Enquiry', CreatedDateUtc: UTC(m) }),
  },
  {
    source: 'visits',
    path: '/members/attendance/visits',
    identityField: 'MemberNumber',
    good: (id, m) => ({ MemberNumber: id, Door: 'Main', ScanSource: 'Kiosk', VisitDateTime: LOCAL(m) }),
  },
  {
    source: 'paymentHistory',
    path: '/members/payment/history',
    identityField: 'Id',
    good: (id, m) => ({
      Id: `9${id.replace(/\D/g, '').padStart(8, '0')}`,
      Number: id,
      PaymentDate: LOCAL(m),
      PaymentType: 'DD',
      Response: 'Approved',
      FeeBreakdown: [{ SubscriptionFee: 10 }],
    }),
  },
  {
    source: 'posTransactions',
    path: '/members/pos/transactions',
    identityField: 'PosTransactionId',
    good: (id, m) => ({
      PosTransactionId: `8${id.replace(/\D/g, '').padStart(8, '0')}`,
      TransactionDate: LOCAL(m),
      TransactionType: 'Sale',
      TotalExTax: 10,
      TotalIncTax: 11,
      Till: 'Front',
      Items: [{ ItemId: 1, ProductName: 'Water', Quantity: 1, PriceIncTax: 11 }],
    }),
  },
  {
    source: 'disbursements',
    path: '/financial/disbursements',
    identityField: 'MemberNumber',
    good: (id, m) => ({
      DisbursementDate: LOCAL(m),
      TransactionDate: LOCAL(m),
      Amount: 12.5,
      MemberNumber: id,
      Department: 'Memberships',
      PaymentType: 'DD',
    }),
  },
  {
    source: 'debtCollection',
    path: '/financial/debtcollection',
    identityField: 'MemberNumber',
    good: (id, m) => ({ Amount: 99, DebtCollectionDate: LOCAL(m), MemberNumber: id, FirstName: 'Cy' }),
  },
];

/** JSON text of a value nested `depth` levels (JSON.stringify could not write it). */
const nested = (depth: number) => `${'{"n":['.repeat(depth)}"x"${']}'.repeat(depth)}`;

const loneSurrogates = fc.string({
  unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
});

/** The JSON text of any value a field could be sent with. */
const anyFieldText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => JSON.stringify(s)),
  loneSurrogates.map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '""',
    '"   "',
    'null',
    'true',
    '0',
    '-0',
    '{}',
    '[]',
    '"2026-02-30T10:00:00"',
    '"04/05/2026"',
  ),
  fc.constantFrom('9007199254740993.0', '9.007199254740993e15', '1e400', '123456789012345678901234'),
  fc.double().map((d) => (Number.isFinite(d) ? JSON.stringify(d) : '1.5')),
  fc.integer({ min: 30, max: 4000 }).map(nested),
  fc.integer({ min: 1, max: 400 }).map((kb) => JSON.stringify('z'.repeat(kb * 1024))),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

/** One poison record as JSON text: a good record with some fields replaced and unknown ones added. */
function poisonText(c: SourceCase, n: number): fc.Arbitrary<string> {
  const template = c.good(`P${n}`, 1);
  const fields = Object.keys(template);
  return fc
    .record({
      replaced: fc.dictionary(fc.constantFrom(...fields), anyFieldText, { maxKeys: 3 }),
      extra: fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), anyFieldText, { maxKeys: 2 }),
    })
    .map(({ replaced, extra }) => {
      const parts = fields.map((f) => `${JSON.stringify(f)}:${replaced[f] ?? JSON.stringify(template[f])}`);
      for (const [k, v] of Object.entries(extra))
        if (!fields.includes(k)) parts.push(`${JSON.stringify(k)}:${v}`);
      return `{${parts.join(',')}}`;
    });
}

function scriptedApi(pageText: () => string): FetchFn {
  return async (input) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith('/token')) {
      return new Response(JSON.stringify({ AccessToken: 'tok-123', ExpiresIn: 3600, TokenType: 'Bearer' }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    // One page: whatever the offset, the records are all there at offset 0 and nothing after.
    const body =
      url.searchParams.get('offset') === '0' || !url.searchParams.get('offset') ? pageText() : '{"data":[]}';
    return new Response(body, { headers: { 'content-type': 'application/json' } });
  };
}

const club = parseClubsFile({
  clubs: [
    {
      clubId: 'club-1',
      baseUrl: 'https://gym.example.test/v1',
      timeZone: 'Australia/Sydney',
      plan: 'basic',
      unstatedZone: 'local',
      unstatedZoneConfirmed: true,
      credentials: { username: 'u', password: 'pw-12345', apiKey: 'key-12345' },
    },
  ],
})[0]!;

describe.each(CASES)('$source: pages of good and arbitrary records', (c) => {
  it('never fail the source; every good record is published; the watermark reaches them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc
          .array(fc.nat(), { maxLength: 6 })
          .chain((seeds) =>
            fc.tuple(...seeds.map((_, i) => poisonText(c, i))).map((texts) => texts as string[]),
          ),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.nat(),
        async (goodCount, poison, duplicates, shuffleSeed) => {
          // Prepare: a silent baseline of an empty page, then the mixed page
          const good = Array.from({ length: goodCount }, (_, i) => c.good(`G${1000 + i}`, i % 9));
          const goodTexts = good.map((g) => JSON.stringify(g));
          const dupTexts = duplicates.map((d) => goodTexts[d % goodTexts.length]!);
          const texts = [...goodTexts, ...poison, ...dupTexts];
          const order = texts
            .map((_, i) => i)
            .sort((a, b) => ((a * 7919 + shuffleSeed) % 101) - ((b * 7919 + shuffleSeed) % 101));
          let page = '{"data":[]}';
          const store = new MemoryStateStore({ now: () => START });
          const sink = new MemorySink();
          const clients = new GymApiClientFactory({
            fetch: scriptedApi(() => page),
            retry: { maxAttempts: 1 },
          });
          const poll = () =>
            pollClub({ store, sink, clients, owner: 'prop', now: () => START }, club, {
              deadlineMs: Date.now() + 20_000,
              sources: [c.source],
            });
          const baseline = await poll();
          expect(baseline.failures).toEqual([]);
          page = `{"href":"x","data":[${order.map((i) => texts[i]).join(',')}]}`;
          // Act
          const report = await poll();
          // Assess
          expect(report.failures, JSON.stringify(report.failures)).toEqual([]);
          const outcome = report.sources.find((s) => s.source === c.source)!;
          expect(outcome.outcome).toBe('completed');
          expect(outcome.quarantined).toBeLessThanOrEqual(poison.length);
          const published = JSON.stringify(sink.events);
          for (const g of good) expect(published).toContain(JSON.stringify(g[c.identityField]));
          const cursor = await store.view('club-1').getCursor(c.source);
          expect(cursor.watermark).toBeDefined();
          expect(Date.parse(cursor.watermark!)).toBeGreaterThanOrEqual(Date.parse(`${UTC(0)}Z`));
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
