import { describe, expect, it } from 'vitest';
import { ForcedResponses } from '../../../sandbox/faults';

describe('ForcedResponses', () => {
  it('answers the next `count` matching requests, other paths untouched', () => {
    const forced = new ForcedResponses();
    forced.add(2, { status: 503, pathPrefix: '/members/payment' });
    expect(forced.take('/members')).toBeUndefined();
    expect(forced.take('/members/payment/history')?.status).toBe(503);
    expect(forced.take('/members/payment/history')?.status).toBe(503);
    expect(forced.take('/members/payment/history')).toBeUndefined();
  });

  it('with Infinity, answers every matching request (a missing endpoint) until cleared', () => {
    const forced = new ForcedResponses();
    forced.add(Number.POSITIVE_INFINITY, { status: 404, pathPrefix: '/members/attendance/classes' });
    for (let i = 0; i < 1000; i++) expect(forced.take('/members/attendance/classes')?.status).toBe(404);
    expect(forced.take('/members/attendance/visits')).toBeUndefined();
    forced.clear();
    expect(forced.take('/members/attendance/classes')).toBeUndefined();
  });
});
