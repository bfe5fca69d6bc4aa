/**
 * A month of dispatcher ticks (one a minute) for one club, against a simple cost model of the API:
 * each source produces records at a rate (visits only during opening hours), a poll reads the
 * records of its query window (tail: lookback + time since the last poll; sweep: the sweep window;
 * baseline: the widest window, or the whole club for members and prospects), and costs
 * floor(records / 500) + 1 requests. The cursors are updated the way the engine updates them.
 */

import type { Plan } from '../../../../lambdas/clubs/club-config';
import { PAGE_SIZE } from '../../../../lambdas/engine/schedule/cost-estimate';
import { quotaBudget } from '../../../../lambdas/engine/schedule/quota-budget';
import { scheduleClub } from '../../../../lambdas/engine/schedule/scheduling';
import { SOURCE_ORDER, SOURCES } from '../../../../lambdas/sources';
import { type Cursor, newCursor, type SourceName } from '../../../../lambdas/state/store';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface ClubProfile {
  readonly plan: Plan;
  /** Records per day per source. */
  readonly perDay: Readonly<Record<SourceName, number>>;
  /** Sources whose records only come while the club is open (06:00-22:00 UTC here). */
  readonly openHoursOnly: readonly SourceName[];
  /** Size of a full read of a state source (baseline). */
  readonly members: number;
  readonly prospects: number;
}

/** 3,000 members, 1,500 visits a day; members pay weekly. */
export const TYPICAL_CLUB: ClubProfile = {
  plan: 'basic',
  perDay: {
    members: 150,
    prospects: 20,
    visits: 1500,
    paymentHistory: 430,
    posTransactions: 200,
    disbursements: 1,
    debtCollection: 1,
    classAttendance: 300,
  },
  openHoursOnly: ['visits', 'posTransactions', 'classAttendance', 'prospects'],
  members: 3000,
  prospects: 400,
};

export interface PollRecord {
  readonly source: SourceName;
  readonly atMs: number;
  readonly pages: number;
}

export interface MonthResult {
  readonly budget: number;
  readonly startUsed: number;
  readonly endUsed: number;
  /** Highest counter value seen at any tick. */
  readonly peakUsed: number;
  readonly polls: PollRecord[];
  /** Counter value at the start of each day. */
  readonly usedByDay: number[];
}

const OPEN_FROM_MIN = 6 * 60;
const OPEN_TO_MIN = 22 * 60;

/** Cumulative record counts per minute, so any window's count is two lookups. */
class RecordCounter {
  readonly #cumulative = new Map<SourceName, Float64Array>();
  constructor(
    profile: ClubProfile,
    private readonly originMs: number,
    minutes: number,
  ) {
    for (const source of SOURCE_ORDER) {
      const open = profile.openHoursOnly.includes(source);
      const perMinute = profile.perDay[source] / (open ? OPEN_TO_MIN - OPEN_FROM_MIN : 24 * 60);
      const sums = new Float64Array(minutes + 1);
      for (let m = 0; m < minutes; m++) {
        const minuteOfDay = m % (24 * 60);
        const active = !open || (minuteOfDay >= OPEN_FROM_MIN && minuteOfDay < OPEN_TO_MIN);
        sums[m + 1] = sums[m]! + (active ? perMinute : 0);
      }
      this.#cumulative.set(source, sums);
    }
  }

  between(source: SourceName, fromMs: number, toMs: number): number {
    const sums = this.#cumulative.get(source)!;
    const index = (ms: number) =>
      Math.min(sums.length - 1, Math.max(0, Math.floor((ms - this.originMs) / MINUTE)));
    return Math.round(sums[index(toMs)]! - sums[index(fromMs)]!);
  }
}

export function simulateMonth(
  profile: ClubProfile,
  options: { monthStart: string; startUsed: number; reserve?: number },
): MonthResult {
  const startMs = Date.parse(options.monthStart);
  const budget = quotaBudget(profile.plan, 0, startMs, options.reserve);
  const endMs = budget.monthEndMs;
  const historyMs = 12 * DAY; // longer than any sweep window
  const counter = new RecordCounter(
    profile,
    startMs - historyMs,
    Math.ceil((endMs - startMs + historyMs) / MINUTE),
  );
  const cursors = new Map<SourceName, Cursor>(SOURCE_ORDER.map((s) => [s, newCursor('sim', s)]));
  const polls: PollRecord[] = [];
  const usedByDay: number[] = [];
  let used = options.startUsed;
  let peakUsed = used;

  for (let now = startMs; now < endMs; now += MINUTE) {
    if ((now - startMs) % DAY === 0) usedByDay.push(used);
    const plan = scheduleClub({
      plan: profile.plan,
      cursors: [...cursors.values()],
      quotaUsed: used,
      nowMs: now,
      ...(options.reserve === undefined ? {} : { reserve: options.reserve }),
    });
    for (const source of plan.due) {
      const cursor = cursors.get(source)!;
      const definition = SOURCES[source];
      const lastPoll = cursor.health.lastPollAt ? Date.parse(cursor.health.lastPollAt) : undefined;
      const lastSweep = cursor.stats?.lastSweepAtMs;
      let records: number;
      let deep = false;
      if (lastPoll === undefined) {
        deep = true;
        records =
          source === 'members'
            ? profile.members
            : source === 'prospects'
              ? profile.prospects
              : counter.between(
                  source,
                  now - Math.max(definition.tailLookbackMs, definition.sweep?.windowMs ?? 0),
                  now,
                );
      } else if (
        definition.sweep &&
        (lastSweep === undefined || now - lastSweep >= definition.sweep.everyMs)
      ) {
        deep = true;
        records = counter.between(source, lastPoll - definition.sweep.windowMs, now);
      } else {
        records = counter.between(source, lastPoll - definition.tailLookbackMs, now);
      }
      const pages = Math.floor(records / PAGE_SIZE) + 1;
      used += pages;
      peakUsed = Math.max(peakUsed, used);
      polls.push({ source, atMs: now, pages });
      cursors.set(source, {
        ...cursor,
        version: cursor.version + 1,
        baselineDone: true,
        watermark: new Date(now).toISOString(),
        health: {
          ...cursor.health,
          lastPollAt: new Date(now).toISOString(),
          lastSuccessAt: new Date(now).toISOString(),
        },
        stats: {
          ...cursor.stats,
          lastPages: pages,
          lastRecords: records,
          ...(deep ? { lastSweepAtMs: now } : {}),
        },
      });
    }
  }
  return { budget: budget.budget, startUsed: options.startUsed, endUsed: used, peakUsed, polls, usedByDay };
}

export function pollsOf(result: MonthResult, source: SourceName): PollRecord[] {
  return result.polls.filter((p) => p.source === source);
}

/** Median gap (ms) between consecutive polls of a source whose second poll starts in [fromMin, toMin) of the day. */
export function medianGapMs(
  polls: readonly PollRecord[],
  fromMinuteOfDay = 0,
  toMinuteOfDay = 24 * 60,
): number {
  const gaps: number[] = [];
  for (let i = 1; i < polls.length; i++) {
    const minuteOfDay = Math.floor((polls[i]!.atMs % DAY) / MINUTE);
    if (minuteOfDay >= fromMinuteOfDay && minuteOfDay < toMinuteOfDay)
      gaps.push(polls[i]!.atMs - polls[i - 1]!.atMs);
  }
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? Number.POSITIVE_INFINITY;
}
