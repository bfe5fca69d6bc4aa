/**
 * Hostile API response bodies through the whole engine (pollClub against the sandbox, dynalite and
 * a local EventBridge endpoint, all over real sockets; hostile-api-rig.ts). A body the engine
 * cannot trust (not JSON, truncated, an HTML page sent with 200 or with 502 on every retry, a wrong
 * envelope, data that is not a list) is a typed failure: the watermark stays and the next poll
 * loses nothing. A next link to another host is refused before anything is sent there; a huge page
 * (more records than the limit asked for) is processed whole.
 */
import { describe, expect, it } from 'vitest';
import { sendJson, startLocalServer } from '../gym-api/local-server';
import { useHostileApi, VISITS } from './hostile-api-rig';

describe('hostile API responses', () => {
  const { rig, poll, visitKeys, journalVisitKeys, watermark, baselineThenActivity, visit, envelope } =
    useHostileApi();

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
      const failed = await poll(['visits'], { pageSize: 5 });
      const recovered = await poll(['visits'], { pageSize: 5 });
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
});
