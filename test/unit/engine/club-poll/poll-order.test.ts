import { describe, expect, it } from 'vitest';
import { pollOrder } from '../../../../lambdas/engine/club-poll/poll-club';
import { type Cursor, newCursor, type SourceName } from '../../../../lambdas/state';

const ORDER: SourceName[] = ['members', 'prospects', 'visits', 'paymentHistory', 'classAttendance'];

function polledAt(source: SourceName, iso?: string): Cursor {
  const c = newCursor('club-1', source);
  return iso ? { ...c, health: { ...c.health, lastPollAt: iso } } : c;
}

describe('pollOrder', () => {
  it('keeps the usual order when every source was polled in the same round', () => {
    const at = '2026-05-01T10:00:00.000Z';
    expect(
      pollOrder(
        ORDER,
        ORDER.map((s) => polledAt(s, at)),
      ),
    ).toEqual(ORDER);
  });

  it('keeps the usual order on the first poll of a club', () => {
    expect(pollOrder(ORDER, [])).toEqual(ORDER);
  });

  it('puts sources left behind by a cut-short poll first, oldest first', () => {
    const cursors = [
      polledAt('members', '2026-05-01T10:10:00.000Z'),
      polledAt('prospects', '2026-05-01T10:10:00.000Z'),
      polledAt('visits', '2026-05-01T10:10:00.000Z'),
      polledAt('paymentHistory', '2026-05-01T10:05:00.000Z'),
      polledAt('classAttendance', '2026-05-01T09:00:00.000Z'),
    ];
    expect(pollOrder(ORDER, cursors)).toEqual([
      'classAttendance',
      'paymentHistory',
      'members',
      'prospects',
      'visits',
    ]);
  });

  it('treats a never-polled source among polled ones as the most behind', () => {
    const cursors = ORDER.filter((s) => s !== 'visits').map((s) => polledAt(s, '2026-05-01T10:00:00.000Z'));
    expect(pollOrder(ORDER, cursors)[0]).toBe('visits');
  });
});
