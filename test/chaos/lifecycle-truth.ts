/**
 * What the sandbox's records and journal say a subject's life was, as timelines the lifecycle
 * verdict (lifecycle-check.ts) reads: member status, membership dates and cancellation, prospect
 * status and trial end, visits (when dated and when the API first showed them) and payment
 * outcomes. Built from the records at the baseline, the journal after it and the records at the
 * end, never from the bridge's state.
 */
import { formatNaive, localToUtc, naiveMs } from '../../lambdas/common/zoned-time';
import { type JournalEntry, PAYMENT_RESPONSES } from '../../sandbox';

export type ApiRecord = Record<string, unknown>;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** A local date-time in whole seconds, so strings sort as times. */
export const norm = (local: string): string => formatNaive(naiveMs(local));
export const plusDays = (local: string, days: number): string => formatNaive(naiveMs(local) + days * DAY);
export const instantIn = (zone: string) => (local: string) => localToUtc(local, zone).instantMs;

/** A value over time: `value` from `fromMs` until the next segment. */
export interface Segment<T> {
  readonly fromMs: number;
  readonly value: T;
}

export class Timeline<T> {
  constructor(readonly segments: readonly Segment<T>[]) {}

  at(ms: number): T | undefined {
    let value: T | undefined;
    for (const s of this.segments) if (s.fromMs <= ms) value = s.value;
    return value;
  }

  /** Whether the value satisfied `ok` at some time in [fromMs, toMs]. */
  someIn(fromMs: number, toMs: number, ok: (value: T) => boolean): boolean {
    return this.segments.some((s, i) => {
      const end = this.segments[i + 1]?.fromMs ?? Number.POSITIVE_INFINITY;
      return s.fromMs <= toMs && end > fromMs && ok(s.value);
    });
  }

  /** The times the value changes in (fromMs, toMs]. */
  changesIn(fromMs: number, toMs: number): number[] {
    return this.segments.map((s) => s.fromMs).filter((ms) => ms > fromMs && ms <= toMs);
  }
}

/**
 * Whether `ok` (of the time) held at some time, or at every time, of [fromMs, toMs], for a
 * condition on several timelines: it can only change where one of them does.
 */
export function heldIn(
  timelines: readonly (Timeline<unknown> | undefined)[],
  fromMs: number,
  toMs: number,
  ok: (ms: number) => boolean,
): { some: boolean; every: boolean } {
  if (toMs < fromMs) return { some: false, every: false };
  const times = [fromMs, ...timelines.flatMap((t) => t?.changesIn(fromMs, toMs) ?? [])];
  const results = times.map(ok);
  return { some: results.some(Boolean), every: results.every(Boolean) };
}

/** A local date-time as given, in whole seconds; null when absent or not one (a bent record). */
function text(v: unknown): string | null {
  if (typeof v !== 'string' || v === '') return null;
  try {
    return norm(v);
  } catch {
    return null;
  }
}
const membership = (r: ApiRecord | undefined) => (r?.Membership ?? {}) as ApiRecord;
const at = (e: JournalEntry) => Date.parse(e.at);

export interface Visit {
  /** VisitDateTime (local). */
  readonly local: string;
  /** When the API first showed it (the journal's time). */
  readonly shownMs: number;
}

export interface Observation {
  readonly paymentId: string;
  readonly member: string;
  /** PaymentDate as given (local, or UTC where the API writes it so: one reading per run). */
  readonly date: string;
  readonly outcome: 'succeeded' | 'failed';
  readonly response: string;
  /** When the API first showed this outcome (-Infinity: at the baseline). */
  readonly shownMs: number;
}

export interface MemberLife {
  readonly status: Timeline<string>;
  readonly startDate: string | null;
  readonly minimumTermDate: string | null;
  /** Undefined: it changed more than once, the check cannot tell its values apart. */
  readonly expiryDate: Timeline<string | null> | undefined;
  readonly cancellationDate: Timeline<string | null>;
  readonly visits: Visit[];
}

export interface ProspectLife {
  readonly status: Timeline<string>;
  readonly trialEndDate: Timeline<string | null> | undefined;
}

export function outcomeOf(response: string): 'succeeded' | 'failed' | undefined {
  if (response === PAYMENT_RESPONSES.approved) return 'succeeded';
  const failures: readonly string[] = [...PAYMENT_RESPONSES.declined, ...PAYMENT_RESPONSES.dishonoured];
  return failures.includes(response) ? 'failed' : undefined;
}

export interface SandboxView {
  /** The API's records when the baseline ended (visits: every one then, the history the bridge read among them). */
  readonly baseline: {
    members: ApiRecord[];
    prospects: ApiRecord[];
    payments: ApiRecord[];
    visits: ApiRecord[];
  };
  readonly final: { members: ApiRecord[]; prospects: ApiRecord[] };
  readonly journal: readonly JournalEntry[];
  readonly baselineMs: number;
}

/** A date that changed `changes` times: before and after the one change, or unknown after more. */
function dateTimeline(
  before: string | null,
  after: string | null,
  changes: readonly number[],
  fromMs: number,
): Timeline<string | null> | undefined {
  if (changes.length === 0) return before === after ? new Timeline([{ fromMs, value: after }]) : undefined;
  if (changes.length > 1) return undefined;
  return new Timeline([
    { fromMs, value: before },
    { fromMs: changes[0]!, value: after },
  ]);
}

