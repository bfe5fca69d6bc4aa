/**
 * Hostile API responses through the whole engine (pollClub against the sandbox, dynalite and a
 * local EventBridge endpoint, all over real sockets). Whatever the API sends, the outcome is a typed
 * failure or a quarantined record; the page's other records are processed; the watermark never
 * moves past data that was not processed; and a later good response loses nothing.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { EventBridgeSink } from '../../../lambdas/events/publisher';
import type { DynamoDbStateStore, SourceName } from '../../../lambdas/state';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { useEngineRig } from '../../support/engine-rig';
import { eventKey } from '../../support/ground-truth';
import { sendJson, startLocalServer } from '../gym-api/local-server';

const MINUTE = 60_000;
const VISITS = '/members/attendance/visits';
const PAYMENTS = '/members/payment/history';

describe('hostile API responses', () => {
  const rig = useEngineRig({
    sandbox: {
      seed: 11,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', members: 60, open24h: true }],
      historyDays: 1,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 4,
    },
    clients: { retry: { baseDelayMs: 1, maxDelayMs: 5 } },
    pollMs: 20_000,
  });
  const { clients } = rig;
  let bus: LocalEventBridge;
  let eventBridge: EventBridgeClient;
  let store: DynamoDbStateStore;
  let club: ClubConfig;

  beforeAll(async () => {
    bus = await startLocalEventBridge();
    eventBridge = new EventBridgeClient({
      endpoint: bus.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
  });
  afterAll(async () => {
    eventBridge.destroy();
    await bus.close();
  });
  beforeEach(async () => {
    bus.events.length = 0;
    store = await rig.newStore('hostile'); // quarantine expiry is in sandbox time
    club = rig.firstClub();
  });

  /** A local upstream: tokens on POST, `serve` gives the records of each data request. */
  const startUpstream = (serve: (q: { offset: number; limit: number; from: string }) => unknown[]) =>
    startLocalServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST')
        return sendJson(res, { AccessToken: 't', ExpiresIn: 3600, TokenType: 'Bearer' });
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 500);
      sendJson(res, { data: serve({ offset, limit, from: url.searchParams.get('fromdate') ?? '' }) });
    });

  const sink = () => new EventBridgeSink({ client: eventBridge, busName: 'hostile', baseDelayMs: 1 });
  const poll = (sources: SourceName[], pageSize?: number) =>
    pollClub(
      { store, sink: sink(), clients, owner: 'hostile', now: () => rig.sandbox.clock.now().getTime() },
      club,
      { deadlineMs: rig.deadline(), sources, ...(pageSize ? { pageSize } : {}) },
    );
  /** One poll of `sources` against a local upstream at `origin` instead of the sandbox. */
  const pollUpstream = (
    origin: string,
    owner: string,
    sources: SourceName[],
    pageSize: number,
    via: typeof clients = clients,
  ) =>
    pollClub(
      { store, sink: sink(), clients: via, owner, now: () => rig.sandbox.clock.now().getTime() },
      { ...club, baseUrl: `${origin}/v1` },
      { deadlineMs: Date.now() + 20_000, sources, pageSize },
    );
  const delivered = () =>
    bus.events.map((e) => ({ detailType: e.detailType, detail: e.detail }) as BridgeEvent);
  const visitKeys = () =>
    new Set(
      delivered()
        .map(eventKey)
        .filter((k): k is string => k?.startsWith('V|') === true),
    );
  const journalVisitKeys = (sinceSeq: number) =>
    new Set(
      rig.sandbox.journal
        .entries(sinceSeq)
        .flatMap((e) =>
          e.kind === 'visit' ? [`V|${e.clubId}|${e.memberNumber}|${e.visitDateTime}|${e.door}`] : [],
        ),
    );
  const watermark = async (source: SourceName) => (await store.view(club.clubId).getCursor(source)).watermark;

  /** A baseline of visits, then 45 simulated minutes of activity: the visits a poll must deliver. */
  async function baselineThenActivity() {
    await poll(['visits']);
    const before = { seq: rig.sandbox.journal.lastSeq, watermark: await watermark('visits') };
    rig.sandbox.advance(45 * MINUTE);
    expect(journalVisitKeys(before.seq).size).toBeGreaterThan(3);
    return before;
  }

  const visit = (member: string, at: string, extra: Record<string, unknown> = {}) => ({
    MemberNumber: member,
    Door: 'Main Entrance',
    ScanSource: 'Kiosk',
    VisitDateTime: at,
    ...extra,
  });
  const envelope = (path: string, data: unknown[], next?: string) =>
    JSON.stringify({ href: `${rig.sandbox.url}${path}`, ...(next ? { next } : {}), data });

  const HTML =
    '<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>Back soon</h1></body></html>';
  it.each([
    ['not JSON', 200, 'Service maintenance in progress', 'text/plain', 'invalid-response'],
    [
      'truncated JSON',
      200,
      '{"href":"x","data":[{"MemberNumber":"100001","Door":"Ma',
      'application/json',
      'invalid-response',
    ],
    ['an HTML error page sent with 200', 200, HTML, 'text/html', 'invalid-response'],
    ['an HTML gateway page with 502, every retry', 502, HTML, 'text/html', 'unavailable'],
    ['a wrong envelope (items, not data)', 200, '{"items":[]}', 'application/json', 'invalid-response'],
    [
      'an array instead of an envelope',
      200,
      '[{"MemberNumber":"100001"}]',
      'application/json',
      'invalid-response',
    ],
    [
      'data that is not a list',
      200,
      '{"data":{"MemberNumber":"100001"}}',
      'application/json',
      'invalid-response',
    ],
  ])(
    '%s: a typed failure, the watermark stays, the next poll loses nothing',
    async (_, status, body, contentType, kind) => {
      // Prepare
      const before = await baselineThenActivity();
      // A 5xx is retried (5 attempts): every attempt gets it. The others are not retried.
      rig.sandbox.failNext(status >= 500 ? 5 : 1, status, { body, contentType, pathPrefix: VISITS });
      // Act
      const failed = await poll(['visits']);
      const watermarkAfterFailure = await watermark('visits');
      const recovered = await poll(['visits']);
      // Assess
      expect(failed.failures).toEqual([expect.objectContaining({ source: 'visits', kind })]);
      expect(failed.sources).toEqual([]);
      expect(watermarkAfterFailure).toBe(before.watermark);
      expect(recovered.failures).toEqual([]);
      expect(visitKeys()).toEqual(journalVisitKeys(before.seq));
    },
  );

  it('a next link to another host: refused before anything is sent there, the page is not trusted', async () => {
    // Prepare: a second server records whatever it receives.
    const elsewhere = await startLocalServer((_req, res) => sendJson(res, { data: [] }));
    try {
      const before = await baselineThenActivity();
      const page = Array.from({ length: 5 }, (_, i) => visit(`10000${i}`, `2026-05-04T18:0${i}:00`));
      const body = envelope(VISITS, page, `${elsewhere.origin}/v1${VISITS}?offset=5&limit=5`);
      rig.sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
      // Act
      const failed = await poll(['visits'], 5);
      const recovered = await poll(['visits'], 5);
      // Assess
      expect(elsewhere.requests).toEqual([]);
      expect(failed.failures).toEqual([
        expect.objectContaining({ source: 'visits', kind: 'invalid-response' }),
      ]);
      expect(failed.failures[0]!.message).toMatch(/another origin/);
      expect(recovered.failures).toEqual([]);
      expect(visitKeys()).toEqual(journalVisitKeys(before.seq));
    } finally {
      await elsewhere.close();
    }
  });

  it('a huge page (2,000 records, 2 MB, more than the limit asked for) is processed whole', async () => {
    // Prepare: records from before the real activity, so the real visits are still to come.
    const before = await baselineThenActivity();
    const huge = Array.from({ length: 2000 }, (_, i) =>
      visit(
        String(200_000 + i),
        `2026-05-04T18:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
        {
          Notes: 'x'.repeat(1000),
        },
      ),
    );
    const body = envelope(VISITS, huge, `${rig.sandbox.url}${VISITS}?offset=2000&limit=500`);
    expect(body.length).toBeGreaterThan(2_000_000);
    rig.sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
    // Act
    const first = await poll(['visits']);
    const second = await poll(['visits']);
    // Assess: every record of the page became an event, and the real visits still arrived.
    expect(first.failures).toEqual([]);
    expect(second.failures).toEqual([]);
    const keys = visitKeys();
    expect([...keys].filter((k) => /^V\|club-1\|20[01]\d{3}\|/.test(k))).toHaveLength(2000);
    for (const k of journalVisitKeys(before.seq)) expect(keys).toContain(k);
  });

  it('a record whose event would exceed 256 KB is quarantined once; the rest of the page is published', async () => {
    // Prepare: the real page plus one visit with a 300 KB field, served on every poll.
    const before = await baselineThenActivity();
    const real = rig.sandbox.records(club.clubId, 'visits', { fromdate: '2026-05-04T17:00:00' });
    const body = envelope(VISITS, [
      ...real,
      visit('100099', '2026-05-04T18:30:00', { Door: 'x'.repeat(300_000) }),
    ]);
    rig.sandbox.failNext(2, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
    // Act
    const first = await poll(['visits']);
    const second = await poll(['visits']);
    // Assess
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 1 });
    expect(second.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 0 });
    const quarantined = await store.parts.quarantine.listQuarantined(club.clubId, 'visits');
    expect(quarantined).toHaveLength(1);
    // Past the record limit (common/bounded-value.ts) before any event is built for it.
    expect(quarantined[0]!.reason).toMatch(/record over 128 KB/);
    expect(visitKeys()).toEqual(journalVisitKeys(before.seq));
  });

  it('wrong types, dates off the pattern and ids beyond int64 are quarantined; int64 beyond 2^53 is carried exactly', async () => {
    // Prepare: one page of payments mixing good and bad records (ids as bare JSON integers).
    await poll(['paymentHistory']);
    const template = rig.sandbox.records(club.clubId, 'paymentHistory').at(-1)!;
    const payment = (id: string, extra: Record<string, unknown>) => ({
      ...template,
      Id: `__${id}__`,
      PaymentDate: '2026-05-04T18:00:00',
      ...extra,
    });
    const records = [
      payment('9223372036854775807', {}), // int64 max: far beyond 2^53
      payment('9007199254740993', { Response: 'Mystery Code 42' }), // 2^53 + 1, an unknown response
      payment('9007199254740995', { PaymentType: 42 }), // wrong type
      payment('9007199254740997', { PaymentDate: '04/05/2026 18:00' }), // date off the pattern
      payment('123456789012345678901', {}), // not an int64
      payment('9007199254740999', { FeeBreakdown: [{ SubscriptionFee: 'free' }] }), // nested wrong type
    ];
    const body = envelope(PAYMENTS, records).replace(/"__(\d+)__"/g, '$1');
    expect(body).toContain('"Id":9223372036854775807');
    rig.sandbox.failNext(2, 200, { body, contentType: 'application/json', pathPrefix: PAYMENTS });
    const watermarkBefore = await watermark('paymentHistory');
    // Act
    const first = await poll(['paymentHistory']);
    const second = await poll(['paymentHistory']);
    // Assess: the good records are published with their ids exact, the bad ones quarantined once.
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 4 });
    expect(second.sources[0]).toMatchObject({ quarantined: 0 });
    const payments = delivered().filter((e) => e.detailType.startsWith('Payment'));
    const byId = new Map(payments.map((e) => [(e.detail as { paymentId: string }).paymentId, e]));
    expect([...byId.keys()].sort()).toEqual(['9007199254740993', '9223372036854775807']);
    expect(byId.get('9007199254740993')).toMatchObject({
      detailType: 'Payment Failed',
      detail: { reason: 'unknown-response', response: 'Mystery Code 42' },
    });
    const reasons = (await store.parts.quarantine.listQuarantined(club.clubId, 'paymentHistory'))
      .map((q) => q.reason)
      .join('\n');
    for (const field of ['PaymentType', 'PaymentDate', 'Id', 'FeeBreakdown[0].SubscriptionFee'])
      expect(reasons).toContain(field);
    // The watermark is capped at the poll's start: a record time never pushes it further.
    expect(Date.parse((await watermark('paymentHistory'))!)).toBeLessThanOrEqual(
      rig.sandbox.clock.now().getTime(),
    );
    expect(watermarkBefore).toBeDefined();
  });

  it('a record time far in the future does not move the watermark past the poll start', async () => {
    const before = await baselineThenActivity();
    const real = rig.sandbox.records(club.clubId, 'visits', { fromdate: '2026-05-04T17:00:00' });
    const body = envelope(VISITS, [...real, visit('100098', '2099-01-01T00:00:00')]);
    rig.sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: VISITS });
    const startMs = rig.sandbox.clock.now().getTime();
    await poll(['visits']);
    expect(Date.parse((await watermark('visits'))!)).toBeLessThanOrEqual(startMs);
    // More activity after it is still read.
    const seq = rig.sandbox.journal.lastSeq;
    rig.sandbox.advance(30 * MINUTE);
    await poll(['visits']);
    for (const k of journalVisitKeys(seq)) expect(visitKeys()).toContain(k);
    expect(before.watermark).toBeDefined();
  });

  it('two records sharing an identity across a page boundary: the scan completes, one event', async () => {
    // Prepare: a page of 5 ending with a visit, the next page starting with the same visit again
    // (a door that fired twice in one second), served as the sandbox would (offset paging).
    await poll(['visits']);
    const same = visit('100010', '2026-05-04T18:10:00');
    const rows = [
      visit('100001', '2026-05-04T18:01:00'),
      visit('100002', '2026-05-04T18:02:00'),
      visit('100003', '2026-05-04T18:03:00'),
      visit('100004', '2026-05-04T18:04:00'),
      same,
      same,
      visit('100011', '2026-05-04T18:11:00'),
    ];
    const server = await startLocalServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'POST')
        return sendJson(res, { AccessToken: 't', ExpiresIn: 3600, TokenType: 'Bearer' });
      const from = url.searchParams.get('fromdate') ?? '';
      const matching = rows.filter((r) => r.VisitDateTime >= from);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 500);
      sendJson(res, { data: matching.slice(offset, offset + limit) });
    });
    try {
      // Act
      const report = await pollUpstream(server.origin, 'dup', ['visits'], 5);
      // Assess
      expect(report.failures).toEqual([]);
      expect(report.sources[0]).toMatchObject({ outcome: 'completed', attempts: 1 });
      expect([...visitKeys()].filter((k) => k.includes('100010'))).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
  it('one record over the cap served at two offsets (unstable order of equal times): the scan re-reads, the record it hid is published', async () => {
    // Prepare: H (over the 64 KB cap on its own) and R share a visit time. The first attempt's
    // requests put H at whichever offset is asked alone (4, then 5), as an upstream whose order of
    // equal times changes from request to request may; R is never served. The re-read sees a
    // stable order.
    await poll(['visits']);
    const rows = (h: boolean) => [
      visit('100001', '2026-05-04T18:01:00'),
      visit('100002', '2026-05-04T18:02:00'),
      visit('100003', '2026-05-04T18:03:00'),
      visit('100004', '2026-05-04T18:04:00'),
      ...(h
        ? [
            visit('100050', '2026-05-04T18:05:00', { Door: 'x'.repeat(200_000) }),
            visit('100051', '2026-05-04T18:05:00'),
          ]
        : [
            visit('100051', '2026-05-04T18:05:00'),
            visit('100050', '2026-05-04T18:05:00', { Door: 'x'.repeat(200_000) }),
          ]),
      visit('100006', '2026-05-04T18:06:00'),
    ];
    let attempt = 0;
    const server = await startUpstream(({ offset, limit, from }) => {
      if (offset === 0 && limit === 5) attempt++;
      const matching = rows(attempt > 1 || offset <= 4).filter((r) => r.VisitDateTime >= from);
      return matching.slice(offset, offset + limit);
    });
    const small = new GymApiClientFactory({
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      maxResponseBytes: 64 * 1024,
    });
    try {
      // Act
      const report = await pollUpstream(server.origin, 'cap', ['visits'], 5, small);
      // Assess
      expect(report.failures).toEqual([]);
      expect(report.sources[0]).toMatchObject({ outcome: 'completed', attempts: 2 });
      const members = [...visitKeys()].map((k) => k.split('|')[2]);
      expect(members).toEqual(expect.arrayContaining(['100001', '100004', '100051', '100006']));
      expect(members).not.toContain('100050');
      expect(await store.parts.quarantine.listQuarantined(club.clubId, 'visits')).not.toEqual([]);
    } finally {
      await server.close();
    }
  });
  it('one record over the cap stored twice (read twice in every attempt): the scan completes after its re-reads, nothing else lost', async () => {
    // Prepare: H is over the 64 KB cap on its own and stored twice, next to itself: no response
    // can prove the repeat, but every attempt reads it the same way.
    await poll(['visits']);
    const huge = visit('100050', '2026-05-04T18:05:00', { Door: 'x'.repeat(200_000) });
    const rows = [
      visit('100001', '2026-05-04T18:01:00'),
      visit('100002', '2026-05-04T18:02:00'),
      huge,
      huge,
      visit('100006', '2026-05-04T18:06:00'),
      visit('100007', '2026-05-04T18:07:00'),
    ];
    const server = await startUpstream(({ offset, limit, from }) => {
      return rows.filter((r) => r.VisitDateTime >= from).slice(offset, offset + limit);
    });
    const small = new GymApiClientFactory({
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      maxResponseBytes: 64 * 1024,
    });
    try {
      // Act
      const report = await pollUpstream(server.origin, 'cap2', ['visits'], 5, small);
      // Assess
      expect(report.failures).toEqual([]);
      expect(report.sources[0]).toMatchObject({ outcome: 'completed', attempts: 3 });
      expect((await store.view(club.clubId).getCursor('visits')).health.lastError).toBeUndefined();
      const members = [...visitKeys()].map((k) => k.split('|')[2]);
      expect(members).toEqual(expect.arrayContaining(['100001', '100002', '100006', '100007']));
      expect(members).not.toContain('100050');
    } finally {
      await server.close();
    }
  });
  it('a record whose time is a placeholder (0001-01-01) read twice: the proof of the repeat reads nothing before the window', async () => {
    // Prepare: POS transactions two days before the window, then the window. M carries the minimum
    // date (valid: the time is not part of a transaction's identity) but is stored inside the
    // window; the first attempt's pages of 2 serve it twice (drift), so its time is a suspect the
    // engine verifies with one response from that time.
    await poll(['posTransactions']);
    const pos = (id: string, date: string, at = date) => ({
      PosTransactionId: id,
      TransactionDate: date,
      TransactionType: 'Sale',
      TotalIncTax: 4.5,
      at,
    });
    const old = [pos('9100', '2026-05-02T09:00:00'), pos('9101', '2026-05-02T09:05:00')];
    const placeholder = pos('9150', '0001-01-01T00:00:00', '2026-05-04T18:03:00');
    const window = [
      pos('9001', '2026-05-04T18:01:00'),
      pos('9002', '2026-05-04T18:02:00'),
      placeholder,
      pos('9004', '2026-05-04T18:04:00'),
      pos('9005', '2026-05-04T18:05:00'),
    ];
    let attempt = 0;
    const server = await startUpstream(({ offset, limit, from }) => {
      if (offset === 0 && limit === 2) attempt++;
      const stored = [...old, ...window];
      // 9001 9002 M 9004 M 9005: M on two pages
      if (attempt === 1 && limit === 2) stored.splice(stored.indexOf(window[3]!) + 1, 0, placeholder);
      const data = stored.filter((r) => r.at >= from).map(({ at: _, ...r }) => r);
      return data.slice(offset, offset + limit);
    });
    try {
      // Act
      const report = await pollUpstream(server.origin, 'min', ['posTransactions'], 2);
      // Assess
      expect(report.failures).toEqual([]);
      expect(report.sources[0]).toMatchObject({ outcome: 'completed' });
      const ids = delivered()
        .map(eventKey)
        .filter((k): k is string => k?.startsWith('POS|') === true)
        .map((k) => k.split('|')[2]);
      expect(ids).toEqual(expect.arrayContaining(['9001', '9002', '9004', '9005']));
      expect(ids).not.toContain('9100');
      expect(ids).not.toContain('9101');
    } finally {
      await server.close();
    }
  });
  it('a record past the record limits (200 KB, a cut copy) served on two pages by drift: the scan re-reads, the record it pushed out is published', async () => {
    // Prepare: the first attempt's pages of 2 serve BIG twice where 100004 should be.
    await poll(['visits']);
    const big = visit('100050', '2026-05-04T18:03:30', { Door: 'x'.repeat(200_000) });
    const window = [
      visit('100001', '2026-05-04T18:01:00'),
      visit('100002', '2026-05-04T18:02:00'),
      visit('100003', '2026-05-04T18:03:00'),
      big,
      visit('100004', '2026-05-04T18:04:00'),
      visit('100005', '2026-05-04T18:05:00'),
    ];
    let attempt = 0;
    const server = await startUpstream(({ offset, limit, from }) => {
      if (offset === 0 && limit === 2) attempt++;
      const rows =
        attempt === 1 && limit === 2 ? window.map((r) => (r.MemberNumber === '100004' ? big : r)) : window;
      return rows.filter((r) => r.VisitDateTime >= from).slice(offset, offset + limit);
    });
    try {
      // Act
      const report = await pollUpstream(server.origin, 'cut', ['visits'], 2);
      // Assess
      expect(report.failures).toEqual([]);
      expect(report.sources[0]).toMatchObject({ outcome: 'completed', attempts: 2 });
      const members = [...visitKeys()].map((k) => k.split('|')[2]);
      expect(members).toEqual(expect.arrayContaining(['100001', '100002', '100003', '100004', '100005']));
      expect(members).not.toContain('100050');
    } finally {
      await server.close();
    }
  });
});
