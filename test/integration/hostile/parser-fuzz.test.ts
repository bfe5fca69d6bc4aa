/**
 * Fuzzing the response parsers with fast-check, for a fixed budget of cases per property: whatever
 * bytes arrive, parseJsonPreservingInt64 throws nothing but SyntaxError, parseEnvelope and
 * nextOffsetFromLink nothing but InvalidResponseError, readPage never throws and accounts for every
 * item; int64 digits survive exactly; and no error or quarantine reason echoes an upstream value.
 * Real pages from the sandbox, mutated, are fuzzed as well as arbitrary text.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidResponseError } from '../../../lambdas/gym-api/errors';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../../../lambdas/gym-api/operations';
import { parseEnvelope, readPage } from '../../../lambdas/gym-api/page-reader';
import { nextOffsetFromLink } from '../../../lambdas/gym-api/paging-checks';
import { type Sandbox, startSandbox } from '../../../sandbox';

/** Cases per property: a fixed budget, a few seconds for the whole file. */
const RUNS = 400;
/** A value planted in inputs: it must never come back in an error message or an issue. */
const MARKER = 'Zq9-MARKER-Xk4';

/** Throws nothing, or only errors of `allowed` types. */
function onlyThrows(fn: () => unknown, ...allowed: (new (...args: never[]) => Error)[]): unknown {
  try {
    return fn();
  } catch (err) {
    if (!allowed.some((type) => err instanceof type)) throw err;
    return err;
  }
}

