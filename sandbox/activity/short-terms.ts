/**
 * Short terms (docs/sandbox.md, "Short terms"): the subjects that come to satisfy a lifecycle rule
 * after the bridge began tracking a club (docs/lifecycle.md, "Baseline and late qualifiers"):
 * - day passes: a walk-in buys a pass of 1 to 7 days: a member who joins with a paid-in-full
 *   membership whose ExpiryDate is days away (archived once it passed);
 * - short trials: an Enquiry goes OnTrial for 20 to 40 hours (TrialEndDate a time of day, not a
 *   midnight);
 * - terms cut short: a paid-in-full member's ExpiryDate moves to 1 to 3 days away (archived once it
 *   passed, not renewed).
 * Each subject is changed once, so the journal's one change of a date tells its value before and
 * after (test/chaos/lifecycle-truth.ts reads it so). Off by default (`shortTerms`): the default data
 * stays as it was, draw for draw; the chaos suite turns them on.
 */

import { DAY_MS, HOUR_MS } from '../../lambdas/common/time-units';
import { floorToSecond, formatNaive } from '../naive-time';
import type { MembershipPlan } from '../vocabulary';
import type { SimulationContext } from './context';
import type { Members } from './members';
import type { Prospects } from './prospects';
import type { Action, Step } from './schedule';

/** Per-day rates (before `activityScale`). */
export const SHORT_TERM_RATES = {
  dayPassesPerInitialMember: 0.01,
  shortTrialsPerEnquiry: 0.1,
  cutsPerPaidInFullMember: 0.05,
} as const;

const DAY_PASS: MembershipPlan = {
  id: 301,
  name: 'Casual Pass',
  type: 'Paid in Full',
  amount: 25,
  weight: 0,
};

export class ShortTerms {
  /** Members whose term ends at its (short) ExpiryDate: day passes and terms cut short. */
  private readonly ending = new Set<number>();
  /** Subjects changed once already (a term cut, a short trial): never twice. */
  private readonly changed = new Set<string>();
  /**
   * Each member's ExpiryDate when the journal began (the first journaled step): a term is cut only
   * while its date is still that one (a renewal and a cut would be two changes the journal cannot
   * tell apart).
   */
  private journaledExpiry: Map<number, number> | undefined;

  constructor(
    private readonly ctx: SimulationContext,
    private readonly members: Members,
    private readonly prospects: Prospects,
  ) {}

  /** The step's short-term actions (drawn after every other of the step: the default draws stay). */
  actions(step: Step): Action[] {
    const { rng, store, settings } = this.ctx;
    if (!this.journaledExpiry && store.journaling)
      this.journaledExpiry = new Map(store.members.map((m) => [m.index, m.expiryKey ?? Number.NaN]));
    const days = (step.t1 - step.t0) / DAY_MS;
    const count = (ratePerDay: number) => rng.poisson(ratePerDay * this.ctx.scale * days * step.traffic);
    const paidInFull = store.memberStatusSet('Active').size * 0.2;
    const out: Action[] = [];
    const schedule = (n: number, run: (atMs: number) => void) => {
      for (let i = 0; i < n; i++)
        out.push({ at: step.t0 + Math.floor(rng.next() * (step.t1 - step.t0)), run });
    };
    const r = SHORT_TERM_RATES;
    schedule(count(settings.initialMembers * r.dayPassesPerInitialMember), (t) => this.dayPass(t));
    schedule(count(store.prospectStatusSet('Enquiry').size * r.shortTrialsPerEnquiry), (t) =>
      this.shortTrial(t),
    );
    schedule(count(paidInFull * r.cutsPerPaidInFullMember), (t) => this.cutShort(t));
    return out;
  }

  /** A walk-in buys a pass of 1 to 7 days: Active from today, ExpiryDate that many days away. */
  dayPass(atMs: number): void {
    const today = this.ctx.zone.localDayStart(atMs);
    const member = this.members.joinsOn(atMs, DAY_PASS, today + this.ctx.rng.int(1, 7) * DAY_MS);
    this.ending.add(member.index);
  }

  /** An Enquiry (never on trial) goes OnTrial for 20 to 40 hours. */
  shortTrial(atMs: number): void {
    const prospect = this.ctx.pickProspect('Enquiry');
    if (!prospect || this.changed.has(prospect.api.Number)) return;
    this.changed.add(prospect.api.Number);
    const endKey = floorToSecond(this.ctx.store.local(atMs) + this.ctx.rng.int(20, 40) * HOUR_MS);
    this.prospects.startTrialUntil(prospect, atMs, endKey);
  }

  /**
   * An Active paid-in-full member whose ExpiryDate is the one it had when the journal began has the
   * term cut: its ExpiryDate moves to 1 to 3 days away, and it is not renewed.
   */
  cutShort(atMs: number): void {
    const member = this.ctx.pickMember('Active');
    if (!member || member.expiryKey === undefined) return;
    const journaled = this.journaledExpiry ? this.journaledExpiry.get(member.index) : member.expiryKey;
    if (journaled !== member.expiryKey) return;
    if (this.changed.has(member.api.Number) || this.ending.has(member.index)) return;
    this.changed.add(member.api.Number);
    const expiry = this.ctx.zone.localDayStart(atMs) + this.ctx.rng.int(1, 3) * DAY_MS;
    this.ctx.store.editMember(member, atMs, (m) => {
      m.expiryKey = expiry;
      m.api.Membership.ExpiryDate = formatNaive(expiry);
      const { termMonths: _renewed, ...plan } = m.plan;
      m.plan = plan;
      return ['Membership.ExpiryDate'];
    });
    this.ending.add(member.index);
  }

  /** Daily just after local midnight: passes and cut terms past their ExpiryDate end (when Active). */
  housekeeping(atMs: number): void {
    const today = this.ctx.zone.localDayStart(atMs);
    for (const index of [...this.ending]) {
      const member = this.ctx.store.members[index];
      if (!member || member.expiryKey === undefined || member.expiryKey > today) continue;
      if (member.api.Status !== 'Active') continue;
      this.ending.delete(index);
      this.ctx.store.setMemberStatus(member, 'Archived', atMs);
    }
  }
}
