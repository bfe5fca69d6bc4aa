/**
 * Larger records (the sandbox's `recordScale`, sandbox/record-padding.ts): every record a
 * data page serves carries fields the seed does not list, so that its JSON is about `recordScale`
 * times its own; the records are otherwise the same, the same each time they are served, and the
 * client reads them as valid records with the extra fields kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GymApiClient, TokenProvider } from '../../../lambdas/gym-api';
import { OPERATIONS, type OperationName } from '../../../lambdas/gym-api/operations';
import { type Sandbox, startSandbox } from '../../../sandbox';
import { MAX_RECORD_SCALE } from '../../../sandbox/record-padding';
import { type Envelope, rawGet, requestToken } from './sandbox-http';

const OPTIONS = { seed: 12, clubs: 1, members: 120, historyDays: 5, startTime: '2026-02-02T00:00:00Z' };
const EXTRA_FIELDS = ['Notes', 'CustomFields', 'ExternalReferences'];
const SOURCES = Object.keys(OPERATIONS).filter((o) => o !== 'classAttendance') as OperationName[];
let plain: Sandbox;
let doubled: Sandbox;

beforeAll(async () => {
  [plain, doubled] = await Promise.all([
    startSandbox({ ...OPTIONS, compression: 'none' }),
    startSandbox({ ...OPTIONS, compression: 'none', recordScale: 2 }),
  ]);
});
afterAll(() => Promise.all([plain.close(), doubled.close()]));

async function page(sandbox: Sandbox, operation: OperationName): Promise<{ bytes: number; data: unknown[] }> {
  const token = await requestToken(sandbox);
  const apiKey = sandbox.clubs[0]?.apiKey ?? '';
  const answer = await rawGet(sandbox, `${OPERATIONS[operation].path}?fromdate=2000-01-01T00:00:00`, {
    token,
    apiKey,
  });
  expect(answer.status).toBe(200);
  const data = (JSON.parse(answer.text) as Envelope).data;
  return { bytes: Buffer.byteLength(JSON.stringify(data)), data };
}

describe('sandbox records twice their size', () => {
  it('serves every operation with records about twice as large, the seed fields unchanged', async () => {
    for (const operation of SOURCES) {
      const [asIs, larger] = await Promise.all([page(plain, operation), page(doubled, operation)]);
      expect(asIs.data.length, operation).toBeGreaterThan(0);
      expect(larger.data.length, operation).toBe(asIs.data.length);
      const ratio = larger.bytes / asIs.bytes;
      expect(ratio, operation).toBeGreaterThan(1.9);
      expect(ratio, operation).toBeLessThan(2.1);
      for (const [i, record] of larger.data.entries()) {
        const extra = Object.keys(record as object).filter((k) => EXTRA_FIELDS.includes(k));
        expect(extra.length, operation).toBeGreaterThan(0);
        const seedFields = Object.fromEntries(
          Object.entries(record as object).filter(([k]) => !EXTRA_FIELDS.includes(k)),
        );
        expect(seedFields).toEqual(asIs.data[i]);
      }
    }
  });

  it('serves the same extra fields each time, and the client keeps them on valid records', async () => {
    const first = await page(doubled, 'members');
    expect((await page(doubled, 'members')).data).toEqual(first.data);
    const client = new GymApiClient({
      baseUrl: doubled.url,
      apiKey: doubled.clubs[0]?.apiKey ?? '',
      tokenProvider: new TokenProvider({ baseUrl: doubled.url, ...doubled.integrator }),
    });
    let items = 0;
    for await (const p of client.pages('members', {}, { pageSize: 50 })) {
      expect(p.invalid).toEqual([]);
      for (const item of p.items)
        expect(Object.keys(item).filter((k) => EXTRA_FIELDS.includes(k)).length).toBeGreaterThan(0);
      items += p.items.length;
    }
    expect(items).toBe(first.data.length);
  });

  it('refuses a scale below 1 or above the limit by name', async () => {
    for (const scale of [0.5, 0, Number.NaN, MAX_RECORD_SCALE + 1])
      await expect(startSandbox({ ...OPTIONS, recordScale: scale })).rejects.toThrow(
        `recordScale must be a number from 1 to ${MAX_RECORD_SCALE}, got ${scale}`,
      );
  });
});
