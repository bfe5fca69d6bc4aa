/** A club of the sandbox simulation in memory, for testing one domain alone (no sockets). */
import { SimulationContext } from '../../../../sandbox/activity/context';
import { Members } from '../../../../sandbox/activity/members';
import { Payments } from '../../../../sandbox/activity/payments';
import type { ClubProfile } from '../../../../sandbox/club-profile';
import { ClubStore } from '../../../../sandbox/club-store';
import { DEFAULT_FAULTS } from '../../../../sandbox/faults';
import { Journal } from '../../../../sandbox/journal';
import { localeForZone } from '../../../../sandbox/locales';
import { TimeZone } from '../../../../sandbox/naive-time';
import type { SortedIndex } from '../../../../sandbox/sorted-index';

/** 2026-06-10 00:00 UTC: 10:00 in Sydney. */
export const HISTORY_START = Date.parse('2026-06-10T00:00:00.000Z');

export function profile(extra: Partial<ClubProfile> = {}): ClubProfile {
  const timeZone = new TimeZone('Australia/Sydney');
  return {
    clubId: 'club-t',
    timeZone,
    plan: 'basic',
    locale: localeForZone(timeZone.name),
    ambiguousZone: 'local',
    openMinute: 5 * 60,
    closeMinute: 22 * 60,
    open24h: false,
    ...extra,
  };
}

export interface TestClub {
  readonly journal: Journal;
  readonly store: ClubStore;
  readonly ctx: SimulationContext;
  readonly payments: Payments;
  readonly members: Members;
}

/** A club with `initialMembers` members as they stand at HISTORY_START; journaling on. */
export function testClub(initialMembers: number, seed = 3): TestClub {
  const journal = new Journal();
  const store = new ClubStore(profile(), journal);
  const ctx = new SimulationContext(store, {
    seed,
    initialMembers,
    historyDays: 0,
    activityScale: 1,
    faults: { ...DEFAULT_FAULTS },
  });
  const payments = new Payments(ctx);
  const members = new Members(ctx, payments);
  for (let i = 0; i < initialMembers; i++) members.createInitial(HISTORY_START);
  store.journaling = true;
  return { journal, store, ctx, payments, members };
}

/** Every item of a sorted index, in key order. */
export function all<T>(index: SortedIndex<T>): T[] {
  return Array.from({ length: index.length }, (_, i) => index.itemAt(i));
}
