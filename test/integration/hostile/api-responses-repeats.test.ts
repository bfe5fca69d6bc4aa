/**
 * Records served twice across page boundaries, through the whole engine (pollClub against a local
 * upstream serving scripted pages, dynalite and a local EventBridge endpoint, all over real
 * sockets; hostile-api-rig.ts): two records sharing an identity; a record over the response cap
 * at two offsets (an unstable order of equal times) or stored twice; a placeholder time
 * (0001-01-01) read twice; a record past the record limits pushed onto two pages by drift. The scan
 * completes, re-reading where a repeat cannot be proven: one event a record, nothing before the
 * window read, nothing else lost.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import type { DynamoDbStateStore, SourceName } from '../../../lambdas/state';
import { eventKey } from '../../support/ground-truth';
import { sendJson, startLocalServer } from '../gym-api/local-server';
import { useHostileApi } from './hostile-api-rig';

describe('hostile API responses', () => {
  const hostile = useHostileApi();
  const { rig, sink, poll, delivered, visitKeys, visit } = hostile;
  const { clients } = rig;
  // The current test's store and club (the rig makes both afresh before each test).
  let store: DynamoDbStateStore;
  let club: ClubConfig;
  beforeEach(() => {
    ({ store, club } = hostile);
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
