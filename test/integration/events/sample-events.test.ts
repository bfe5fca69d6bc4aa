/**
 * Sample events (`events sample`) come from the real engine polling a real sandbox over HTTP:
 * every detail-type yields the number asked for, each valid against the catalog, each with its own
 * eventId, all of the asked type, with the same events for the same seed and others for another.
 * The operational ones carry what their provoked condition says (401 reasons, 429/threshold, the
 * stale source, the unavailable source's 404/403).
 */
import { describe, expect, it } from 'vitest';
import { MAX_SAMPLE_COUNT, SampleError, sampleEvents } from '../../../cli/sample-events';
import {
  ALL_DETAIL_TYPES,
  type BridgeEvent,
  type BridgeEventOf,
  DETAIL_TYPES,
  type DetailType,
  validateEvent,
} from '../../../lambdas/events/catalog';

const COUNT = 4;

/**
 * The sample of each detail-type with the default seed and policy, `COUNT` events, produced once a
 * file: the tests of what the events carry read the first few of the same run. A sample of `n` is
 * the first `n` events of a larger one (`collect` stops at the count, the seed fixes the rest), so
 * they see what asking for `n` prints; producing each again cost a sixth of the file's CPU.
 */
const samples = new Map<DetailType, Promise<BridgeEvent[]>>();
function sampleOf(detailType: DetailType): Promise<BridgeEvent[]> {
  let sample = samples.get(detailType);
  if (!sample) {
    sample = sampleEvents({ detailType, count: COUNT });
    samples.set(detailType, sample);
  }
  return sample;
}

/** The first `count` events of the default sample of `detailType`. */
async function firstOf<T extends DetailType>(detailType: T, count: number): Promise<BridgeEventOf<T>[]> {
  if (count > COUNT) throw new RangeError(`at most ${COUNT} from the shared sample, asked ${count}`);
  return (await sampleOf(detailType)).slice(0, count) as BridgeEventOf<T>[];
}

describe('sampleEvents', () => {
  it.each(ALL_DETAIL_TYPES)(
    '%s: the engine produces the number asked for, each valid',
    async (detailType) => {
      // Act
      const events = await sampleOf(detailType);
      // Assess
      expect(events).toHaveLength(COUNT);
      for (const event of events) {
        expect(event.detailType).toBe(detailType);
        expect(() => validateEvent(event)).not.toThrow();
      }
      expect(new Set(events.map((e) => e.detail.eventId)).size).toBe(COUNT);
    },
  );

  it('is deterministic for a seed, and another seed gives other events', async () => {
    const a = await sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 3, seed: 5 });
    const b = await sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 3, seed: 5 });
    const c = await sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 3, seed: 6 });
    expect(b).toEqual(a);
    expect(c.map((e) => e.detail.eventId)).not.toEqual(a.map((e) => e.detail.eventId));
  });

  it('operational events say what was provoked', async () => {
    const rejected = await firstOf(DETAIL_TYPES.ClubCredentialsRejected, 2);
    expect(rejected.map((e) => e.detail.reason).sort()).toEqual(['apiKey', 'credentials']);

    const quota = await firstOf(DETAIL_TYPES.ClubQuotaLow, 2);
    expect(quota.map((e) => e.detail.reason)).toEqual(['threshold', 'rate-limited']);
    expect(quota[0]!.detail.share).toBeGreaterThanOrEqual(0.8);

    const unavailable = await firstOf(DETAIL_TYPES.ClubSourceUnavailable, 3);
    expect(unavailable[0]!.detail).toMatchObject({
      unavailableSource: 'classAttendance',
      kind: 'not-found',
      httpStatus: 404,
      experimental: true,
    });
    expect(unavailable.some((e) => e.detail.kind === 'forbidden' && e.detail.httpStatus === 403)).toBe(true);

    const stale = await firstOf(DETAIL_TYPES.ClubDataStale, 3);
    expect(new Set(stale.map((e) => e.detail.staleSource)).size).toBe(3);
    for (const e of stale) expect(e.detail.ageSeconds).toBeGreaterThanOrEqual(30 * 60);
  });

  it('class attendance: the opt-in source was enabled, its events are experimental', async () => {
    const events = await firstOf(DETAIL_TYPES.ClassAttendanceRecorded, 2);
    for (const e of events) expect(e.detail).toMatchObject({ source: 'classAttendance', experimental: true });
  });

  it('the PII policy of the sample club: minimal (the default) keeps contact details out, full keeps them', async () => {
    const minimal = await firstOf(DETAIL_TYPES.MemberJoined, 2);
    const full = await sampleEvents({ detailType: DETAIL_TYPES.MemberJoined, count: 2, piiPolicy: 'full' });
    const text = (events: unknown) => JSON.stringify(events);
    expect(text(minimal)).not.toMatch(/"Email"/);
    expect(text(full)).toMatch(/"Email"/);
  });

  it('a budget too small for the count is a SampleError saying how many were produced', async () => {
    await expect(
      sampleEvents({ detailType: DETAIL_TYPES.DisbursementRecorded, count: MAX_SAMPLE_COUNT, budgetMs: 1 }),
    ).rejects.toThrow(SampleError);
    await expect(sampleEvents({ detailType: DETAIL_TYPES.PaymentFailed, count: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
