/**
 * The time-based lifecycle rules (docs/lifecycle.md) as pure functions of what the bridge knows:
 * its facts (status, membership dates, trial end), what it has seen (last visit, payment outcomes),
 * what it has announced, the start of tracking, the clock and the club's zone. They return facts,
 * each with the parts of its eventId: whichever poll or evaluation finds a fact, it finds the same.
 *
 * All local times are the club's wall clock (docs/lifecycle.md, "Time"): the API gives membership
 * dates, visits and trial ends in gym local time with no offset; "N days after" is the same
 * wall-clock time N calendar days later, turned into an instant only to compare with the clock,
 * with the engine's one reading of local times (common/zoned-time.ts). Strings compare as times
 * once normalised to whole seconds (`normalLocal`). The local-time helpers come first, then the rules.
 */
import { DAY_MS, HOUR_MS } from '../common/time-units';
import { formatNaive, localToUtc, naiveMs, utcToLocal } from '../common/zoned-time';

/** A local date-time in whole seconds (`2026-03-02T06:00:00`), so that strings sort as time. */
export const normalLocal = (local: string): string => formatNaive(naiveMs(local));

/** The same wall-clock time `days` calendar days later (earlier when negative). */
export const addLocalDays = (local: string, days: number): string =>
  formatNaive(naiveMs(local) + days * DAY_MS);

/** The instant of a local wall-clock time in `zone`. */
export const instantOf = (local: string, zone: string): number => localToUtc(local, zone).instantMs;

/** The later of local times (undefined ones ignored). */
export function latestLocal(...values: (string | null | undefined)[]): string | undefined {
  let latest: string | undefined;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const n = normalLocal(v);
    if (latest === undefined || n > latest) latest = n;
  }
  return latest;
}

/** Whole local calendar days from the day of `fromLocal` to the day of `toLocal` (negative if before). */
export function calendarDaysBetween(fromLocal: string, toLocal: string): number {
  const day = (local: string) => Math.floor(naiveMs(local) / DAY_MS);
  return day(toLocal) - day(fromLocal);
}

/** Whole days (of wall-clock time) from `fromLocal` to `toLocal`, rounded down. */
export const wholeDaysBetween = (fromLocal: string, toLocal: string): number =>
  Math.floor((naiveMs(toLocal) - naiveMs(fromLocal)) / DAY_MS);

/** The club's local wall-clock time at an instant. */
export const localAt = (instantMs: number, zone: string): string => utcToLocal(instantMs, zone);

export interface LifecycleSettings {
  /** Days without a visit after which an Active member is announced inactive. */
  readonly inactiveDays: number;
  /** Days before an ExpiryDate or MinimumTermDate that Membership Expiring is announced. */
  readonly expiringDays: number;
  /** Hours before an OnTrial prospect's TrialEndDate that Prospect Trial Ending is announced. */
  readonly trialEndingHours: number;
}

export const LIFECYCLE_DEFAULTS: LifecycleSettings = {
  inactiveDays: 14,
  expiringDays: 14,
  trialEndingHours: 24,
};

export const ACTIVE = 'Active';
export const ON_TRIAL = 'OnTrial';

/** What the member record says (membership dates in gym local time). */
export interface MemberFacts {
  readonly status: string | null;
  readonly startDate?: string | null;
  readonly expiryDate?: string | null;
  readonly minimumTermDate?: string | null;
  readonly cancellationDate?: string | null;
}

/** A lapse: the time it counts from, the last visit then (null: none seen), and whether announced. */
export interface Lapse {
  readonly from: string;
  readonly lastVisitAt: string | null;
  /** False for a lapse recorded silently (baseline): its return is not announced either. */
  readonly announced: boolean;
}

/** What the bridge keeps of a member for the rules. */
export interface MemberLife {
  /** The latest visit seen (local). */
  readonly lastVisitAt?: string;
  /** The membership start whose first visit was announced (or passed silently). */
  readonly firstVisitOf?: string;
  readonly lapse?: Lapse;
  /** `expiry|<date>` and `minimumTerm|<date>` announced (or passed silently). */
  readonly expiring?: readonly string[];
}

/** A member's kept state with its payment part (folds.ts's PaymentLife, opaque here). */
type LifeParts = MemberLife & { readonly pay?: unknown };

/**
 * `life` with `change` applied (a part given as undefined is dropped), built as one object literal
 * of one shape: the kept state of every member then shares one hidden class. `{ ...life, part }`
 * made V8 (Node 20) a new one per member: 50,000 of them held 15 MB (bench: the big club).
 */
export function lifeWith<L extends LifeParts>(life: L, change: Partial<LifeParts>): L {
  const part = <K extends keyof LifeParts>(k: K): LifeParts[K] => (k in change ? change[k] : life[k]);
  return {
    lastVisitAt: part('lastVisitAt'),
    firstVisitOf: part('firstVisitOf'),
    lapse: part('lapse'),
    expiring: part('expiring'),
    pay: part('pay'),
  } as L;
}

/** Whether the bridge keeps anything of the member. */
export const hasLife = (life: LifeParts): boolean =>
  life.lastVisitAt !== undefined ||
  life.firstVisitOf !== undefined ||
  life.lapse !== undefined ||
  life.expiring !== undefined ||
  life.pay !== undefined;

export type ExpiringKind = 'expiry' | 'minimumTerm';

