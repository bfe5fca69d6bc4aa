import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { getAll, getPage, requestToken } from './sandbox-http';

describe('sandbox paging envelope', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    // 6,000 visits in the history: a club big enough to page through end to end.
    sandbox = await startSandbox({
      seed: 8,
      clubs: [{ members: 250, visits: 6000 }],
      startTime: '2025-03-10T00:00:00Z',
    });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  it('gives href as requested and next with the following offset and the same limit', async () => {
    const path = '/members/attendance/visits?fromdate=2025-03-01T00:00:00&limit=25&offset=50';
    const page = await getPage(sandbox, token, apiKey, path);
    expect(page.href).toBe(`${sandbox.url}${path}`);
    const next = new URL(page.next);
    expect(next.origin + next.pathname).toBe(`${sandbox.url}/members/attendance/visits`);
    expect(next.searchParams.get('offset')).toBe('75');
    expect(next.searchParams.get('limit')).toBe('25');
    expect(next.searchParams.get('fromdate')).toBe('2025-03-01T00:00:00');
    expect(page.data).toHaveLength(25);
    const all = sandbox.records('club-1', 'visits', { fromdate: '2025-03-01T00:00:00' });
    expect(page.data).toEqual(all.slice(50, 75));
  });

  it('defaults to offset 0 and limit 500', async () => {
    const page = await getPage(sandbox, token, apiKey, '/members/attendance/visits');
    expect(page.data).toHaveLength(500);
    expect(page.data).toEqual(sandbox.records('club-1', 'visits').slice(0, 500));
    const next = new URL(page.next);
    expect(next.searchParams.get('offset')).toBe('500');
    expect(next.searchParams.get('limit')).toBe('500');
  });

  it('answers limit=0 with no data, and a page past the end with no data but a next link', async () => {
    const zero = await getPage(sandbox, token, apiKey, '/members?limit=0&offset=10');
    expect(zero.data).toEqual([]);
    expect(new URL(zero.next).searchParams.get('offset')).toBe('10');
    const total = sandbox.records('club-1', 'members').length;
    const last = await getPage(sandbox, token, apiKey, `/members?offset=${total - 3}&limit=10`);
    expect(last.data).toHaveLength(3);
    expect(new URL(last.next).searchParams.get('offset')).toBe(String(total + 7));
    const beyond = await getPage(sandbox, token, apiKey, `/members?offset=${total + 7}&limit=10`);
    expect(beyond.data).toEqual([]);
  });

  it('pages through 5,000+ visits by following next, in order, with nothing lost or repeated', async () => {
    const expected = sandbox.records('club-1', 'visits');
    expect(expected.length).toBeGreaterThan(5000);
    const got = await getAll(sandbox, token, apiKey, '/members/attendance/visits');
    expect(got).toHaveLength(expected.length);
    expect(got).toEqual(expected);
    const times = got.map((v) => String(v.VisitDateTime));
    expect(times).toEqual([...times].sort());
  });

  it('gives the same records with small pages and raised offsets', async () => {
    const expected = sandbox.records('club-1', 'paymentHistory');
    const collected: unknown[] = [];
    for (let offset = 0; ; offset += 37) {
      const page = await getPage(
        sandbox,
        token,
        apiKey,
        `/members/payment/history?offset=${offset}&limit=37`,
      );
      collected.push(...page.data);
      if (page.data.length < 37) break;
    }
    expect(collected).toEqual(expected);
  });
});
