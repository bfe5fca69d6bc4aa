/**
 * The random activity of one step: how many of each kind (Poisson counts from per-day rates, shaped
 * by the hour's traffic where people come in), and when in the step each happens. The order of the
 * draws here is the data: visits first (drawn and made at once, they only read member status),
 * then each kind's count and times in the order below.
 */
import { DAY_MS } from '../../lambdas/common/time-units';
import type { MemberStatus, ProspectStatus } from '../../lambdas/gym-api/statuses';
import type { SimulationContext } from './context';
import { FUNNEL } from './prospects';

/** Per-day rates of random activity (before `activityScale`). */
export const DEFAULT_RATES = {
  visitsPerActiveMember: 0.45,
  joinsPerInitialMember: 0.003,
  suspensionsPerActiveMember: 0.0008,
  resumptionsPerSuspendedMember: 0.04,
  cancellationsPerActiveMember: 0.0012,
  contactChangesPerMember: 0.002,
  detailEditsPerMember: 0.003,
  signupCompletionsPerPendingSignup: 1,
  casualPaymentsPerActiveMember: 0.004,
  catchUpsPerPaymentIssueMember: 0.05,
  refundsPerActiveMember: 0.0004,
  posSalesPerMember: 0.03,
  prospectsPerMember: 0.012,
  earlySalesPerTrial: 0.03,
} as const;

/** One step of the clock: [t0, t1), the hour's traffic factor and the expected visits a day. */
export interface Step {
  readonly t0: number;
  readonly t1: number;
  readonly traffic: number;
  readonly visitsPerDay: number;
}

/** A random action due at `at`. */
export interface Action {
  readonly at: number;
  readonly run: (at: number) => void;
}

type Run = (atMs: number) => void;

/** What the domains do for each kind of random activity. */
export interface ActivityHandlers {
  readonly visits: (sortedTimes: readonly number[]) => void;
  readonly joins: Run;
  readonly suspension: Run;
  readonly resumption: Run;
  readonly cancellation: Run;
  readonly contactPreferencesChange: Run;
  readonly detailsEdit: Run;
  readonly signupCompletion: Run;
  readonly casualPayment: Run;
  readonly catchUp: Run;
  readonly refund: Run;
  readonly posSale: Run;
  readonly newProspect: Run;
  readonly prospectMove: (from: ProspectStatus, atMs: number) => void;
  readonly earlySale: Run;
}

/** Makes the step's visits, then draws the step's other actions: sorted by time, not yet run. */
export function scheduleActions(ctx: SimulationContext, step: Step, on: ActivityHandlers): Action[] {
  const { rng, store, settings } = ctx;
  const { t0, t1 } = step;
  const days = (t1 - t0) / DAY_MS;
  const count = (ratePerDay: number, shaped: boolean) =>
    rng.poisson(ratePerDay * ctx.scale * days * (shaped ? step.traffic : 1));
  const statusSize = (st: MemberStatus) => store.memberStatusSet(st).size;
  const members = store.members.length;
  const active = statusSize('Active');
  const r = DEFAULT_RATES;

  const visits = count(step.visitsPerDay, true);
  if (visits > 0) {
    const times: number[] = [];
    for (let i = 0; i < visits; i++) times.push(t0 + Math.floor(rng.next() * (t1 - t0)));
    times.sort((a, b) => a - b);
    on.visits(times);
  }

  const actions: Action[] = [];
  const schedule = (n: number, run: Run) => {
    for (let i = 0; i < n; i++) actions.push({ at: t0 + Math.floor(rng.next() * (t1 - t0)), run });
  };
  schedule(count(settings.initialMembers * r.joinsPerInitialMember, true), on.joins);
  schedule(count(active * r.suspensionsPerActiveMember, false), on.suspension);
  schedule(count(statusSize('Suspended') * r.resumptionsPerSuspendedMember, false), on.resumption);
  schedule(count(active * r.cancellationsPerActiveMember, false), on.cancellation);
  schedule(count(members * r.contactChangesPerMember, false), on.contactPreferencesChange);
  schedule(count(members * r.detailEditsPerMember, false), on.detailsEdit);
  schedule(
    count(statusSize('PendingOnlineSignup') * r.signupCompletionsPerPendingSignup, false),
    on.signupCompletion,
  );
  schedule(count(active * r.casualPaymentsPerActiveMember, true), on.casualPayment);
  schedule(count(statusSize('PaymentIssue') * r.catchUpsPerPaymentIssueMember, true), on.catchUp);
  schedule(count(active * r.refundsPerActiveMember, false), on.refund);
  schedule(count(members * r.posSalesPerMember, true), on.posSale);
  schedule(count(members * r.prospectsPerMember, true), on.newProspect);
  for (const [status, rule] of Object.entries(FUNNEL) as [ProspectStatus, { rate: number }][]) {
    const n = count(store.prospectStatusSet(status).size * rule.rate, true);
    schedule(n, (t) => on.prospectMove(status, t));
  }
  schedule(count(store.prospectStatusSet('OnTrial').size * r.earlySalesPerTrial, true), on.earlySale);
  actions.sort((a, b) => a.at - b.at);
  return actions;
}
