/**
 * Poison mode, stored records: every variant of every class is filed in each operation it fits,
 * served over HTTP where its filter finds it (looking as the variant says), logged in the poison log
 * with what a bridge must do with it (quarantine or not), and never in the journal. That stored
 * records stay put and leave the real data alone, and poison off: `poison-stored-determinism.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../../lambdas/gym-api/operations';
import { DATE_TIME_PATTERN, isRealDateTime } from '../../../lambdas/gym-api/schemas';
import { type Sandbox, STORED_VARIANT_IDS, startSandbox } from '../../../sandbox';
import { getPath, RECORD_SHAPES } from '../../../sandbox/poison/record-shapes';
import { STORED_VARIANTS } from '../../../sandbox/poison/stored-variants';
import { rawGet, requestToken } from './sandbox-http';

const START = '2025-03-10T00:00:00Z';
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