export type MemberDue =
  | {
      readonly rule: 'inactive';
      readonly from: string;
      readonly lastVisitAt: string | null;
      readonly inactiveDays: number;
      readonly thresholdDays: number;
      readonly momentMs: number;
    }
  | {
      readonly rule: 'expiring';
      readonly kind: ExpiringKind;
      readonly date: string;
      readonly daysLeft: number;
      readonly momentMs: number;
    };

export interface Evaluation<D> {
  /** Facts whose moment has come and that were not announced yet. */
  readonly due: D[];
  /** The next moment a rule can fire for this subject as things stand (none: undefined). */
  readonly nextAtMs?: number;
}

/**
 * The facts whose change can make a subject satisfy a time-based rule (docs/lifecycle.md, "Baseline
 * and late qualifiers"): a change of one of them that the bridge read after its moment is when the
 * fact came to be, and its occurredAt. The record-based rules (First Visit, Returned, Recovered)
 * are qualified by their record, whose time is their moment.
 */
export const QUALIFYING_FACTS = {
  inactive: ['status', 'startDate'],
  expiry: ['status', 'cancellationDate', 'expiryDate'],
  minimumTerm: ['status', 'cancellationDate', 'minimumTermDate'],
  trialEnding: ['status', 'trialEndDate'],
} as const satisfies Record<string, readonly (keyof MemberFacts | keyof ProspectFacts)[]>;

/**
 * The time an Active member's lapse counts from: the last visit the bridge has seen, or the
 * membership start when later; with no visit seen, the start of the visit history the bridge read
 * (`seenFrom`: the start of tracking less inactiveDays, or the start of tracking for a club tracked
 * before that history was read). A visit it has seen is never replaced by the start of tracking.
 */
export function lapseFrom(facts: MemberFacts, life: MemberLife, seenFrom: string): string {
  return latestLocal(life.lastVisitAt, facts.startDate, seenFrom)!;
}

/** The time-based rules of a member at `nowMs`: Member Inactive and Membership Expiring. */
export function evaluateMember(
  facts: MemberFacts,
  life: MemberLife,
  seenFrom: string,
  nowMs: number,
  zone: string,
  settings: LifecycleSettings,
): Evaluation<MemberDue> {
  const due: MemberDue[] = [];
  let nextAtMs: number | undefined;
  const later = (ms: number) => {
    nextAtMs = nextAtMs === undefined ? ms : Math.min(nextAtMs, ms);
  };
  if (facts.status !== ACTIVE) return { due };
  const nowLocal = localAt(nowMs, zone);
  const from = lapseFrom(facts, life, seenFrom);
  if (life.lapse?.from !== from) {
    const momentMs = instantOf(addLocalDays(from, settings.inactiveDays), zone);
    if (nowMs < momentMs) later(momentMs);
    else {
      const lastVisitAt = life.lastVisitAt ? normalLocal(life.lastVisitAt) : null;
      const inactiveDays = Math.max(settings.inactiveDays, wholeDaysBetween(lastVisitAt ?? from, nowLocal));
      due.push({
        rule: 'inactive',
        from,
        lastVisitAt,
        inactiveDays,
        thresholdDays: settings.inactiveDays,
        momentMs,
      });
    }
  }
  if (facts.cancellationDate) return nextAtMs === undefined ? { due } : { due, nextAtMs };
  const dates: [ExpiringKind, string | null | undefined][] = [
    ['expiry', facts.expiryDate],
    ['minimumTerm', facts.minimumTermDate],
  ];
  for (const [kind, value] of dates) {
    if (!value) continue;
    const date = normalLocal(value);
    if (life.expiring?.includes(`${kind}|${date}`)) continue;
    const endMs = instantOf(date, zone);
    const momentMs = instantOf(addLocalDays(date, -settings.expiringDays), zone);
    if (nowMs >= endMs) continue;
    if (nowMs < momentMs) later(momentMs);
    else due.push({ rule: 'expiring', kind, date, daysLeft: calendarDaysBetween(nowLocal, date), momentMs });
  }
  return nextAtMs === undefined ? { due } : { due, nextAtMs };
}

export interface ProspectFacts {
  readonly status: string | null;
  readonly trialEndDate?: string | null;
}

export interface TrialEndingDue {
  readonly rule: 'trialEnding';
  readonly trialEndDate: string;
  readonly hoursLeft: number;
  readonly momentMs: number;
}

/** Prospect Trial Ending at `nowMs`; `announced` holds the trial ends already announced. */
export function evaluateProspect(
  facts: ProspectFacts,
  announced: readonly string[],
  nowMs: number,
  zone: string,
  settings: LifecycleSettings,
): Evaluation<TrialEndingDue> {
  if (facts.status !== ON_TRIAL || !facts.trialEndDate) return { due: [] };
  const trialEndDate = normalLocal(facts.trialEndDate);
  if (announced.includes(trialEndDate)) return { due: [] };
  const endMs = instantOf(trialEndDate, zone);
  const momentMs = endMs - settings.trialEndingHours * HOUR_MS;
  if (nowMs >= endMs) return { due: [] };
  if (nowMs < momentMs) return { due: [], nextAtMs: momentMs };
  const hoursLeft = Math.floor((endMs - nowMs) / HOUR_MS);
  return { due: [{ rule: 'trialEnding', trialEndDate, hoursLeft, momentMs }] };
}
