/**
 * A lifecycle evaluation that fails (docs/lifecycle.md, "When an evaluation fails"): reported with
 * since when the club's evaluations fail and how often, noted on the club state item for `status`
 * and `explain`; a second failure in a row waits for the club's next hour instead of failing at
 * every poll; the evaluation that succeeds clears the note. On the memory store.
 */

import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { HOUR_MS } from '../../../lambdas/common/time-units';
import { MemorySink } from '../../../lambdas/events/publisher';
import { evaluationHourStartMs, runClubLifecycle } from '../../../lambdas/lifecycle/club-lifecycle';
import { type Cursor, MemoryStateStore, newCursor, StoreError } from '../../../lambdas/state';
import { addNotes, type LifecycleNotes } from '../../../lambdas/state/lifecycle-notes';
import { decorateStore } from '../../../lambdas/state/state-store';
import { openSession } from '../../support/state-seeds';

const CLUB: ClubConfig = {
  clubId: 'club-1',
  baseUrl: 'https://api.example.com/v1',
  timeZone: 'UTC',
  plan: 'basic',
  credentials: { username: 'u', password: 'p', apiKey: 'k' },
  enabled: true,
  piiPolicy: 'minimal',
  unstatedZone: 'local',
  unstatedZoneConfirmed: true,
  sources: ['members', 'visits'],
};
const cursors: Cursor[] = (['members', 'visits'] as const).map((s) => ({
  ...newCursor(CLUB.clubId, s),
  baselineDone: true,
  version: 1,
}));
const poll = {
  polled: new Set(['members', 'visits'] as const),
  completed: new Set(['members', 'visits'] as const),
};
const api = { client: { pages: async function* () {} }, deadlineMs: Number.MAX_SAFE_INTEGER };
const HOUR0 = evaluationHourStartMs(CLUB.clubId, 493_000);

class Session {
  hour: number | undefined;
  notes: LifecycleNotes = {};
  lifecycleHour = () => this.hour;
  markLifecycleHour = (hour: number) => {
    this.hour = hour;
  };
  lifecycleNotes = () => this.notes;
  clearLifecycleNotes = () => {
    this.notes = {};
  };
  noteLifecycle = (more: LifecycleNotes) => {
    this.notes = addNotes(this.notes, more);
  };
}

describe('a lifecycle evaluation that fails', () => {
  it('is noted with since when and why, waits for the next hour after a second failure, and clears on success', async () => {
    // Prepare: the lifecycle documents cannot be written while `broken`.
    let broken = true;
    const failing = decorateStore(new MemoryStateStore(), (method, _args, call) =>
      method === 'putLifecycle' && broken ? Promise.reject(new StoreError('item too large')) : call(),
    );
    const store = await openSession(failing, CLUB.clubId);
    const session = new Session();
    const sink = new MemorySink();
    const evaluate = (nowMs: number) =>
      runClubLifecycle({ store, sink, session, nowMs, poll, api }, CLUB, cursors);

    // Act
    const first = await evaluate(HOUR0 + 60_000);
    const second = await evaluate(HOUR0 + 120_000);
    const third = await evaluate(HOUR0 + 180_000);
    const noted = session.notes.failed;
    const nextHour = await evaluate(HOUR0 + HOUR_MS + 60_000);
    broken = false;
    const recovered = await evaluate(HOUR0 + 2 * HOUR_MS + 60_000);

    // Assess
    expect(first).toEqual({
      outcome: 'failed',
      error: 'StoreError: item too large',
      failingSinceMs: HOUR0 + 60_000,
      attempts: 1,
    });
    expect(second).toMatchObject({ outcome: 'failed', failingSinceMs: HOUR0 + 60_000, attempts: 2 });
    expect(third).toEqual({
      outcome: 'waiting',
      reason: expect.stringMatching(
        /^failing since .* \(2 attempts, StoreError: item too large\): tried again in the next hour$/,
      ),
    });
    expect(noted).toEqual({
      sinceMs: HOUR0 + 60_000,
      lastMs: HOUR0 + 120_000,
      attempts: 2,
      error: 'StoreError: item too large',
    });
    expect(nextHour).toMatchObject({ outcome: 'failed', attempts: 3 });
    expect(recovered).toMatchObject({ outcome: 'evaluated', read: 'all' });
    expect(session.notes).toEqual({});
  });
});
