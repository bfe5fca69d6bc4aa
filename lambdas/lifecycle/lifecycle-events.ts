/**
 * The events of lifecycle facts (docs/lifecycle.md): one fact of an evaluation in, one catalog
 * event out. The eventId derives from the fact's identity (member or prospect, the fact, what it
 * is about), never from the evaluation that found it: a retry or a crash publishes the same id.
 * Published PUBLISH_BATCH at a time (`publishFacts`: the keep, after it recorded them as pending,
 * and the evaluation, for what an earlier one kept and may not have published).
 */
import { type BridgeEvent, DETAIL_TYPES } from '../events/catalog';
import { createEvent } from '../events/envelope';
import type { EventSink } from '../events/event-sink';
import type { LifecycleFact } from './evaluate';
import { instantOf, localAt } from './rules';

export interface LifecycleEventContext {
  readonly clubId: string;
  readonly zone: string;
  readonly nowMs: number;
}

/**
 * `occurredAt` (UTC) and `occurredAtLocal` of a fact (evaluate.ts, `announcement`): its record's
 * local time when that is its moment (kept as the API wrote it), else the instant in the club's zone.
 */
function when(ctx: LifecycleEventContext, occurredAtMs: number, recordLocal?: string) {
  const local =
    recordLocal !== undefined && instantOf(recordLocal, ctx.zone) === occurredAtMs
      ? recordLocal
      : localAt(occurredAtMs, ctx.zone);
  return { occurredAt: new Date(occurredAtMs), occurredAtLocal: local, observedAt: new Date(ctx.nowMs) };
}

type FactOf<K extends LifecycleFact['fact']> = Extract<LifecycleFact, { fact: K }>;

/** Member Inactive or Membership Expiring: a time-based fact, at its moment. */
function dueEvent(ctx: LifecycleEventContext, fact: FactOf<'due'>): BridgeEvent {
  const { member, found: due } = fact;
  const envelope = {
    clubId: ctx.clubId,
    subject: { memberNumber: member },
    ...when(ctx, fact.occurredAtMs),
  };
  if (due.rule === 'inactive') {
    return createEvent(
      DETAIL_TYPES.MemberInactive,
      { ...envelope, identity: [member, 'inactive', due.from] },
      { lastVisitAt: due.lastVisitAt, inactiveDays: due.inactiveDays, thresholdDays: due.thresholdDays },
    );
  }
  return createEvent(
    DETAIL_TYPES.MembershipExpiring,
    { ...envelope, identity: [member, 'expiring', due.kind, due.date] },
    { kind: due.kind, date: due.date, daysLeft: due.daysLeft },
  );
}

/** Member First Visit, Member Returned or Payment Recovered: a fact a record shows, at its time. */
function recordEvent(ctx: LifecycleEventContext, fact: FactOf<'firstVisit' | 'returned' | 'recovered'>) {
  const { member } = fact;
  const envelope = (identity: string[], local: string) => ({
    clubId: ctx.clubId,
    identity: [member, ...identity],
    subject: { memberNumber: member },
    ...when(ctx, fact.occurredAtMs, local),
  });
  if (fact.fact === 'firstVisit') {
    const { membershipStartDate, visitedAt } = fact.found;
    return createEvent(
      DETAIL_TYPES.MemberFirstVisit,
      envelope(['firstVisit', membershipStartDate], visitedAt),
      { visitedAt, membershipStartDate },
    );
  }
  if (fact.fact === 'returned') {
    const { from, lastVisitAt, visitedAt, inactiveDays } = fact.found;
    return createEvent(DETAIL_TYPES.MemberReturned, envelope(['returned', from], visitedAt), {
      visitedAt,
      lastVisitAt,
      inactiveDays,
    });
  }
  const { paymentId, recoveredAt, failedPaymentId, failedResponse, failedAt } = fact.found;
  return createEvent(DETAIL_TYPES.PaymentRecovered, envelope(['recovered', failedPaymentId], recoveredAt), {
    paymentId,
    failedPaymentId,
    failedResponse,
    failedAt,
    recoveredAt,
  });
}

/** The event of one lifecycle fact. */
export function lifecycleEvent(ctx: LifecycleEventContext, fact: LifecycleFact): BridgeEvent {
  if (fact.fact === 'due') return dueEvent(ctx, fact);
  if (fact.fact !== 'trialEnding') return recordEvent(ctx, fact);
  const { trialEndDate, hoursLeft } = fact.found;
  return createEvent(
    DETAIL_TYPES.ProspectTrialEnding,
    {
      clubId: ctx.clubId,
      identity: [fact.prospect, 'trialEnding', trialEndDate],
      subject: { prospectNumber: fact.prospect },
      ...when(ctx, fact.occurredAtMs),
    },
    { trialEndDate, hoursLeft },
  );
}

/** Facts whose events are built and published at a time: a club's every member due in one hour stays in memory bounds. */
export const PUBLISH_BATCH = 500;

/** Publishes the facts' events PUBLISH_BATCH at a time, as of the evaluation that found them. */
export async function publishFacts(
  sink: Pick<EventSink, 'publish'>,
  ctx: LifecycleEventContext,
  facts: readonly LifecycleFact[],
): Promise<void> {
  for (let i = 0; i < facts.length; i += PUBLISH_BATCH)
    await sink.publish(facts.slice(i, i + PUBLISH_BATCH).map((fact) => lifecycleEvent(ctx, fact)));
}