/** Random edits of a text: cut it, drop or insert characters, repeat a slice. */
const mutated = (text: string) =>
  fc
    .array(
      fc.oneof(
        fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
        fc.record({
          kind: fc.constant('drop' as const),
          at: fc.nat(),
          length: fc.integer({ min: 1, max: 20 }),
        }),
        fc.record({
          kind: fc.constant('insert' as const),
          at: fc.nat(),
          text: fc.string({
            unit: fc.constantFrom(...'{}[]",:-.e0123456789 truenl\\'.split('')),
            maxLength: 8,
          }),
        }),
        fc.record({
          kind: fc.constant('repeat' as const),
          at: fc.nat(),
          length: fc.integer({ min: 1, max: 60 }),
        }),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((edits) =>
      edits.reduce((t, edit) => {
        const at = t.length === 0 ? 0 : edit.at % t.length;
        switch (edit.kind) {
          case 'cut':
            return t.slice(0, at);
          case 'drop':
            return t.slice(0, at) + t.slice(at + edit.length);
          case 'insert':
            return t.slice(0, at) + edit.text + t.slice(at);
          default:
            return t.slice(0, at) + t.slice(at, at + edit.length) + t.slice(at);
        }
      }, text),
    );

describe('response parsers under fuzzing', () => {
  let sandbox: Sandbox;
  /** Real page bodies, as the wire carries them (int64 ids as bare JSON integers). */
  const pages = new Map<OperationName, string>();

  beforeAll(async () => {
    sandbox = await startSandbox({
      seed: 21,
      clubs: 1,
      members: 40,
      historyDays: 2,
      startTime: '2026-03-02T09:00:00Z',
    });
    sandbox.advance(3 * 60 * 60_000);
    for (const op of OPERATION_NAMES) {
      const data = sandbox.records('club-1', op, { offset: '0', limit: '20' });
      const body = JSON.stringify({
        href: `${sandbox.url}${OPERATIONS[op].path}`,
        next: `${sandbox.url}${OPERATIONS[op].path}?offset=20&limit=20`,
        data,
      });
      pages.set(op, body.replace(/"(-?\d{16,19})"/g, '$1'));
    }
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('parseJsonPreservingInt64 throws only SyntaxError, on any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json().chain(mutated)), (text) => {
        onlyThrows(() => parseJsonPreservingInt64(text), SyntaxError);
      }),
      { numRuns: RUNS },
    );
  });

  it('parseJsonPreservingInt64 reads valid JSON as JSON.parse does, integers of 16+ digits as their exact digits', () => {
    const expected = (value: unknown): unknown => {
      if (typeof value === 'number' && /^-?\d{16,}$/.test(JSON.stringify(value)))
        return JSON.stringify(value);
      if (Array.isArray(value)) return value.map(expected);
      if (value && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expected(v)]));
      return value;
    };
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonPreservingInt64(text)).toEqual(expected(JSON.parse(text)));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps every int64 exact, and leaves digits inside strings alone', () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(int64, fc.string(), (id, s) => {
        const text = `{"Id":${id},"s":${JSON.stringify(s)},"list":[${id},{"x":${id}}]}`;
        const parsed = parseJsonPreservingInt64(text) as { Id: unknown; s: string; list: unknown[] };
        const long = id.toString().replace('-', '').length >= 16;
        const want = long ? id.toString() : Number(id);
        expect(parsed.Id).toEqual(want);
        expect(parsed.list).toEqual([want, { x: want }]);
        expect(parsed.s).toBe(s);
      }),
      { numRuns: RUNS },
    );
  });

  it('parseEnvelope throws only InvalidResponseError, and never echoes the body', () => {
    const bodies = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constantFrom(...OPERATION_NAMES).chain((op) => mutated(pages.get(op)!)),
      fc.jsonValue().map((v) => JSON.stringify({ data: { [MARKER]: v }, next: MARKER })),
      fc.string().map((s) => `<html><body>${MARKER}${s}</body></html>`),
    );
    fc.assert(
      fc.property(
        bodies,
        fc.option(fc.constantFrom('application/json', 'text/html', 'text/plain; charset=utf-8')),
        (body, type) => {
          const outcome = onlyThrows(() => parseEnvelope('visits', body, type, 200), InvalidResponseError);
          if (outcome instanceof InvalidResponseError) {
            expect(outcome.message).not.toContain(MARKER);
            expect(outcome.message.length).toBeLessThan(400);
          } else {
            expect(Array.isArray((outcome as { data: unknown }).data)).toBe(true);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('readPage never throws, accounts for every item, and quarantine reasons never echo a value', () => {
    const field = fc.oneof(fc.jsonValue(), fc.constant(MARKER), fc.constant(`${MARKER}T00:00:00`));
    const items = (op: OperationName) =>
      fc.array(
        fc.oneof(
          fc.jsonValue(),
          // A real record with fields replaced or added.
          fc
            .record({
              index: fc.nat(19),
              key: fc.oneof(
                fc.string(),
                fc.constantFrom(
                  'Id',
                  'Number',
                  'Status',
                  'PaymentDate',
                  'VisitDateTime',
                  'Contact',
                  'Membership',
                  'FeeBreakdown',
                  'Items',
                ),
              ),
              value: field,
            })
            .map(({ index, key, value }) => {
              const records = (JSON.parse(pages.get(op)!) as { data: Record<string, unknown>[] }).data;
              const record = records[index % Math.max(1, records.length)] ?? {};
              return { ...record, [key]: value };
            }),
        ),
        { maxLength: 25 },
      );
    fc.assert(
      fc.property(
        fc.constantFrom(...OPERATION_NAMES).chain((op) => items(op).map((data) => ({ op, data }))),
        ({ op, data }) => {
          const page = readPage(OPERATIONS[op], { data }, 0, 500);
          expect(page.items.length + page.invalid.length).toBe(data.length);
          expect(page.rawCount).toBe(data.length);
          for (const bad of page.invalid) expect(bad.issues).not.toContain(MARKER);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('real pages, mutated, go through parse, envelope and items with typed errors only', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...OPERATION_NAMES)
          .chain((op) => mutated(pages.get(op)!).map((body) => ({ op, body }))),
        ({ op, body }) => {
          const envelope = onlyThrows(
            () => parseEnvelope(op, body, 'application/json', 200),
            InvalidResponseError,
          );
          if (envelope instanceof InvalidResponseError) return;
          const page = readPage(OPERATIONS[op], envelope as ReturnType<typeof parseEnvelope>, 0, 20);
          expect(page.items.length + page.invalid.length).toBe(page.rawCount);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('nextOffsetFromLink throws only InvalidResponseError and never lets a link skip or loop', () => {
    const endpoint = 'https://api.example.com/v1/members/attendance/visits';
    const links = fc.oneof(
      fc.string(),
      fc.webUrl({ withQueryParameters: true }),
      fc
        .record({
          offset: fc.oneof(fc.integer({ min: -5, max: 3000 }), fc.string()),
          limit: fc.oneof(fc.integer({ min: -5, max: 600 }), fc.string()),
        })
        .map(
          ({ offset, limit }) =>
            `${endpoint}?offset=${encodeURIComponent(String(offset))}&limit=${encodeURIComponent(String(limit))}`,
        ),
    );
    fc.assert(
      fc.property(
        links,
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.boolean(),
        (next, offset, rawCount, willFollow) => {
          const outcome = onlyThrows(
            () =>
              nextOffsetFromLink(next, {
                operation: 'visits',
                requestUrl: `${endpoint}?offset=${offset}&limit=500`,
                expectedEndpoint: endpoint,
                offset,
                rawCount,
                willFollow,
              }),
            InvalidResponseError,
          );
          if (typeof outcome === 'number') {
            expect(outcome).toBeGreaterThan(offset);
            expect(outcome).toBeLessThanOrEqual(offset + rawCount);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
