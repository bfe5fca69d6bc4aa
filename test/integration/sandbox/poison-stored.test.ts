/**
 * Poison mode, stored records: every variant of every class is filed in each operation it fits,
 * served over HTTP where its filter finds it (looking as the variant says), again at the same place
 * on later requests, logged in the poison log and never in the journal; with poison off the
 * sandbox serves exactly what it served before poison mode existed.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../../lambdas/gym-api/operations';
import { DATE_TIME_PATTERN, isRealDateTime } from '../../../lambdas/gym-api/schemas';
import {
  type PoisonLogEntry,
  type Sandbox,
  STORED_POISON_KINDS,
  STORED_VARIANT_IDS,
  startSandbox,
} from '../../../sandbox';
import { getPath, RECORD_SHAPES } from '../../../sandbox/poison/record-shapes';
import { STORED_VARIANTS } from '../../../sandbox/poison/stored-variants';
import { getAll, rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
const HOUR = 3_600_000;
const MINUTE = 60_000;

type Item = Record<string, unknown>;

/** Levels of nesting of a parsed value, counted without recursion. */
function depth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isString = (v: unknown): v is string => typeof v === 'string';

/** What the served field looks like, per variant (`text` is the raw page, for number literals). */
const LOOKS: Record<string, (v: unknown, text: string) => boolean> = {
  'identity/empty': (v) => v === '',
  'identity/whitespace': (v) => isString(v) && v.length > 0 && v.trim() === '',
  'identity/long-1500': (v) => isString(v) && Buffer.byteLength(v) === 1500,
  'identity/long-5000': (v) => isString(v) && Buffer.byteLength(v) === 5000,
  'identity/control-chars': (v) => isString(v) && /[\u0000\u0007\u001b\u007f]/.test(v),
  'identity/lone-surrogate': (v) => isString(v) && LONE_SURROGATE.test(v),
  'identity/hash': (v) => isString(v) && v.startsWith('#~poison-'),
  'identity/key-like': (v) => isString(v) && v.startsWith('CLUB#') && v.includes('|SEEN#'),
  'identity/emoji-rtl': (v) => isString(v) && v.includes('\u202E') && /\p{Extended_Pictographic}/u.test(v),
  'identity/padded': (v) => isString(v) && v !== v.trim() && v.trim().length > 0,
  'int64/decimal-point': (_v, t) => /":9?\d+\.0[,}\]]/.test(t),
  'int64/exponent': (_v, t) => /":\d\.\d+e\d+[,}\]]/.test(t),
  'int64/overflow': (v, t) => v === Number.POSITIVE_INFINITY && t.includes('":1e400'),
  'int64/negative-zero': (v, t) => Object.is(v, -0) && /":-0[,}\]]/.test(t),
  'int64/digits-25': (_v, t) => /":\d{25}[,}\]]/.test(t),
  'int64/quoted-padded': (v) => isString(v) && /^ \d+ $/.test(v),
  'int64/real-id-as-decimal': (_v, t) => /":9007199254(740993|800001)\.0[,}]/.test(t),
  'null/number': (v) => v === null,
  'null/id': (v) => v === null,
  'null/time': (v) => v === null,
  'null/required': (v) => v === null,
  'null/object': (v) => v === null,
  'null/array-item': (v) => v === null,
  'wrongType/number-for-string': (v) => typeof v === 'number',
  'wrongType/object-for-date': (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'wrongType/string-for-number': (v) => isString(v) && v.trim() !== '' && Number.isFinite(Number(v)),
  'wrongType/string-for-boolean': (v) => v === 'true' || v === 'false',
  'wrongType/array-for-object': (v) => Array.isArray(v) && v.length === 0,
  'wrongType/number-for-date': (v) => typeof v === 'number',
  'wrongType/boolean-for-string': (v) => v === true,
  'unknownEnum/unknown-value': (v) => isString(v) && v.length > 0,
  'unknownEnum/case-changed': (v) => isString(v) && (v === v.toLowerCase() || v === v.toUpperCase()),
  'unknownEnum/padded': (v) => isString(v) && v.endsWith(' '),
  'unknownEnum/empty': (v) => v === '',
  'unknownEnum/email-format': (v) => v === 'n/a',
  'deepNesting/objects': (v) => depth(v) >= 6000,
  'deepNesting/arrays': (v) => depth(v) >= 6000,
  'deepNesting/mixed': (v) => depth(v) >= 6000,
  'deepNesting/inside-known-object': (v) => depth(v) >= 6000,
  'oversized/known-300k': (v) => isString(v) && v.length === 300 * 1024,
  'oversized/known-3m': (v) => isString(v) && v.length === 3 * 1024 * 1024,
  'oversized/unknown-300k': (v) => isString(v) && v.length === 300 * 1024,
  'oversized/unknown-3m': (v) => isString(v) && v.length === 3 * 1024 * 1024,
};
const ALLOWED_DATE_FORMATS = new Set(['fraction-7', 'min-value']);

/** The query that finds a record filed at `recordTime` (members by their update time). */
function pageAt(op: OperationName, recordTime: string, limit: number): string {
  const param = op === 'members' ? 'updatedate' : 'fromdate';
  return `${OPERATIONS[op].path}?${param}=${encodeURIComponent(recordTime)}&limit=${limit}`;
}

describe('sandbox poison mode: stored records', () => {
  let sandbox: Sandbox;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    // Tokens outlive the test's clock moves (some 80 simulated hours); a history long enough to
    // have a debt referral to repeat.
    sandbox = await startSandbox({
      seed: 21,
      clubs: 1,
      members: 80,
      historyDays: 5,
      startTime: START,
      tokenLifetimeSec: 30 * 86_400,
    });
    token = await requestToken(sandbox);
    apiKey = sandbox.clubs[0]?.apiKey ?? '';
  });
  afterAll(() => sandbox.close());

  it('files every variant in every operation it fits, served where its time finds it, looking as it says', async () => {
    let pairs = 0;
    // Oversized last: the pages of the other variants then hold no megabyte fields.
    const ordered = [...STORED_VARIANTS].sort(
      (a, b) => Number(a.kind === 'oversized') - Number(b.kind === 'oversized'),
    );
    for (const variant of ordered) {
      for (const op of OPERATION_NAMES) {
        if (!variant.fits(RECORD_SHAPES[op])) continue;
        pairs++;
        const since = sandbox.poison.log.lastSeq;
        sandbox.faults.poison = { stored: { [variant.kind]: 60 }, operations: [op], variants: [variant.id] };
        sandbox.advance(10 * MINUTE);
        sandbox.faults.poison = false;
        const entries = sandbox.poison.log.entries(since);
        const label = `${variant.id} on ${op}`;
        expect(entries.length, label).toBeGreaterThan(0);
        for (const e of entries.slice(0, 2)) {
          expect([e.kind, e.operation, e.where, e.clubId], label).toEqual([
            variant.kind,
            op,
            'stored',
            'club-1',
          ]);
          expect(`${e.kind}/${e.variant}`, label).toBe(variant.id);
          // A real record may tie with a whole billing run; a 3 MB one is fetched alone.
          const limit = e.variant === 'twice-real' ? 100 : e.kind === 'oversized' ? 1 : 5;
          const res = await rawGet(sandbox, pageAt(op, e.recordTime as string, limit), { token, apiKey });
          expect(res.status, label).toBe(200);
          const data = (parseJsonPreservingInt64(res.text) as { data: Item[] }).data;
          if (e.variant === 'twice-real') {
            const twins = data.findIndex(
              (item, i) => i > 0 && JSON.stringify(item) === JSON.stringify(data[i - 1]),
            );
            expect(twins, `${label}: a real record twice in a row`).toBeGreaterThan(0);
            expect(e.marker).toBe('');
            expect(e.expect).toBe('once');
            continue;
          }
          expect(e.marker, label).toMatch(/^~poison-\d+$/);
          // Found by the field that carries the marker (JSON.stringify of a 6,000-deep value throws).
          const positions = data
            .map((item, i) => (String(getPath(item, e.markerField as string)).includes(e.marker) ? i : -1))
            .filter((i) => i >= 0);
          expect(positions, `${label}: served ${e.copies ?? 1} time(s) in a row`).toHaveLength(e.copies ?? 1);
          if (positions.length === 2) expect(positions[1]).toBe((positions[0] as number) + 1);
          const item = data[positions[0] as number] as Item;
          expect(String(getPath(item, e.markerField as string)), label).toContain(e.marker);
          if (e.kind === 'dateFormat') {
            const v = getPath(item, e.field as string);
            const valid = isString(v) && DATE_TIME_PATTERN.test(v) && isRealDateTime(v);
            expect(valid, `${label}: ${String(v)}`).toBe(ALLOWED_DATE_FORMATS.has(e.variant));
          } else if (e.field !== '*') {
            const look = LOOKS[variant.id];
            expect(look, `${variant.id} has a check`).toBeDefined();
            expect(look?.(getPath(item, e.field as string), res.text), label).toBe(true);
          }
        }
      }
    }
    expect(pairs).toBeGreaterThan(300);
    const variantsSeen = new Set(sandbox.poison.log.entries().map((e) => `${e.kind}/${e.variant}`));
    expect([...variantsSeen].sort()).toEqual([...STORED_VARIANT_IDS].sort());
  });

  it('says which records a bridge must quarantine: no usable identity, or a broken identity or time', () => {
    const entries = sandbox.poison.log.entries();
    const expectOf = (id: string, op: OperationName) =>
      new Set(
        entries.filter((e) => `${e.kind}/${e.variant}` === id && e.operation === op).map((e) => e.expect),
      );
    expect(expectOf('identity/empty', 'members')).toEqual(new Set(['quarantine']));
    expect(expectOf('identity/whitespace', 'visits')).toEqual(new Set(['quarantine']));
    expect(expectOf('identity/empty', 'paymentHistory')).toEqual(new Set(['either'])); // Id identifies it
    expect(expectOf('identity/long-5000', 'members')).toEqual(new Set(['either']));
    expect(expectOf('int64/decimal-point', 'paymentHistory')).toEqual(new Set(['quarantine']));
    expect(expectOf('int64/overflow', 'disbursements')).toEqual(new Set(['either'])); // an amount
    expect(expectOf('null/time', 'visits')).toEqual(new Set(['quarantine']));
    expect(expectOf('wrongType/object-for-date', 'paymentHistory')).toEqual(new Set(['quarantine']));
    expect(expectOf('oversized/unknown-3m', 'members')).toEqual(new Set(['either']));
    expect(expectOf('null/time', 'classAttendance')).toEqual(new Set(['either'])); // shape not documented
    // Every record a bridge may publish carries its marker where it travels: in its identity (or,
    // with the identity spoilt, in another string field), and every marker is found by find().
    for (const e of entries.filter((x) => x.marker)) {
      expect(sandbox.poison.find(`{"x":"a${e.marker}"}`)).toEqual([e]);
    }
  });

  it('never journals a poison record', () => {
    const journal = sandbox.journal.entries();
    expect(journal.length).toBeGreaterThan(50);
    expect(sandbox.poison.log.lastSeq).toBeGreaterThan(1000);
    expect(JSON.stringify(journal)).not.toContain('~poison-');
    for (const e of journal) {
      // Poison member numbers are 800000 + n, poison ids start at 9200000000000000000.
      const subject = 'memberNumber' in e ? e.memberNumber : 'prospectNumber' in e ? e.prospectNumber : '';
      expect(subject ?? '').not.toMatch(/^P?800\d{3}/);
      if ('paymentId' in e) expect(BigInt(e.paymentId) < 9_200_000_000_000_000_000n).toBe(true);
      if ('posTransactionId' in e) expect(BigInt(e.posTransactionId) < 9_200_000_000_000_000_000n).toBe(true);
    }
  });
});

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
