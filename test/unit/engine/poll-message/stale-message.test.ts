/** Stale poll messages and the 429 count of a club poll's clients. */
import { describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../../lambdas/clubs/club-config';
import {
  type ClientFactory,
  RateLimitCountingFactory,
} from '../../../../lambdas/engine/club-poll/client-factory';
import { sourcesStillDue } from '../../../../lambdas/engine/club-poll/stale-sources';
import type { GymApiClient, RequestObserver } from '../../../../lambdas/gym-api';
import { type Cursor, newCursor } from '../../../../lambdas/state/store';

const DISPATCHED = '2026-06-10T12:00:00.000Z';

const succeeded = (source: Cursor['source'], at: string): Cursor => ({
  ...newCursor('club-1', source),
  health: { consecutiveFailures: 0, lastSuccessAt: at },
});

describe('sourcesStillDue', () => {
  it('leaves out the sources whose last success came after the message was dispatched', () => {
    // Prepare: visits polled after the dispatch, members before, payments never.
    const cursors = [
      succeeded('visits', '2026-06-10T12:00:05.000Z'),
      succeeded('members', '2026-06-10T11:59:00.000Z'),
    ];
    // Act
    const due = sourcesStillDue(cursors, ['members', 'visits', 'paymentHistory'], DISPATCHED);
    // Assess
    expect(due).toEqual(['members', 'paymentHistory']);
    expect(sourcesStillDue(cursors, ['visits'], DISPATCHED)).toEqual([]);
  });
});

describe('RateLimitCountingFactory', () => {
  it('counts the 429 answers of the clients it builds and passes every request on', () => {
    // Prepare: a factory whose clients report three requests, one of them a 429.
    let observer: RequestObserver | undefined;
    const inner: ClientFactory = {
      forClub: (_club, onRequest) => {
        observer = onRequest;
        return {} as GymApiClient;
      },
    };
    const seen: (number | undefined)[] = [];
    const counting = new RateLimitCountingFactory(inner);
    // Act
    counting.forClub({} as ClubConfig, (e) => seen.push(e.status));
    for (const status of [200, 429, 200])
      observer!({ kind: 'data', status } as Parameters<RequestObserver>[0]);
    // Assess
    expect(counting.rateLimited).toBe(1);
    expect(seen).toEqual([200, 429, 200]);
  });
});
