/**
 * Poison mode, response habits, over real HTTP: offset or limit ignored and a next that does not
 * advance (for an episode of requests), the previous page again, a huge page streamed (about
 * 100 MB by default, without the sandbox holding it), credentials echoed (escaped as JSON allows) in
 * error bodies, pages and token responses, a token with a control character; and the settings'
 * validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import {
  InvalidFaultSettingError,
  POISON_OFF,
  POISON_ON,
  type PoisonInput,
  type PoisonLogEntry,
  type Sandbox,
  STORED_POISON_KINDS,
  startSandbox,
} from '../../../sandbox';
import {
  ESCAPES,
  PAGE_PLACES,
  PLACEMENTS,
  SECRET_FORMS,
  TOKEN_PLACES,
} from '../../../sandbox/poison/credential-echo';
import { HUGE_PAGE_SHAPES } from '../../../sandbox/poison/huge-page';
import { decodedForms } from '../../support/credential-leaks';
import { basicHeader, getPage, rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
const VISITS = '/members/attendance/visits';
const FROM = '2025-03-08T00:00:00';
const MiB = 1024 * 1024;

describe('sandbox poison mode: response habits', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;
  let visits: Record<string, unknown>[];

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 17, clubs: 1, members: 120, historyDays: 3, startTime: START });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
    visits = sandbox.records('club-1', 'visits', { fromdate: FROM });
    expect(visits.length).toBeGreaterThan(100);
  });
  afterAll(() => sandbox.close());

  const page = (offset: number, limit: number) =>
    getPage(sandbox, token, apiKey, `${VISITS}?fromdate=${FROM}&offset=${offset}&limit=${limit}`);
  const nextOffset = (p: { next: string }) => Number(new URL(p.next).searchParams.get('offset'));
  const logSince = (seq: number) => sandbox.poison.log.entries(seq);
  const withPoison = async <T>(poison: PoisonInput, run: () => Promise<T>): Promise<T> => {
    sandbox.faults.poison = poison;
    try {
      return await run();
    } finally {
      sandbox.faults.poison = false;
    }
  };

  it('ignores offset for an episode: the first page each time, with a next that advances', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ offsetIgnored: 1, episodeRequests: 3 }, async () => [
      await page(0, 5),
      await page(5, 5),
      await page(10, 5),
    ]);
    for (const [i, p] of pages.entries()) {
      expect(p.data).toEqual(visits.slice(0, 5));
      expect(nextOffset(p)).toBe(5 * i + 5);
    }
    const log = logSince(since);
    expect(log.map((e) => [e.kind, e.variant, e.request?.offset])).toEqual([
      ['offsetIgnored', 'first-page', 0],
      ['offsetIgnored', 'first-page', 5],
      ['offsetIgnored', 'first-page', 10],
    ]);
    expect(log.every((e) => e.where === 'response' && e.expect === 'recover' && e.clubId === 'club-1')).toBe(
      true,
    );
    expect((await page(5, 5)).data).toEqual(visits.slice(5, 10));
  });

  it('ignores limit: more items than asked (twice, one more, or the default page)', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ limitIgnored: 1, episodeRequests: 1 }, async () => {
      const out = [];
      for (let i = 0; i < 15; i++) out.push(await page(20, 5));
      return out;
    });
    const log = logSince(since);
    const sizes: Record<string, number> = { double: 10, 'plus-one': 6, 'default-size': 500 };
    expect(new Set(log.map((e) => e.variant))).toEqual(new Set(Object.keys(sizes)));
    for (const [i, p] of pages.entries()) {
      const want = sizes[log[i]?.variant ?? ''] ?? 0;
      expect(p.data).toEqual(visits.slice(20, 20 + want));
      expect(p.data.length).toBeGreaterThan(5);
      expect(nextOffset(p)).toBe(25);
    }
  });

  it('sends a next that does not advance: the same offset, offset 0, or backwards', async () => {
    const since = sandbox.poison.log.lastSeq;
    const pages = await withPoison({ nextStuck: 1, episodeRequests: 2 }, async () => {
      const out = [];
      for (let i = 0; i < 12; i++) out.push(await page(10, 5));
      return out;
    });
    const log = logSince(since);
    const offsets: Record<string, number> = { 'same-offset': 10, 'offset-zero': 0, backwards: 5 };
    expect(new Set(log.map((e) => e.variant))).toEqual(new Set(Object.keys(offsets)));
    for (const [i, p] of pages.entries()) {
      expect(p.data).toEqual(visits.slice(10, 15));
      expect(nextOffset(p)).toBe(offsets[log[i]?.variant ?? '']);
    }
    // Episodes of two requests: the variant changes only between episodes.
    expect(log[0]?.variant).toBe(log[1]?.variant);
  });

  it('repeats the previous response of the same club and operation, links included', async () => {
    const since = sandbox.poison.log.lastSeq;
    const [first, second, third] = await withPoison({ repeatedPage: 1 }, async () => [
      await page(0, 5),
      await page(5, 5),
      await page(10, 5),
    ]);
    expect(first?.data).toEqual(visits.slice(0, 5));
    expect(second?.data).toEqual(visits.slice(0, 5));
    expect(third?.data).toEqual(visits.slice(0, 5));
    // The previous response whole, as a stale cache sends it: its href and next are the first's.
    expect(second && nextOffset(second)).toBe(5);
    expect((second as { href?: string } | undefined)?.href).toBe(
      (first as { href?: string } | undefined)?.href,
    );
    expect(logSince(since).map((e) => [e.kind, e.variant, e.request?.offset])).toEqual([
      ['repeatedPage', 'previous-page', 5],
      ['repeatedPage', 'previous-page', 10],
    ]);
  });

  it('streams a huge page of about 100 MB without holding it: the heap does not grow by its size', async () => {
    const since = sandbox.poison.log.lastSeq;
    // Sandbox and client share this process: memory is sampled from before the request to the
    // last byte, every few milliseconds (a page built in memory shows up the moment it exists).
    const before = process.memoryUsage();
    let peak = 0;
    const sample = () => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed - before.heapUsed + (now.arrayBuffers - before.arrayBuffers));
    };
    const sampler = setInterval(sample, 5);
    let bytes = 0;
    let head = '';
    try {
      const res = await withPoison({ hugePage: 1 }, () =>
        fetch(`${sandbox.url}${VISITS}?limit=50`, {
          headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        }),
      );
      sample();
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (let chunks = 0; ; chunks++) {
        const { done, value } = await reader.read();
        if (done) break;
        if (chunks === 0) head = Buffer.from(value.subarray(0, 200)).toString();
        if (chunks % 16 === 0) sample();
        bytes += value.byteLength;
      }
    } finally {
      clearInterval(sampler);
    }
    const [entry] = logSince(since);
    expect(entry?.kind).toBe('hugePage');
    expect(bytes).toBe(100 * MiB);
    expect(head.startsWith('{"href":')).toBe(true);
    // The sandbox writes one shared 64 KB buffer: a page built in memory adds 100 MB or more here
    // (measured 450 MB); streamed, 4 to 41 MB of the reading client's buffers awaiting collection.
    expect(peak).toBeLessThan(70 * MiB);
    expect((await page(0, 5)).data).toEqual(visits.slice(0, 5));
  });

  it('puts the bulk in a padding record, a huge string, an envelope field or whitespace, with or without a length', async () => {
    const since = sandbox.poison.log.lastSeq;
    const seen = new Set<string>();
    await withPoison({ hugePage: 1, hugePageBytes: 2 * MiB }, async () => {
      for (let i = 0; i < 16; i++) {
        const res = await fetch(`${sandbox.url}${VISITS}?fromdate=${FROM}&limit=4`, {
          headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        });
        const text = await res.text();
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        const [shape, transfer] = entry.variant.split('/');
        seen.add(entry.variant);
        expect(Buffer.byteLength(text), entry.variant).toBe(2 * MiB);
        expect(res.headers.get('content-length'), entry.variant).toBe(
          transfer === 'length' ? String(2 * MiB) : null,
        );
        expect(entry.marker).toMatch(/^~poison-r\d+$/);
        expect(sandbox.poison.find(text.slice(0, 4096) + text.slice(-4096))).toEqual([entry]);
        const body = parseJsonPreservingInt64(text) as { data: unknown[]; next: string };
        expect(nextOffset(body)).toBe(4);
        if (shape === 'single-string') expect(typeof body.data[0]).toBe('string');
        else expect(body.data.slice(0, 4)).toEqual(visits.slice(0, 4));
      }
    });
    const shapes = new Set([...seen].map((v) => v.split('/')[0]));
    expect(shapes).toEqual(new Set(HUGE_PAGE_SHAPES));
    expect(new Set([...seen].map((v) => v.split('/')[1]))).toEqual(new Set(['length', 'chunked']));
  });

  it('stops streaming when the client goes away, and serves the next request', async () => {
    const abort = new AbortController();
    await withPoison({ hugePage: 1, hugePageBytes: 500 * MiB }, async () => {
      const res = await fetch(`${sandbox.url}${VISITS}?limit=5`, {
        headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey },
        signal: abort.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
    });
    const started = performance.now();
    expect((await page(0, 5)).data).toEqual(visits.slice(0, 5));
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('echoes credentials in error bodies of token and data requests, in every form and place', async () => {
    const { username, password } = sandbox.integrator;
    const login = `${username}:${password}`;
    const basicValue = Buffer.from(login).toString('base64');
    const secretIn = (form: string, bearer: string | undefined): string => {
      switch (form) {
        case 'basic-header':
          return `Basic ${basicValue}`;
        case 'basic-value':
          return basicValue;
        case 'username-password':
          return login;
        case 'username':
          return username;
        case 'password':
          return password;
        case 'url-encoded':
          return login; // percent-encoded: the decoded text holds it
        case 'json-escaped':
          return login;
        case 'api-key':
          return apiKey;
        case 'bearer-token':
          return bearer ?? '';
        default:
          return bearer?.split('.')[2] ?? '';
      }
    };
    const since = sandbox.poison.log.lastSeq;
    const used = sandbox.requestCounts('club-1').used;
    await withPoison({ echoCredentials: 1 }, async () => {
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${sandbox.url}/token`, {
          method: 'POST',
          headers: { authorization: basicHeader(username, password) },
        });
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        expect([entry.operation, entry.status]).toEqual(['token', res.status]);
        expect([401, 500]).toContain(res.status);
        // Written with the escape drawn (the variant's third part): it reads as the secret decoded.
        const text = await res.text();
        const secret = secretIn(entry.variant.split('/')[0] as string, undefined);
        expect(
          decodedForms(text).some((t) => t.includes(secret)),
          entry.variant,
        ).toBe(true);
      }
      for (let i = 0; i < 60; i++) {
        const res = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
        const entry = logSince(since).at(-1) as PoisonLogEntry;
        expect([entry.operation, entry.clubId, entry.status]).toEqual(['members', 'club-1', res.status]);
        expect([400, 401, 500]).toContain(res.status);
        const secret = secretIn(entry.variant.split('/')[0] as string, token);
        expect(
          decodedForms(res.text).some((t) => t.includes(secret)),
          entry.variant,
        ).toBe(true);
      }
    });
    const log = logSince(since);
    expect(new Set(log.map((e) => e.variant.split('/')[0]))).toEqual(new Set(SECRET_FORMS));
    expect(new Set(log.map((e) => e.variant.split('/')[1]))).toEqual(new Set(PLACEMENTS));
    expect(new Set(log.map((e) => e.variant.split('/')[2]))).toEqual(new Set(ESCAPES));
    // The log names the form, never the secret.
    expect(JSON.stringify(log)).not.toContain(password);
    expect(JSON.stringify(log)).not.toContain(apiKey);
    // Injected like the other faults: not counted against the quota.
    expect(sandbox.requestCounts('club-1').used).toBe(used);
  });

  it('sends JSON-escaped credentials that only read as the secret once parsed', async () => {
    const { username, password } = sandbox.integrator;
    const since = sandbox.poison.log.lastSeq;
    await withPoison({ echoCredentials: 1 }, async () => {
      const wanted = 'json-escaped/message/all-lower';
      for (let i = 0; i < 200 && !logSince(since).some((e) => e.variant === wanted); i++) {
        const res = await rawGet(sandbox, '/members?limit=1', { token, apiKey });
        if (logSince(since).at(-1)?.variant !== wanted) continue;
        expect(res.text).not.toContain(password);
        expect((JSON.parse(res.text) as { Message: string }).Message).toContain(`${username}:${password}`);
      }
    });
    expect(logSince(since).some((e) => e.variant === 'json-escaped/message/all-lower')).toBe(true);
  });

  it('echoes credentials into 200 pages and token responses, escaped: the parsed body reads as them', async () => {
    const { username, password } = sandbox.integrator;
    const login = `${username}:${password}`;
    const signature = token.split('.')[2] ?? token;
    const known = [username, password, login, Buffer.from(login).toString('base64'), apiKey, signature];
    const holdsOne = (value: unknown) =>
      decodedForms(JSON.stringify(value)).some((t) => known.some((k) => t.includes(k)));
    const since = sandbox.poison.log.lastSeq;
    await withPoison({ echoCredentials: 0.5 }, async () => {
      for (let i = 0; i < 160; i++) {
        const before = sandbox.poison.log.lastSeq;
        const res = await rawGet(sandbox, `/members?limit=2&offset=${i % 5}`, { token, apiKey });
        const entry = sandbox.poison.log.entries(before).at(-1);
        if (res.status !== 200 || entry?.status !== 200) continue;
        // Valid JSON whose parsed strings (decoded once more) hold a credential of the request.
        expect(holdsOne(parseJsonPreservingInt64(res.text)), entry.variant).toBe(true);
      }
      for (let i = 0; i < 40; i++) {
        const before = sandbox.poison.log.lastSeq;
        const res = await fetch(`${sandbox.url}/token`, {
          method: 'POST',
          headers: { authorization: basicHeader(username, password) },
        });
        const text = await res.text();
        const entry = sandbox.poison.log.entries(before).at(-1);
        if (res.status !== 200 || entry?.status !== 200) continue;
        const body = JSON.parse(text) as { AccessToken: string };
        expect(body.AccessToken).toMatch(/^ey/);
        expect(holdsOne(body), entry.variant).toBe(true);
      }
    });
    const log = logSince(since).filter((e) => e.status === 200);
    expect(new Set(log.filter((e) => e.operation === 'members').map((e) => e.variant.split('/')[1]))).toEqual(
      new Set(PAGE_PLACES),
    );
    expect(new Set(log.filter((e) => e.operation === 'token').map((e) => e.variant.split('/')[1]))).toEqual(
      new Set(TOKEN_PLACES),
    );
    expect(JSON.stringify(logSince(since))).not.toContain(password);
  });

  it('issues tokens with a control character in them', async () => {
    const since = sandbox.poison.log.lastSeq;
    const tokens = await withPoison({ tokenControlChar: 1 }, async () => {
      const out: string[] = [];
      for (let i = 0; i < 20; i++) out.push(await requestToken(sandbox));
      return out;
    });
    for (const t of tokens) {
      expect(t).toMatch(/[\u0000-\u001f\u007f]/);
      // The token around the control character is a real one.
      const clean = t.replace(/[\u0000-\u001f\u007f]/g, '');
      expect((await rawGet(sandbox, '/members?limit=1', { token: clean, apiKey })).status).toBe(200);
    }
    expect(new Set(logSince(since).map((e) => `${e.operation} ${e.kind}`))).toEqual(
      new Set(['token tokenControlChar']),
    );
    expect(new Set(logSince(since).map((e) => e.variant))).toEqual(
      new Set(['newline-inside', 'crlf-at-end', 'nul-inside', 'escape-inside', 'tab-at-start']),
    );
  });

  it('draws the other faults as without poison: response habits have a stream of their own', async () => {
    const statuses = async (poison: PoisonInput) => {
      const s = await startSandbox({ seed: 4, clubs: 1, members: 20, historyDays: 1, startTime: START });
      try {
        const t = await requestToken(s);
        Object.assign(s.faults, { errorRate5xx: 0.4, poison });
        const out: number[] = [];
        for (let i = 0; i < 30; i++)
          out.push(
            (await rawGet(s, `${VISITS}?limit=3`, { token: t, apiKey: s.clubs[0]?.apiKey ?? '' })).status,
          );
        return out;
      } finally {
        await s.close();
      }
    };
    const plain = await statuses(false);
    expect(new Set(plain)).not.toEqual(new Set([200]));
    expect(await statuses({ repeatedPage: 0.5, limitIgnored: 0.5, nextStuck: 0.3 })).toEqual(plain);
  });
});

describe('sandbox poison settings', () => {
  it('are off by default, all on with true, and only what is named with an object', async () => {
    const sandbox = await startSandbox({ seed: 2, clubs: 1, members: 5, historyDays: 0, startTime: START });
    try {
      expect(sandbox.faults.poison).toBe(POISON_OFF);
      sandbox.faults.poison = true;
      expect(sandbox.faults.poison).toEqual(POISON_ON);
      for (const kind of STORED_POISON_KINDS) expect(sandbox.faults.poison.stored[kind]).toBeGreaterThan(0);
      sandbox.faults.poison = { stored: 2, hugePage: 0.5 };
      expect(sandbox.faults.poison.stored.identity).toBe(2);
      expect(sandbox.faults.poison.hugePage).toBe(0.5);
      expect(sandbox.faults.poison.echoCredentials).toBe(0);
      expect(sandbox.faults.poison.hugePageBytes).toBe(100 * MiB);
      sandbox.faults.poison = {
        stored: { int64: 1 },
        operations: ['paymentHistory'],
        variants: ['int64/overflow'],
      };
      expect(sandbox.faults.poison.stored).toMatchObject({ int64: 1, identity: 0 });
      Object.assign(sandbox.faults, { poison: false, errorRate5xx: 0 });
      expect(sandbox.faults.poison).toBe(POISON_OFF);
      // Resolved settings are frozen: a field cannot be changed in place and silently ignored.
      expect(() => {
        (sandbox.faults.poison as { hugePage: number }).hugePage = 1;
      }).toThrow(TypeError);
      expect(JSON.parse(JSON.stringify(sandbox.faults)).poison.hugePage).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('refuse bad values with a message naming the field, at start and at run time, keeping the old value', async () => {
    const bad: [unknown, RegExp][] = [
      [{ hugePage: 5 }, /faults\.poison\.hugePage must be within 0\.\.1, got 5/],
      [{ hugepage: 0.1 }, /faults\.poison has an unknown setting 'hugepage'/],
      [{ stored: -1 }, /faults\.poison\.stored must be a finite number >= 0/],
      [{ stored: { identities: 1 } }, /faults\.poison\.stored has an unknown class 'identities'/],
      [{ operations: ['payments'] }, /faults\.poison\.operations has an unknown entry "payments"/],
      [{ variants: ['identity/blank'] }, /faults\.poison\.variants has an unknown entry "identity\/blank"/],
      [{ hugePageBytes: 0 }, /faults\.poison\.hugePageBytes must be an integer from 1/],
      [{ episodeRequests: 1.5 }, /faults\.poison\.episodeRequests must be an integer from 1/],
      ['yes', /faults\.poison must be true, false or an object of settings, got "yes"/],
    ];
    for (const [value, message] of bad) {
      await expect(
        startSandbox({ clubs: 1, members: 1, historyDays: 0, faults: { poison: value as never } }),
      ).rejects.toThrow(message);
    }
    const sandbox = await startSandbox({ seed: 2, clubs: 1, members: 5, historyDays: 0, startTime: START });
    try {
      sandbox.faults.poison = { nextStuck: 0.2 };
      for (const [value, message] of bad) {
        expect(() => {
          sandbox.faults.poison = value as never;
        }).toThrow(InvalidFaultSettingError);
        expect(() => {
          sandbox.faults.poison = value as never;
        }).toThrow(message);
        expect(sandbox.faults.poison.nextStuck).toBe(0.2);
      }
    } finally {
      await sandbox.close();
    }
  });
});
