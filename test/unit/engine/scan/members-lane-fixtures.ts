/**
 * Shared by the members-lane engine tests: a client whose regular (`updatedate`-filtered) and
 * backfill (unfiltered) member reads are set by the test, the Sydney club's source context, and a
 * readable list of what was published.
 */
import type { BridgeEvent } from '../../../../lambdas/events/catalog';
import type { GymApiClient } from '../../../../lambdas/gym-api';
import type { ItemOf } from '../../../../lambdas/gym-api/operations';
import { sydney } from '../../sources/fixtures';

export type Member = ItemOf<'members'>;

export function stubClient(serve: { tail: Member[]; all: Member[] }): GymApiClient {
  return {
    async *pages(_op: string, query: Record<string, string>) {
      const items = query.updatedate ? serve.tail : serve.all;
      yield { offset: 0, limit: 500, items, invalid: [], rawCount: items.length };
    },
  } as unknown as GymApiClient;
}

export const NOW = Date.parse('2025-06-02T00:00:00Z');
export const FROM = Date.parse('2025-04-01T00:00:00Z');
export const ctx = {
  clubId: sydney.clubId,
  timeZone: sydney.timeZone,
  unstatedZone: sydney.unstatedZone,
  piiPolicy: sydney.piiPolicy,
};
export const types = (events: readonly BridgeEvent[]) =>
  events.map((e) => `${e.detailType} ${e.detail.subject?.memberNumber}`);