export function memberLives(view: SandboxView): Map<string, MemberLife> {
  const byNumber = (records: ApiRecord[]) => new Map(records.map((r) => [String(r.Number), r]));
  const base = byNumber(view.baseline.members);
  const final = byNumber(view.final.members);
  const statuses = new Map<string, Segment<string>[]>();
  const expiryChanges = new Map<string, number[]>();
  const cancellations = new Map<string, Segment<string | null>[]>();
  const visits = new Map<string, Visit[]>();
  const joinedAt = new Map<string, number>();
  const push = <T>(map: Map<string, T[]>, key: string, value: T) =>
    map.set(key, [...(map.get(key) ?? []), value]);
  // Visits the API showed by the baseline: the first evaluation's visit history reads them.
  for (const v of view.baseline.visits) {
    const local = text(v.VisitDateTime);
    if (local && v.MemberNumber != null)
      push(visits, String(v.MemberNumber), { local, shownMs: Number.NEGATIVE_INFINITY });
  }
  for (const e of view.journal) {
    if (e.kind === 'memberJoined') {
      joinedAt.set(e.memberNumber, at(e));
      push(statuses, e.memberNumber, { fromMs: at(e), value: e.status });
    } else if (e.kind === 'memberStatusChanged')
      push(statuses, e.memberNumber, { fromMs: at(e), value: e.current });
    else if (e.kind === 'membershipCancelled')
      push(cancellations, e.memberNumber, { fromMs: at(e), value: norm(e.cancellationDate) });
    else if (e.kind === 'memberDetailsChanged' && e.fields.includes('Membership.ExpiryDate'))
      push(expiryChanges, e.memberNumber, at(e));
    else if (e.kind === 'visit')
      push(visits, e.memberNumber, { local: norm(e.visitDateTime), shownMs: at(e) });
  }
  const out = new Map<string, MemberLife>();
  for (const [number, record] of final) {
    const before = base.get(number);
    const fromMs = joinedAt.get(number) ?? view.baselineMs;
    const first = before ? [{ fromMs: view.baselineMs, value: String(before.Status) }] : [];
    const initialCancel = text(membership(before ?? record).CancellationDate);
    out.set(number, {
      status: new Timeline([...first, ...(statuses.get(number) ?? [])]),
      startDate: text(membership(record).StartDate),
      minimumTermDate: text(membership(record).MinimumTermDate),
      // A member who joined in the run and renewed since: its first expiry is not known here.
      expiryDate:
        !before && (expiryChanges.get(number)?.length ?? 0) > 0
          ? undefined
          : dateTimeline(
              text(membership(before ?? record).ExpiryDate),
              text(membership(record).ExpiryDate),
              expiryChanges.get(number) ?? [],
              fromMs,
            ),
      cancellationDate: new Timeline([
        { fromMs, value: before ? initialCancel : null },
        ...(cancellations.get(number) ?? []),
      ]),
      visits: visits.get(number) ?? [],
    });
  }
  return out;
}

export function prospectLives(view: SandboxView): Map<string, ProspectLife> {
  const base = new Map(view.baseline.prospects.map((r) => [String(r.Number), r]));
  const statuses = new Map<string, Segment<string>[]>();
  const trials = new Map<string, number[]>();
  const createdAt = new Map<string, number>();
  for (const e of view.journal) {
    if (e.kind !== 'prospectCreated' && e.kind !== 'prospectStatusChanged') continue;
    const status = e.kind === 'prospectCreated' ? e.status : e.current;
    if (e.kind === 'prospectCreated') createdAt.set(e.prospectNumber, at(e));
    statuses.set(e.prospectNumber, [
      ...(statuses.get(e.prospectNumber) ?? []),
      { fromMs: at(e), value: status },
    ]);
    if (status === 'OnTrial') trials.set(e.prospectNumber, [...(trials.get(e.prospectNumber) ?? []), at(e)]);
  }
  const out = new Map<string, ProspectLife>();
  for (const record of view.final.prospects) {
    const number = String(record.Number);
    const before = base.get(number);
    const first = before ? [{ fromMs: view.baselineMs, value: String(before.Status) }] : [];
    const changes = trials.get(number) ?? [];
    out.set(number, {
      status: new Timeline([...first, ...(statuses.get(number) ?? [])]),
      // A prospect created in the run had no trial end before (or its first trial at creation).
      trialEndDate: dateTimeline(
        before ? text(before.TrialEndDate) : null,
        text(record.TrialEndDate),
        changes,
        createdAt.get(number) ?? view.baselineMs,
      ),
    });
  }
  return out;
}

/**
 * Payment outcomes: those the API showed at the baseline (with their Response then), and those of
 * the journal after it, in the order the API showed them. A Response the sandbox's vocabulary calls
 * neither a success nor a failure is no outcome.
 */
export function paymentObservations(view: SandboxView): { before: Observation[]; after: Observation[] } {
  const known = new Map<string, { member: string; date: string }>();
  const before: Observation[] = [];
  for (const r of view.baseline.payments) {
    const paymentId = String(r.Id);
    const member = String(r.Number ?? r.MemberNumber ?? '');
    const date = text(r.PaymentDate);
    if (!date) continue;
    known.set(paymentId, { member, date });
    const outcome = outcomeOf(String(r.Response ?? ''));
    if (outcome)
      before.push({ paymentId, member, date, outcome, response: String(r.Response), shownMs: -Infinity });
  }
  const after: Observation[] = [];
  for (const e of view.journal) {
    if (e.kind === 'paymentRecorded')
      known.set(e.paymentId, { member: e.memberNumber, date: norm(e.paymentDate) });
    if (e.kind !== 'paymentRecorded' && e.kind !== 'paymentResponseChanged') continue;
    const response = e.kind === 'paymentRecorded' ? e.response : e.current;
    const payment = known.get(e.paymentId);
    const outcome = outcomeOf(response);
    if (payment && outcome)
      after.push({ paymentId: e.paymentId, ...payment, outcome, response, shownMs: at(e) });
  }
  return { before, after };
}
