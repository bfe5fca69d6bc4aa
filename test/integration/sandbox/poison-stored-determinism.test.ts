/**
 * Poison mode, stored records against the real data: a stored record is served again at the same
 * place on every later request whose filter covers it; the real data and the journal are exactly
 * those of a sandbox without poison; with poison off the sandbox serves byte for byte what it served
 * before poison mode existed; the same seed and settings store the same poison whatever the
 * requests; and the poison log is listed over HTTP. The variants themselves, filed and served:
 * `poison-stored.test.ts`.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES, OPERATIONS } from '../../../lambdas/gym-api/operations';
import {
  type PoisonLogEntry,
  type Sandbox,
  STORED_POISON_KINDS,
  STORED_VARIANT_IDS,
  startSandbox,
} from '../../../sandbox';
import { getAll, rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
const HOUR = 3_600_000;

describe('sandbox poison mode: stored records stay put, real data untouched', () => {
  const options = {
    seed: 33,
    clubs: 2,
    members: 60,
    historyDays: 1,
    startTime: START,
    tokenLifetimeSec: 7 * 86_400,
  };
  // Records compared as JSON here: no 6,000-deep values (JSON.stringify throws on them), no
  // repeated real records (not poison by marker), no megabytes.
  const poisonWithoutRealRepeats = {
    stored: 3,
    variants: STORED_VARIANT_IDS.filter(
      (id) => id !== 'repeated/twice-real' && !id.startsWith('oversized/') && !id.startsWith('deepNesting/'),
    ),
  };
  let clean: Sandbox;
  let poisoned: Sandbox;

  beforeAll(async () => {
    clean = await startSandbox(options);
    poisoned = await startSandbox({ ...options, faults: { poison: poisonWithoutRealRepeats } });
  });
  afterAll(async () => {
    await clean.close();
    await poisoned.close();
  });

  it('serves a stored record on every later request whose filter covers it, at the same place', async () => {
    poisoned.advance(3 * HOUR);
    const token = await requestToken(poisoned);
    const apiKey = poisoned.clubs[0]?.apiKey ?? '';
    const paths = ['/members/payment/history', '/members/attendance/visits', '/financial/debtcollection'];
    const scan = async (path: string) =>
      (await getAll(poisoned, token, apiKey, path, { fromdate: '2025-03-09T00:00:00' }, 40)).map((item) =>
        JSON.stringify(item),
      );
    const placesOf = (items: string[]) =>
      new Map(
        items.flatMap((text, i) => poisoned.poison.find(text).map((e) => [e.seq, { i, text }] as const)),
      );
    const first = new Map<string, string[]>();
    for (const path of paths) {
      const items = await scan(path);
      expect(placesOf(items).size, path).toBeGreaterThan(0);
      expect(await scan(path), `${path}: a second scan right after`).toEqual(items);
      first.set(path, items);
    }
    // A day more of real activity (appended after), poison off: every poison record stays
    // where it was, after the same records.
    poisoned.faults.poison = false;
    poisoned.advance(24 * HOUR);
    poisoned.faults.poison = poisonWithoutRealRepeats;
    for (const path of paths) {
      const before = first.get(path) as string[];
      const later = await scan(path);
      expect(later.length, path).toBeGreaterThan(before.length);
      for (const [seq, { i, text }] of placesOf(before)) {
        expect(later[i], `${path}: poison seq ${seq}`).toBe(text);
        expect(later.slice(0, i + 1), `${path}: before poison seq ${seq}`).toEqual(before.slice(0, i + 1));
      }
    }
  });

  it('leaves the real data and the journal exactly as without poison', () => {
    // Both sandboxes see the same clock moves (the poisoned one moved 3 h, then 24 h, above).
    clean.advance(3 * HOUR);
    clean.advance(24 * HOUR);
    expect(poisoned.journal.entries()).toEqual(clean.journal.entries());
    expect(poisoned.poison.log.lastSeq).toBeGreaterThan(50);
    for (const club of ['club-1', 'club-2']) {
      for (const op of OPERATION_NAMES) {
        const real = poisoned
          .records(club, op)
          .filter((item) => poisoned.poison.find(JSON.stringify(item)).length === 0);
        expect(real, `${club} ${op}`).toEqual(clean.records(club, op));
      }
    }
  });
});

describe('sandbox poison mode off', () => {
  it('serves byte for byte what the sandbox served before poison mode (hashes taken before it)', async () => {
    const sandbox = await startSandbox({
      seed: 7,
      clubs: 2,
      members: 80,
      historyDays: 2,
      startTime: START,
      faults: { lateArrivalRate: 0.3, poison: false },
    });
    try {
      sandbox.advance(3 * HOUR);
      const token = await requestToken(sandbox);
      const origin = new URL(sandbox.url).origin;
      const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
      const pages = createHash('sha256');
      for (const club of sandbox.clubs) {
        for (const op of OPERATION_NAMES) {
          for (const q of ['limit=500', 'limit=37&offset=74', 'fromdate=2025-03-09T06:00:00&limit=50']) {
            const res = await rawGet(sandbox, `${OPERATIONS[op].path}?${q}`, { token, apiKey: club.apiKey });
            pages.update(
              `${club.clubId} ${op} ${q} ${res.status} ${res.text.replaceAll(origin, 'ORIGIN')}\n`,
            );
          }
        }
      }
      expect(pages.digest('hex').slice(0, 16)).toBe('ca2e87aae092d0ed');
      expect(sha(JSON.stringify(sandbox.journal.entries()))).toBe('a4e9d8de80e37928');
      // The other faults draw from their stream exactly as before.
      Object.assign(sandbox.faults, { errorRate5xx: 0.3, unstableOrdering: true, insertWhilePaging: 0.5 });
      const faulted = createHash('sha256');
      const apiKey = sandbox.clubs[0]?.apiKey ?? '';
      for (let i = 0; i < 40; i++) {
        const res = await rawGet(sandbox, `/members/attendance/visits?limit=20&offset=${i * 5}`, {
          token,
          apiKey,
        });
        faulted.update(`${res.status} ${res.text.replaceAll(origin, 'O')}\n`);
      }
      expect(faulted.digest('hex').slice(0, 16)).toBe('9d6b50f6201dd9e4');
      expect(sha(JSON.stringify(sandbox.journal.entries()))).toBe('554fbf1f419e697a');
      expect(sha(JSON.stringify(sandbox.records('club-2', 'paymentHistory')))).toBe('055803abe8bd2aeb');
      expect(sandbox.poison.log.lastSeq).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('gives the same stored poison for the same seed and settings, whatever the requests', async () => {
    const start = () =>
      startSandbox({
        seed: 5,
        clubs: 2,
        members: 30,
        historyDays: 1,
        startTime: START,
        faults: { poison: true },
      });
    const [a, b] = [await start(), await start()];
    try {
      // Requests on one sandbox only: they may bend responses, never what is stored.
      const tokenA = await requestToken(a);
      for (let i = 0; i < 20; i++)
        await rawGet(a, '/members?limit=5', { token: tokenA, apiKey: a.clubs[0]?.apiKey ?? '' });
      a.advance(4 * HOUR);
      b.advance(4 * HOUR);
      const stored = (s: Sandbox) =>
        s.poison.log
          .entries()
          .filter((e) => e.where === 'stored')
          .map(({ seq: _seq, ...rest }) => rest);
      expect(stored(a).length).toBeGreaterThan(20);
      expect(stored(a)).toEqual(stored(b));
      expect(new Set(stored(a).map((e) => e.kind))).toEqual(new Set(STORED_POISON_KINDS));
      // Served alike, byte for byte (responses not bent while they are compared).
      a.faults.poison = false;
      b.faults.poison = false;
      const tokenB = await requestToken(b);
      const tokenA2 = await requestToken(a);
      for (const op of OPERATION_NAMES) {
        const path = `${OPERATIONS[op].path}?fromdate=2025-03-09T00:00:00`;
        const pageOf = async (s: Sandbox, token: string) =>
          (await rawGet(s, path, { token, apiKey: s.clubs[1]?.apiKey ?? '' })).text.replaceAll(
            new URL(s.url).origin,
            '',
          );
        expect(await pageOf(a, tokenA2), op).toBe(await pageOf(b, tokenB));
      }
      expect(a.journal.entries()).toEqual(b.journal.entries());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('lists the log over HTTP at /__admin/poison, by club and since a seq', async () => {
    const sandbox = await startSandbox({
      seed: 9,
      clubs: 2,
      members: 20,
      historyDays: 1,
      startTime: START,
      faults: { poison: { stored: 4 } },
    });
    try {
      sandbox.advance(2 * HOUR);
      const origin = new URL(sandbox.url).origin;
      const all = (await (await fetch(`${origin}/__admin/poison`)).json()) as {
        lastSeq: number;
        entries: PoisonLogEntry[];
      };
      expect(all.lastSeq).toBe(sandbox.poison.log.lastSeq);
      expect(all.entries).toEqual(JSON.parse(JSON.stringify(sandbox.poison.log.entries())));
      const club2 = (await (await fetch(`${origin}/__admin/poison?since=3&clubId=club-2`)).json()) as {
        entries: PoisonLogEntry[];
      };
      expect(club2.entries.length).toBeGreaterThan(0);
      expect(club2.entries.every((e) => e.clubId === 'club-2' && e.seq > 3)).toBe(true);
      expect((await fetch(`${origin}/__admin/poison?since=x`)).status).toBe(400);
    } finally {
      await sandbox.close();
    }
  });
});
