/**
 * The lifecycle facts a poll finds in records (docs/lifecycle.md): a member's visits folded into
 * Member First Visit and Member Returned, payment outcomes into Payment Recovered. Pure: what the
 * bridge keeps of the member in, what it keeps afterwards and the facts out.
 */
import { lifeWith, type MemberFacts, type MemberLife, normalLocal, wholeDaysBetween } from './rules';

export interface VisitFacts {
  readonly firstVisit?: { readonly membershipStartDate: string; readonly visitedAt: string };
  readonly returned?: {
    readonly from: string;
    readonly lastVisitAt: string | null;
    readonly visitedAt: string;
    readonly inactiveDays: number;
  };
}

/**
 * A member's visits (any order, any number) folded into what the bridge keeps: Member First Visit
 * for a membership whose start the bridge could watch (at or after `seenFrom`, the start of the visit
 * history it read) and whose first visit it had not recorded, Member Returned for the first visit
 * after an announced lapse (a late visit dated before the lapse's moment included:
 * docs/lifecycle.md). The first visit is the earliest visit at or after the start that the bridge
 * knows: of these visits, or the last one it kept (a start set or moved before it).
 */
export function foldVisits(
  facts: MemberFacts,
  life: MemberLife,
  visits: readonly string[],
  seenFrom: string,
): { life: MemberLife; facts: VisitFacts } {
  const sorted = visits.map(normalLocal).sort();
  const found: { -readonly [K in keyof VisitFacts]: VisitFacts[K] } = {};
  let next: MemberLife = life;
  const start = facts.startDate ? normalLocal(facts.startDate) : undefined;
  if (start && start >= normalLocal(seenFrom) && life.firstVisitOf !== start) {
    const known = life.lastVisitAt && life.lastVisitAt >= start ? [life.lastVisitAt] : [];
    const visitedAt = [...sorted.filter((v) => v >= start), ...known].sort()[0];
    if (visitedAt) {
      found.firstVisit = { membershipStartDate: start, visitedAt };
      next = lifeWith(next, { firstVisitOf: start });
    }
  }
  for (const visitedAt of sorted) {
    const lapse = next.lapse;
    if (lapse && visitedAt > lapse.from) {
      if (lapse.announced && !found.returned) {
        found.returned = {
          from: lapse.from,
          lastVisitAt: lapse.lastVisitAt,
          visitedAt,
          inactiveDays: wholeDaysBetween(lapse.lastVisitAt ?? lapse.from, visitedAt),
        };
      }
      next = lifeWith(next, { lapse: undefined });
    }
    if (!next.lastVisitAt || visitedAt > next.lastVisitAt) next = lifeWith(next, { lastVisitAt: visitedAt });
  }
  return { life: next, facts: found };
}

export interface PaymentOutcome {
  readonly paymentId: string;
  /** PaymentDate as the API gives it. */
  readonly at: string;
  readonly outcome: 'succeeded' | 'failed';
  readonly response: string;
}

export interface PaymentLife {
  /** The latest payment outcome's date: an outcome dated before it is history, not news. */
  readonly lastOutcomeAt?: string;
  /**
   * The outcomes taken at that date (`<paymentId>|<outcome>`): another evaluation reads them again
   * (its window overlaps) and must not take them twice, in an order it could not have known.
   */
  readonly tied?: readonly string[];
  /** The open failure: the latest outcome was this failure. */
  readonly openFailure?: { readonly paymentId: string; readonly response: string; readonly at: string };
}

export interface Recovered {
  readonly paymentId: string;
  readonly recoveredAt: string;
  readonly failedPaymentId: string;
  readonly failedResponse: string;
  readonly failedAt: string;
}

/**
 * A member's payment outcomes (any order) folded into what the bridge keeps: Payment Recovered for
 * a success whose previous outcome (by PaymentDate, then id) was a failure. Outcomes dated before
 * the latest one already kept change nothing (a late failure does not reopen a recovered debt);
 * outcomes at that same date are taken once each, in the order they reached the bridge (those of
 * one evaluation by id, a success first), so reading them again changes nothing.
 */
export function foldPayments(
  life: PaymentLife,
  outcomes: readonly PaymentOutcome[],
): { life: PaymentLife; recovered: Recovered[] } {
  // By date, then id; one payment's success before its failure (Approved, later Dishonoured).
  const order = (o: PaymentOutcome) =>
    `${normalLocal(o.at)}|${o.paymentId.padStart(20, '0')}|${o.outcome === 'succeeded' ? 0 : 1}`;
  const sorted = [...outcomes].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const recovered: Recovered[] = [];
  let next = life;
  for (const o of sorted) {
    const at = normalLocal(o.at);
    const key = `${o.paymentId}|${o.outcome}`;
    if (next.lastOutcomeAt && at < next.lastOutcomeAt) continue;
    if (next.lastOutcomeAt === at && next.tied?.includes(key)) continue;
    const tied = next.lastOutcomeAt === at ? [...(next.tied ?? []), key] : [key];
    if (o.outcome === 'failed') {
      next = { lastOutcomeAt: at, tied, openFailure: { paymentId: o.paymentId, response: o.response, at } };
    } else {
      const open = next.openFailure;
      if (open && open.paymentId !== o.paymentId) {
        recovered.push({
          paymentId: o.paymentId,
          recoveredAt: at,
          failedPaymentId: open.paymentId,
          failedResponse: open.response,
          failedAt: open.at,
        });
      }
      next = { lastOutcomeAt: at, tied };
    }
  }
  return { life: next, recovered };
}
