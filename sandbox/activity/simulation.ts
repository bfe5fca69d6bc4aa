/**
 * The club simulation's coordinator: the initial population, and all activity over a span of the
 * sandbox clock, drawn by the domains (members, prospects, visits, payments, billing, settlement,
 * POS, classes). Deterministic: the same seed and the same sequence of spans give the same data.
 *
 * Time is walked in steps of at most 15 minutes, aligned to UTC quarter hours (so each step lies in
 * one local hour of every zone). In each step, random activity is drawn from Poisson rates shaped
 * by the local hour, and daily jobs (billing run, settlement, debt referrals, housekeeping, classes)
 * fire at fixed local times, found through the zone so DST gaps and repeated hours are handled.
 * Every draw comes from one stream in a fixed order: reordering draws changes the data.
 */
import { DAY_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { ProspectStatus } from '../../lambdas/gym-api/statuses';
import type { ClubStore } from '../club-store';
import { makePerson } from '../people';
import { PoisonLog } from '../poison/poison-log';
import { StoredPoison } from '../poison/stored-poison';
import { SeededRandom } from '../sandbox-random';
import { CLASS_TIMETABLE } from '../vocabulary';
import { Billing } from './billing';
import { classSession } from './classes';
import { SimulationContext, type SimulationSettings } from './context';
import { Members } from './members';
import { Payments } from './payments';
import { posSale } from './pos';
import { FUNNEL, Prospects } from './prospects';
import { DEFAULT_RATES, type Step, scheduleActions } from './schedule';
import { Settlement } from './settlement';
import { ShortTerms } from './short-terms';
import { trafficFactor, visitBatch } from './visits';

const STEP_MS = 15 * MINUTE_MS;

/** A daily job at a fixed local time. */
interface Job {
  readonly name: string;
  readonly localMinute: number;
  readonly run: (atMs: number) => void;
  nextAt: number;
}

export class ClubSimulation {
  private readonly ctx: SimulationContext;
  private readonly payments: Payments;
  private readonly billing: Billing;
  private readonly settlement: Settlement;
  private readonly members: Members;
  private readonly prospects: Prospects;
  private readonly poison: StoredPoison;
  private readonly shortTerms: ShortTerms | undefined;
  private readonly jobs: Job[];
  private visitRate: number;
  private historyEndMs = 0;

  constructor(
    readonly store: ClubStore,
    private readonly settings: SimulationSettings,
  ) {
    this.ctx = new SimulationContext(store, settings);
    this.payments = new Payments(this.ctx);
    this.billing = new Billing(this.ctx, this.payments);
    this.settlement = new Settlement(this.ctx, this.payments);
    this.members = new Members(this.ctx, this.payments);
    this.prospects = new Prospects(this.ctx, this.members);
    this.shortTerms = settings.shortTerms
      ? new ShortTerms(this.ctx, this.members, this.prospects)
      : undefined;
    this.poison = new StoredPoison(
      store,
      settings.seed,
      settings.faults,
      settings.poisonLog ?? new PoisonLog(),
    );
    this.visitRate = DEFAULT_RATES.visitsPerActiveMember;
    this.jobs = this.dailyJobs();
  }

  private dailyJobs(): Job[] {
    const job = (name: string, localMinute: number, run: (atMs: number) => void): Job => ({
      name,
      localMinute,
      run,
      nextAt: 0,
    });
    return [
      job('housekeeping', 5, (t) => this.housekeeping(t)),
      job('billing', 2 * 60 + 30, (t) => this.billing.billingRun(t)),
      job('settlement', 6 * 60, (t) => this.settlement.settlementRun(t)),
      job('debt-referral', 9 * 60, (t) => this.settlement.debtReferralRun(t)),
      ...CLASS_TIMETABLE.map((slot) =>
        job(`class-${slot.classId}`, slot.startMinute, (t) => classSession(this.ctx, slot, t)),
      ),
    ];
  }

  /** Creates the club's staff, members and prospects as they stand at `historyStartMs`. */
  populate(historyStartMs: number): void {
    const { settings, store } = this;
    this.ctx.salesPeople = this.staff();
    for (let i = 0; i < settings.initialMembers; i++) this.members.createInitial(historyStartMs);
    const prospects = Math.round(settings.initialMembers * 0.15);
    for (let i = 0; i < prospects; i++) this.prospects.createInitial(historyStartMs);
    for (const job of this.jobs) job.nextAt = this.nextLocalTime(historyStartMs - 1, job.localMinute);
    const active = store.memberStatusSet('Active').size;
    this.historyEndMs = historyStartMs + settings.historyDays * DAY_MS;
    if (settings.historyVisits !== undefined && active > 0 && settings.historyDays > 0) {
      this.visitRate = settings.historyVisits / (active * settings.historyDays * this.ctx.scale);
    }
  }

  /** The four sales people prospects are assigned to, from their own stream. */
  private staff() {
    const clubId = this.store.clubId;
    const staffRng = new SeededRandom(this.settings.seed, `staff:${clubId}`);
    return Array.from({ length: 4 }, (_, i) => {
      const p = makePerson(staffRng, this.store.profile.locale, i);
      return {
        Id: 900 + i,
        FirstName: p.firstName,
        LastName: p.lastName,
        Email: `${p.firstName}.${p.lastName.charAt(0)}@${clubId}.example.com`
          .toLowerCase()
          .replace(/[^a-z0-9.@-]/g, ''),
      };
    });
  }

  /** Expected visits a day: a fixed total during the history when `historyVisits` is set. */
  private visitsPerDay(atMs: number): number {
    const target = this.settings.historyVisits;
    if (target !== undefined && atMs < this.historyEndMs && this.settings.historyDays > 0) {
      return target / this.settings.historyDays / this.ctx.scale;
    }
    return this.store.memberStatusSet('Active').size * this.visitRate;
  }

  /** Generates all activity in [fromMs, toMs). */
  run(fromMs: number, toMs: number): void {
    let t = fromMs;
    while (t < toMs) {
      const end = Math.min(toMs, Math.floor(t / STEP_MS) * STEP_MS + STEP_MS);
      this.step(t, end);
      t = end;
    }
  }

  /**
   * A little activity at one instant, for `insertWhilePaging`: `count` random changes (visits,
   * sales, payments, member edits, prospect moves) stamped `atMs`.
   */
  burst(atMs: number, count: number): void {
    const rng = this.ctx.rng;
    const kinds = [
      () => visitBatch(this.ctx, [atMs]),
      () => posSale(this.ctx, atMs),
      () => this.payments.casualPayment(atMs),
      () => this.members.contactPreferencesChange(atMs),
      () => this.members.detailsEdit(atMs),
      () => this.prospects.newProspect(atMs),
      () => this.prospects.move(rng.pick(Object.keys(FUNNEL) as ProspectStatus[]), atMs),
    ];
    for (let i = 0; i < count; i++) rng.pick(kinds)();
  }

  private step(t0: number, t1: number): void {
    const step: Step = {
      t0,
      t1,
      traffic: trafficFactor(this.store.profile, this.store.local(t0)),
      visitsPerDay: this.visitsPerDay(t0),
    };
    const actions = scheduleActions(this.ctx, step, {
      visits: (times) => visitBatch(this.ctx, times),
      joins: (t) => this.members.joins(t),
      suspension: (t) => this.members.suspension(t),
      resumption: (t) => this.members.resumption(t),
      cancellation: (t) => this.members.cancellation(t),
      contactPreferencesChange: (t) => this.members.contactPreferencesChange(t),
      detailsEdit: (t) => this.members.detailsEdit(t),
      signupCompletion: (t) => this.members.signupCompletion(t),
      casualPayment: (t) => this.payments.casualPayment(t),
      catchUp: (t) => this.payments.catchUp(t),
      refund: (t) => this.payments.refund(t),
      posSale: (t) => posSale(this.ctx, t),
      newProspect: (t) => this.prospects.newProspect(t),
      prospectMove: (status, t) => this.prospects.move(status, t),
      earlySale: (t) => this.prospects.trialEnds(t, true),
    });
    // Short terms draw after every other action of the step: off, the data is what it was.
    const more = this.shortTerms?.actions(step) ?? [];
    this.runInOrder(more.length > 0 ? [...actions, ...more].sort((a, b) => a.at - b.at) : actions, t0, t1);
    this.poison.run(t0, t1);
  }

  /** Runs the step's random actions, the daily jobs and the dishonours due, in time order. */
  private runInOrder(actions: readonly { at: number; run: (at: number) => void }[], t0: number, t1: number) {
    let next = 0;
    for (;;) {
      const action = actions[next];
      const job = this.dueJob(t1);
      const dishonour = this.billing.nextDishonour(t1);
      const earliest = Math.min(action?.at ?? Infinity, job?.nextAt ?? Infinity, dishonour?.at ?? Infinity);
      if (earliest === Infinity) break;
      if (job && job.nextAt === earliest) {
        const at = job.nextAt;
        job.nextAt = this.nextLocalTime(at, job.localMinute);
        job.run(at);
      } else if (dishonour && dishonour.at === earliest) {
        this.billing.applyNextDishonour(Math.max(dishonour.at, t0));
      } else if (action) {
        next++;
        action.run(action.at);
      }
    }
  }

  private dueJob(beforeMs: number): Job | undefined {
    let best: Job | undefined;
    for (const job of this.jobs) if (job.nextAt < beforeMs && (!best || job.nextAt < best.nextAt)) best = job;
    return best;
  }

  /** The first instant after `afterMs` whose local time of day is `localMinute`. */
  private nextLocalTime(afterMs: number, localMinute: number): number {
    const zone = this.ctx.zone;
    const day = zone.localDayStart(afterMs);
    for (let k = 0; k < 3; k++) {
      const at = zone.fromNaive(day + k * DAY_MS + localMinute * MINUTE_MS);
      if (at > afterMs) return at;
    }
    return afterMs + DAY_MS;
  }

  /** Daily just after local midnight: start dates reached, cancellations effective, trials over. */
  private housekeeping(atMs: number): void {
    this.members.housekeeping(atMs);
    this.prospects.endTrials(atMs);
    this.shortTerms?.housekeeping(atMs);
  }
}
