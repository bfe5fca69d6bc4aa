import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidFaultSettingError, type Sandbox, startSandbox } from '../../../sandbox';
import { formatNaive, TimeZone } from '../../../sandbox/naive-time';
import { basicHeader, getAll, getPage, messageOf, rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';

describe('sandbox faults', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 13, clubs: 1, members: 120, startTime: START });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  it('errorRate5xx answers 500/502/503, sometimes not JSON, and is switched off at run time', async () => {
    const used = sandbox.requestCounts('club-1').used;
    sandbox.faults.errorRate5xx = 1;
    const statuses = new Set<number>();
    let nonJson = 0;
    try {
      for (let i = 0; i < 30; i++) {
        const res = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
        statuses.add(res.status);
        if (messageOf(res) === undefined) nonJson++;
      }
      const tokenRes = await fetch(`${sandbox.url}/token`, {
        method: 'POST',
        headers: { authorization: basicHeader(sandbox.integrator.username, sandbox.integrator.password) },
      });
      expect(tokenRes.status).toBeGreaterThanOrEqual(500);
    } finally {
      sandbox.faults.errorRate5xx = 0;
    }
    expect([...statuses].every((s) => [500, 502, 503].includes(s))).toBe(true);
    expect(statuses.size).toBeGreaterThan(1);
    expect(nonJson).toBeGreaterThan(0);
    expect(sandbox.requestCounts('club-1').used).toBe(used);
    expect((await rawGet(sandbox, '/members?limit=1', { token, apiKey })).status).toBe(200);
  });

  it('rate429 throttles with Retry-After, without spending the quota', async () => {
    const used = sandbox.requestCounts('club-1').used;
    sandbox.faults.rate429 = 1;
    const res = await rawGet(sandbox, '/prospects', { token, apiKey }).finally(() => {
      sandbox.faults.rate429 = 0;
    });
    expect(res.status).toBe(429);
    expect(messageOf(res)).toBe('Too Many Requests');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(sandbox.requestCounts('club-1').used).toBe(used);
  });

  it('latencyMs delays answers', async () => {
    sandbox.faults.latencyMs = 150;
    const started = performance.now();
    await rawGet(sandbox, '/members?limit=1', { token, apiKey }).finally(() => {
      sandbox.faults.latencyMs = 0;
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('failNext forces the next responses, optionally for one path and with a given body', async () => {
    sandbox.failNext(2, 503, { pathPrefix: '/members/payment' });
    expect((await rawGet(sandbox, '/members?limit=1', { token, apiKey })).status).toBe(200);
    expect((await rawGet(sandbox, '/members/payment/history?limit=1', { token, apiKey })).status).toBe(503);
    expect((await rawGet(sandbox, '/members/payment/history?limit=1', { token, apiKey })).status).toBe(503);
    expect((await rawGet(sandbox, '/members/payment/history?limit=1', { token, apiKey })).status).toBe(200);
    sandbox.failNext(1, 200, { body: '{"href":"x","data":[{"Id":1', contentType: 'application/json' });
    const truncated = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
    expect(truncated.status).toBe(200);
    expect(truncated.text).toBe('{"href":"x","data":[{"Id":1');
  });

  it('tokenLifetimeSec changes the lifetime of tokens issued from then on', async () => {
    sandbox.faults.tokenLifetimeSec = 30;
    try {
      const res = await fetch(`${sandbox.url}/token`, {
        method: 'POST',
        headers: { authorization: basicHeader(sandbox.integrator.username, sandbox.integrator.password) },
      });
      expect(((await res.json()) as { ExpiresIn: number }).ExpiresIn).toBe(30);
    } finally {
      sandbox.faults.tokenLifetimeSec = 3600;
    }
  });

  it('unstableOrdering reorders records with equal keys between requests, and only those', async () => {
    // Direct debits of one run share their PaymentDate: plenty of ties.
    sandbox.faults.unstableOrdering = true;
    try {
      const first = await getAll(sandbox, token, apiKey, '/members/payment/history');
      const second = await getAll(sandbox, token, apiKey, '/members/payment/history');
      const ids = (xs: Record<string, unknown>[]) => xs.map((p) => String(p.Id));
      expect(ids(first)).not.toEqual(ids(second));
      expect([...ids(first)].sort()).toEqual([...ids(second)].sort());
      const dates = first.map((p) => String(p.PaymentDate));
      expect(dates).toEqual([...dates].sort());
    } finally {
      sandbox.faults.unstableOrdering = false;
    }
    const stable1 = await getAll(sandbox, token, apiKey, '/members/payment/history');
    const stable2 = await getAll(sandbox, token, apiKey, '/members/payment/history');
    expect(stable1).toEqual(stable2);
  });

  it('insertWhilePaging adds activity on every data request', async () => {
    sandbox.faults.insertWhilePaging = true;
    try {
      const before = sandbox.journal.lastSeq;
      for (let i = 0; i < 5; i++)
        await getPage(sandbox, token, apiKey, '/members/attendance/visits?limit=10');
      expect(sandbox.journal.lastSeq).toBeGreaterThanOrEqual(before + 5);
      const at = sandbox.clock.now().toISOString();
      expect(sandbox.journal.entries(before).every((e) => e.at === at)).toBe(true);
    } finally {
      sandbox.faults.insertWhilePaging = false;
    }
  });

  it('lateArrivalRate stamps new records in the past, up to maxLatenessMin', async () => {
    sandbox.faults.lateArrivalRate = 1;
    sandbox.faults.maxLatenessMin = 60;
    const before = sandbox.journal.lastSeq;
    try {
      sandbox.advance(3 * 3_600_000);
    } finally {
      sandbox.faults.lateArrivalRate = 0;
    }
    const zone = new TimeZone('Australia/Sydney');
    const visits = sandbox.journal.entries(before).filter((e) => e.kind === 'visit');
    expect(visits.length).toBeGreaterThan(5);
    const served = new Set(
      sandbox.records('club-1', 'visits').map((v) => `${v.MemberNumber}|${v.VisitDateTime}`),
    );
    for (const v of visits) {
      if (v.kind !== 'visit') continue;
      const atLocal = formatNaive(zone.toNaive(Math.floor(Date.parse(v.at) / 1000) * 1000));
      const earliest = formatNaive(zone.toNaive(Date.parse(v.at) - 60 * 60_000));
      expect(v.visitDateTime < atLocal).toBe(true);
      expect(v.visitDateTime >= earliest).toBe(true);
      expect(served.has(`${v.memberNumber}|${v.visitDateTime}`)).toBe(true);
    }
  });

  it('rejects out-of-range fault settings at start', async () => {
    await expect(startSandbox({ faults: { errorRate5xx: 2 } })).rejects.toThrow(InvalidFaultSettingError);
    await expect(startSandbox({ faults: { tokenLifetimeSec: 0 } })).rejects.toThrow(InvalidFaultSettingError);
  });
});

describe('sandbox dstTransition', () => {
  const newYork = new TimeZone('America/New_York');

  it('fall-back: starts before the change and records visits in the repeated hour twice over', async () => {
    const sandbox = await startSandbox({
      seed: 3,
      clubs: [{ timeZone: 'America/New_York', members: 2500 }],
      historyDays: 1,
      dstTransition: 'fall-back',
      startTime: '2025-10-01T00:00:00Z',
    });
    try {
      // New York falls back at 2025-11-02T06:00Z (02:00 EDT -> 01:00 EST).
      expect(sandbox.clock.now().toISOString()).toBe('2025-11-02T04:30:00.000Z');
      sandbox.advance(3 * 3_600_000);
      const inRepeatedHour = sandbox.journal
        .entries()
        .filter((e) => e.kind === 'visit' && e.visitDateTime.startsWith('2025-11-02T01:'));
      const utcHours = new Set(inRepeatedHour.map((e) => e.at.slice(11, 13)));
      expect(utcHours).toEqual(new Set(['05', '06']));
      for (const e of inRepeatedHour) {
        if (e.kind === 'visit')
          expect(e.visitDateTime).toBe(
            formatNaive(newYork.toNaive(Math.floor(Date.parse(e.at) / 1000) * 1000)),
          );
      }
    } finally {
      await sandbox.close();
    }
  });

  it('spring-forward: no local time in the skipped hour is ever written', async () => {
    const sandbox = await startSandbox({
      seed: 4,
      clubs: [{ timeZone: 'America/New_York', members: 2500 }],
      historyDays: 1,
      dstTransition: 'spring-forward',
      startTime: '2025-01-01T00:00:00Z',
    });
    try {
      expect(sandbox.clock.now().toISOString()).toBe('2025-03-09T05:30:00.000Z');
      sandbox.advance(3 * 3_600_000);
      const visits = sandbox.journal.entries().filter((e) => e.kind === 'visit');
      const hours = new Set(visits.map((e) => (e.kind === 'visit' ? e.visitDateTime.slice(0, 13) : '')));
      expect(hours.has('2025-03-09T01')).toBe(true);
      expect(hours.has('2025-03-09T03')).toBe(true);
      expect(hours.has('2025-03-09T02')).toBe(false);
    } finally {
      await sandbox.close();
    }
  });
});
