/**
 * The process's page slots over real sockets (lambdas/gym-api/body-budget.ts): many scans side by
 * side, every page past PAGE_BODY_BYTES, more scans than slots. Each holds its page while it is
 * processed; the others wait for a slot and every scan still reads all its pages: the bound on
 * pages in memory is the process's, and contention slows scans, it does not stop them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_BODY_BYTES, PAGE_SLOTS, pageBodyGate } from '../../../lambdas/gym-api/body-budget';
import { clientFor, type LocalServer, sendJson, startLocalServer, withToken } from './local-server';

const RECORDS = 900;
const PAGE_SIZE = 300;
/** About 600 bytes a member: a page of 300 is about 180 KB, past PAGE_BODY_BYTES. */
const member = (i: number) => ({ MemberNumber: `M${i}`, LastName: 'x'.repeat(560) });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('page slots', () => {
  let upstream: LocalServer;
  beforeAll(async () => {
    upstream = await startLocalServer(
      withToken((req, res) => {
        const url = new URL(req.url ?? '/', 'http://local');
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? PAGE_SIZE);
        const data = Array.from({ length: Math.max(0, Math.min(limit, RECORDS - offset)) }, (_, i) =>
          member(offset + i),
        );
        sendJson(res, { href: url.pathname, data });
      }),
    );
  });
  afterAll(() => upstream.close());

  it('let more scans than slots read every page, each holding its slot while it processes the page', async () => {
    // Prepare: twice as many scans as slots, each processing a page for 200 ms or more
    const scans = 2 * PAGE_SLOTS;
    const clients = Array.from(
      { length: scans },
      () => clientFor(upstream, { requestTimeoutMs: 30_000 }).client,
    );
    let leastFree = PAGE_SLOTS;
    let largestPage = 0;

    // Act
    const read = await Promise.all(
      clients.map(async (client) => {
        let records = 0;
        for await (const page of client.pages('members', {}, { pageSize: PAGE_SIZE })) {
          // Until the slots have run out once, a page is held until they do (5 s at most): on a
          // busy machine the answers may come slower than pages are processed.
          const until = Date.now() + 5000;
          while (leastFree > 0 && pageBodyGate.free > 0 && Date.now() < until) await sleep(10);
          leastFree = Math.min(leastFree, pageBodyGate.free);
          largestPage = Math.max(largestPage, JSON.stringify(page.items).length);
          records += page.items.length;
          await sleep(200);
        }
        return records;
      }),
    );

    // Assess: all read, the slots ran out on the way, and every one came back
    expect(largestPage).toBeGreaterThan(PAGE_BODY_BYTES);
    expect(read).toEqual(clients.map(() => RECORDS));
    expect(leastFree).toBe(0);
    expect(pageBodyGate.free).toBe(PAGE_SLOTS);
  });
});
