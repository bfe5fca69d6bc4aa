import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES, OPERATIONS, type OperationSpec } from '../../../lambdas/gym-api/operations';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { messageOf, rawGet, requestToken } from './sandbox-http';

describe('sandbox 400 responses', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 5, members: 30, clubs: 1, startTime: '2025-03-10T00:00:00Z' });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  const bad = async (path: string) => {
    const res = await rawGet(sandbox, path, { token, apiKey });
    return { status: res.status, message: messageOf(res) };
  };

  it.each(OPERATION_NAMES)('%s rejects bad paging, dates, unknown parameters and statuses', async (name) => {
    const op: OperationSpec = OPERATIONS[name];
    const cases = [
      'limit=501',
      'limit=-1',
      'limit=2.5',
      'limit=abc',
      'offset=-5',
      'offset=x',
      'fromdate=2025-03-01',
      'fromdate=2025-03-01T00:00:00Z',
      'fromdate=2025-03-01T00:00:00%2B11:00',
      'fromdate=01/03/2025',
      'nonsense=1',
      'limit=1&limit=2',
    ];
    if (!(op.params as readonly string[]).includes('updatedate'))
      cases.push('updatedate=2025-03-01T00:00:00');
    else cases.push('updatedate=2025-03-01');
    if (!op.statuses) cases.push('status=Active');
    else cases.push('status=NotAStatus', `status=${(op.statuses[0] ?? '').toLowerCase()}`);
    for (const query of cases) {
      const res = await bad(`${op.path}?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.message).toMatch(/Query parameter|Unknown query parameter/);
    }
    // The same operation answers 200 to good values of every parameter it takes.
    const good = new URLSearchParams({ fromdate: '2025-03-01T00:00:00.123', offset: '0', limit: '500' });
    if ((op.params as readonly string[]).includes('updatedate'))
      good.set('updatedate', '2025-03-01T00:00:00');
    if (op.statuses) good.set('status', op.statuses[0] ?? '');
    expect((await bad(`${op.path}?${good}`)).status).toBe(200);
  });
});

describe('sandbox monthly quota', () => {
  let sandbox: Sandbox;
  let token: string;

  beforeAll(async () => {
    // quotaScale 0.00001: Basic 10 requests a month, Advanced 50.
    sandbox = await startSandbox({
      seed: 6,
      members: 10,
      clubs: 2,
      historyDays: 1,
      quotaScale: 0.00001,
      startTime: '2025-03-31T22:00:00Z',
    });
    token = await requestToken(sandbox);
  });
  afterAll(() => sandbox.close());

  it('answers 429 once the basic club spent its quota, counting 400s but not 401s', async () => {
    const basic = sandbox.clubs[0];
    const advanced = sandbox.clubs[1];
    if (!basic || !advanced) throw new Error('two clubs expected');
    expect(basic.plan).toBe('basic');
    expect(sandbox.requestCounts(basic.clubId)).toEqual({
      month: '2025-03',
      used: 0,
      limit: 10,
      rejected: 0,
    });
    expect((await rawGet(sandbox, '/members?limit=1', { apiKey: basic.apiKey })).status).toBe(401);
    expect((await rawGet(sandbox, '/members?limit=1', { token, apiKey: basic.apiKey })).status).toBe(200);
    expect((await rawGet(sandbox, '/members?limit=x', { token, apiKey: basic.apiKey })).status).toBe(400);
    for (let i = 0; i < 8; i++) {
      expect((await rawGet(sandbox, '/prospects?limit=1', { token, apiKey: basic.apiKey })).status).toBe(200);
    }
    const over = await rawGet(sandbox, '/prospects?limit=1', { token, apiKey: basic.apiKey });
    expect(over.status).toBe(429);
    expect(messageOf(over)).toMatch(/quota/i);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(sandbox.requestCounts(basic.clubId)).toEqual({
      month: '2025-03',
      used: 10,
      limit: 10,
      rejected: 1,
    });
    // The other club has its own (advanced, larger) quota.
    expect(sandbox.requestCounts(advanced.clubId).limit).toBe(50);
    expect((await rawGet(sandbox, '/prospects?limit=1', { token, apiKey: advanced.apiKey })).status).toBe(
      200,
    );
  });

  it('starts afresh in the next UTC month of the sandbox clock', async () => {
    const basic = sandbox.clubs[0];
    if (!basic) throw new Error('club expected');
    sandbox.advance(3 * 60 * 60 * 1000);
    const fresh = await requestToken(sandbox);
    expect((await rawGet(sandbox, '/members?limit=1', { token: fresh, apiKey: basic.apiKey })).status).toBe(
      200,
    );
    expect(sandbox.requestCounts(basic.clubId)).toEqual({
      month: '2025-04',
      used: 1,
      limit: 10,
      rejected: 0,
    });
  });
});
