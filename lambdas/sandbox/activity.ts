/**
 * The club simulation: the initial population, and all activity over a span of the sandbox clock
 * (visits, payments, declines and dishonours, refunds, POS sales, settlements, debt collection,
 * member and prospect lifecycles, class attendance). Deterministic: the same seed and the same
 * sequence of spans give the same data.
 *
 * Time is walked in steps of at most 15 minutes, aligned to UTC quarter hours (so each step lies in
 * one local hour of every zone). In each step, random activity is drawn from Poisson rates shaped
 * by the local hour, and daily jobs (billing run, settlement, debt referrals, housekeeping, classes)
 * fire at fixed local times, found through the zone so DST gaps and repeated hours are handled.
 */
import type { MemberStatus, ProspectStatus } from '../gym-api/schemas';
import type { ClubStore } from './club-store';
import type { Faults } from './faults';
import { makePerson, oneLineAddress, type Person } from './people';
import type {
  ApiDisbursementBreakdown,
  ApiPosItem,
  FeeBreakdown,
  FeeField,
  IdName,
  MemberRecord,
  PaymentRecord,
  ProspectRecord,
  SalesPerson,
} from './records';
import { SeededRandom } from './seeded-random';
import {
  CLASS_TIMETABLE,
  type ClassSlot,
  DISHONOUR_FEE,
  DOORS,
  FEE_FIELDS,
  GENDERS,
  INSTRUCTORS,
  JOINING_FEE,
  MEMBERSHIP_PLANS,
  type MembershipPlan,
  PAYMENT_PURPOSES,
  PAYMENT_RESPONSES,
  PRODUCTS,
  PROSPECT_CONTACT_METHODS,
  PROSPECT_SOURCE_PAGES,
  PROSPECT_SOURCES,
  TILLS,
} from './vocabulary';
import { floorToSecond, formatNaive, MS_DAY, MS_MINUTE, MS_SECOND } from './zoned-time';

/** First int64 ids handed out: above 2^53, so clients are tested on precision. */
export const FIRST_PAYMENT_ID = 9007199254740993n;
export const FIRST_POS_ID = 9007199254800001n;
export const FIRST_POS_ITEM_ID = 9007199255000001n;

const STEP_MS = 15 * MS_MINUTE;
const DEBT_AFTER_DAYS = 7;

/** Relative visit (and walk-in) traffic per local hour. */
const HOURLY_TRAFFIC = [
  0.25, 0.15, 0.12, 0.12, 0.3, 1.2, 2.2, 2.0, 1.5, 1.1, 0.8, 0.8, 1.1, 0.9, 0.6, 0.7, 1.1, 2.0, 2.2, 1.6, 1.0,
  0.6, 0.4, 0.3,
];

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

/** Prospect funnel: daily rate of leaving each status, and where to. OnTrial ends at TrialEndDate. */
const FUNNEL: Partial<
  Record<ProspectStatus, { rate: number; next: readonly (readonly [ProspectStatus, number])[] }>
> = {
  Enquiry: {
    rate: 0.35,
    next: [
      ['Tour', 45],
      ['OnTrial', 20],
      ['NotInterested', 25],
      ['DidNotShow', 10],
    ],
  },
  Tour: {
    rate: 0.5,
    next: [
      ['OnTrial', 40],
      ['Sale', 30],
      ['NotInterested', 20],
      ['DidNotShow', 10],
    ],
  },
  DidNotShow: {
    rate: 0.08,
    next: [
      ['Tour', 50],
      ['NotInterested', 50],
    ],
  },
  NotInterested: { rate: 0.01, next: [['NoSaleReturn', 1]] },
  Trial_Expired: { rate: 0.02, next: [['NoSaleReturn', 1]] },
  NoSaleReturn: {
    rate: 0.25,
    next: [
      ['Tour', 40],
      ['OnTrial', 30],
      ['Sale', 30],
    ],
  },
};

const DD_STATUSES_BILLED: readonly MemberStatus[] = ['Active', 'PaymentIssue'];

export interface SimulationSettings {
  readonly seed: number;
  readonly initialMembers: number;
  /** Visits in the initial history, when set: overrides the per-member visit rate. */
  readonly historyVisits?: number;
  readonly historyDays: number;
  readonly activityScale: number;
  /** Read on every record, so changes at run time apply at once. */
  readonly faults: Faults;
}

interface Job {
  readonly name: string;
  readonly localMinute: number;
  readonly run: (atMs: number) => void;
  nextAt: number;
}

interface Dishonour {
  readonly at: number;
  readonly payment: PaymentRecord;
}

interface Reversal {
  readonly payment: PaymentRecord;
  readonly transactionKey: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function addMonths(naiveMs: number, months: number): number {
  const d = new Date(naiveMs);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

function fees(parts: Partial<FeeBreakdown>): FeeBreakdown {
  const out = {} as FeeBreakdown;
  for (const f of FEE_FIELDS) out[f] = parts[f] ?? 0;
  return out;
}

const FEE_TO_DISBURSEMENT: Partial<Record<FeeField, keyof ApiDisbursementBreakdown>> = {
  SubscriptionFee: 'Membership',
  AccessCardFee: 'AccessCard',
  CardSurchargeFee: 'Surcharge',
  JoiningFee: 'Joining',
  SetupFee: 'Setup',
  TransactionFee: 'Transaction',
  ArrearsFee: 'Arrears',
  Prorata: 'Prorata',
  DishonourFee: 'Dishonour',
  SuspensionFee: 'Suspension',
  PosTransaction: 'Pos',
  AddOnAmount: 'AddOn',
  CancellationLateFee: 'Cancellation',
  ClassNoShowFee: 'ClassNoShow',
  PtNoShowFee: 'PtNoShow',
};

function disbursementBreakdown(payment: PaymentRecord, sign: 1 | -1): ApiDisbursementBreakdown {
  const out: ApiDisbursementBreakdown = {
    Membership: 0,
    AccessCard: 0,
    Surcharge: 0,
    Joining: 0,
    Setup: 0,
    Transaction: 0,
    Subscription: 0,
    Arrears: 0,
    Prorata: 0,
    Dishonour: 0,
    Suspension: 0,
    Pos: 0,
    AddOn: 0,
    Cancellation: 0,
    ClassNoShow: 0,
    PtNoShow: 0,
  };
  for (const line of payment.api.FeeBreakdown) {
    for (const [fee, target] of Object.entries(FEE_TO_DISBURSEMENT) as [
      FeeField,
      keyof ApiDisbursementBreakdown,
    ][]) {
      out[target] = round2(out[target] + sign * line[fee]);
    }
  }
  return out;
}

export class ClubSimulation {
  private readonly rng: SeededRandom;
  /** Lateness decisions, apart from `rng` so toggling the fault leaves the data stream alone. */
  private readonly lateRng: SeededRandom;
  private readonly jobs: Job[];
  private dishonours: Dishonour[] = [];
  private readonly pendingSettlement: PaymentRecord[] = [];
  private readonly reversals: Reversal[] = [];
  private readonly recentApproved: PaymentRecord[] = [];
  private readonly pendingCancellations = new Set<number>();
  private salesPeople: SalesPerson[] = [];
  private visitRate: number = DEFAULT_RATES.visitsPerActiveMember;
  private historyEndMs = 0;
  private nextPaymentId = FIRST_PAYMENT_ID;
  private nextPosId = FIRST_POS_ID;
  private nextPosItemId = FIRST_POS_ITEM_ID;
  private nextMembershipId = 70001;
  private nextAttendanceId = 1;

  constructor(
    readonly store: ClubStore,
    private readonly settings: SimulationSettings,
  ) {
    this.rng = new SeededRandom(settings.seed, `activity:${store.clubId}`);
    this.lateRng = new SeededRandom(settings.seed, `lateness:${store.clubId}`);
    this.jobs = [
      { name: 'housekeeping', localMinute: 5, run: (t) => this.housekeeping(t), nextAt: 0 },
      { name: 'billing', localMinute: 2 * 60 + 30, run: (t) => this.billingRun(t), nextAt: 0 },
      { name: 'settlement', localMinute: 6 * 60, run: (t) => this.settlementRun(t), nextAt: 0 },
      { name: 'debt-referral', localMinute: 9 * 60, run: (t) => this.debtReferralRun(t), nextAt: 0 },
      ...CLASS_TIMETABLE.map((slot) => ({
        name: `class-${slot.classId}`,
        localMinute: slot.startMinute,
        run: (t: number) => this.classSession(slot, t),
        nextAt: 0,
      })),
    ];
  }

  private get zone() {
    return this.store.profile.timeZone;
  }

  private get scale(): number {
    return this.settings.activityScale;
  }

  /** Creates the club's staff, members and prospects as they stand at `historyStartMs`. */
  populate(historyStartMs: number): void {
    const staffRng = new SeededRandom(this.settings.seed, `staff:${this.store.clubId}`);
    this.salesPeople = Array.from({ length: 4 }, (_, i) => {
      const p = makePerson(staffRng, this.store.profile.locale, i);
      return {
        Id: 900 + i,
        FirstName: p.firstName,
        LastName: p.lastName,
        Email: `${p.firstName}.${p.lastName.charAt(0)}@${this.store.clubId}.example.com`
          .toLowerCase()
          .replace(/[^a-z0-9.@-]/g, ''),
      };
    });
    for (let i = 0; i < this.settings.initialMembers; i++) this.createInitialMember(historyStartMs);
    const prospects = Math.round(this.settings.initialMembers * 0.15);
    for (let i = 0; i < prospects; i++) this.createInitialProspect(historyStartMs);
    for (const job of this.jobs) job.nextAt = this.nextLocalTime(historyStartMs - 1, job.localMinute);
    const active = this.store.memberStatusSet('Active').size;
    this.historyEndMs = historyStartMs + this.settings.historyDays * MS_DAY;
    if (this.settings.historyVisits !== undefined && active > 0 && this.settings.historyDays > 0) {
      this.visitRate = this.settings.historyVisits / (active * this.settings.historyDays * this.scale);
    }
  }

  /** Expected visits a day: a fixed total during the history when `historyVisits` is set. */
  private visitsPerDay(atMs: number): number {
    const target = this.settings.historyVisits;
    if (target !== undefined && atMs < this.historyEndMs && this.settings.historyDays > 0) {
      return target / this.settings.historyDays / this.scale;
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
    const kinds = [
      () => this.visitBatch([atMs]),
      () => this.posSale(atMs),
      () => this.casualPayment(atMs),
      () => this.contactPreferencesChange(atMs),
      () => this.detailsEdit(atMs),
      () => this.newProspect(atMs),
      () => this.prospectMove(this.rng.pick(Object.keys(FUNNEL) as ProspectStatus[]), atMs),
    ];
    for (let i = 0; i < count; i++) this.rng.pick(kinds)();
  }

  // ---- stepping ---------------------------------------------------------------------------

  private trafficFactor(atMs: number): number {
    const p = this.store.profile;
    const localMinute = Math.floor((this.store.local(atMs) % MS_DAY) / MS_MINUTE);
    if (!p.open24h && (localMinute < p.openMinute || localMinute >= p.closeMinute)) return 0;
    let sum = 0;
    for (let h = 0; h < 24; h++) {
      if (p.open24h || (h * 60 + 59 >= p.openMinute && h * 60 < p.closeMinute)) sum += HOURLY_TRAFFIC[h] ?? 0;
    }
    return ((HOURLY_TRAFFIC[Math.floor(localMinute / 60)] ?? 0) / sum) * 24;
  }

  private step(t0: number, t1: number): void {
    const days = (t1 - t0) / MS_DAY;
    const traffic = this.trafficFactor(t0);
    const s = this.scale;
    const count = (ratePerDay: number, shaped: boolean) =>
      this.rng.poisson(ratePerDay * s * days * (shaped ? traffic : 1));
    const statusSize = (st: MemberStatus) => this.store.memberStatusSet(st).size;
    const members = this.store.members.length;
    const active = statusSize('Active');
    const r = DEFAULT_RATES;

    // Visits first, in bulk: they only read member status.
    const visits = count(this.visitsPerDay(t0), true);
    if (visits > 0) {
      const times: number[] = [];
      for (let i = 0; i < visits; i++) times.push(t0 + Math.floor(this.rng.next() * (t1 - t0)));
      times.sort((a, b) => a - b);
      this.visitBatch(times);
    }

    const actions: { at: number; run: (at: number) => void }[] = [];
    const schedule = (n: number, run: (at: number) => void) => {
      for (let i = 0; i < n; i++) actions.push({ at: t0 + Math.floor(this.rng.next() * (t1 - t0)), run });
    };
    schedule(count(this.settings.initialMembers * r.joinsPerInitialMember, true), (t) => this.memberJoins(t));
    schedule(count(active * r.suspensionsPerActiveMember, false), (t) => this.suspension(t));
    schedule(count(statusSize('Suspended') * r.resumptionsPerSuspendedMember, false), (t) =>
      this.resumption(t),
    );
    schedule(count(active * r.cancellationsPerActiveMember, false), (t) => this.cancellation(t));
    schedule(count(members * r.contactChangesPerMember, false), (t) => this.contactPreferencesChange(t));
    schedule(count(members * r.detailEditsPerMember, false), (t) => this.detailsEdit(t));
    schedule(count(statusSize('PendingOnlineSignup') * r.signupCompletionsPerPendingSignup, false), (t) =>
      this.signupCompletion(t),
    );
    schedule(count(active * r.casualPaymentsPerActiveMember, true), (t) => this.casualPayment(t));
    schedule(count(statusSize('PaymentIssue') * r.catchUpsPerPaymentIssueMember, true), (t) =>
      this.catchUp(t),
    );
    schedule(count(active * r.refundsPerActiveMember, false), (t) => this.refund(t));
    schedule(count(members * r.posSalesPerMember, true), (t) => this.posSale(t));
    schedule(count(members * r.prospectsPerMember, true), (t) => this.newProspect(t));
    for (const [status, rule] of Object.entries(FUNNEL) as [ProspectStatus, { rate: number }][]) {
      const n = count(this.store.prospectStatusSet(status).size * rule.rate, true);
      schedule(n, (t) => this.prospectMove(status, t));
    }
    schedule(count(this.store.prospectStatusSet('OnTrial').size * r.earlySalesPerTrial, true), (t) =>
      this.trialEnds(t, true),
    );
    actions.sort((a, b) => a.at - b.at);

    // Interleave random actions with jobs and scheduled dishonours, in time order.
    let next = 0;
    for (;;) {
      const action = actions[next];
      const job = this.dueJob(t1);
      const dishonour = this.dishonours[0] && this.dishonours[0].at < t1 ? this.dishonours[0] : undefined;
      const candidates: number[] = [
        action?.at ?? Infinity,
        job?.nextAt ?? Infinity,
        dishonour?.at ?? Infinity,
      ];
      const earliest = Math.min(...candidates);
      if (earliest === Infinity) break;
      if (job && job.nextAt === earliest) {
        const at = job.nextAt;
        job.nextAt = this.nextLocalTime(at, job.localMinute);
        job.run(at);
      } else if (dishonour && dishonour.at === earliest) {
        this.dishonours.shift();
        this.dishonour(dishonour.payment, Math.max(dishonour.at, t0));
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
    const day = this.zone.localDayStart(afterMs);
    for (let k = 0; k < 3; k++) {
      const at = this.zone.fromNaive(day + k * MS_DAY + localMinute * MS_MINUTE);
      if (at > afterMs) return at;
    }
    return afterMs + MS_DAY;
  }

  /** When a record made at `atMs` says it happened: usually then, sometimes earlier (late arrival). */
  private recordTime(atMs: number): number {
    const f = this.settings.faults;
    if (f.lateArrivalRate > 0 && this.lateRng.chance(f.lateArrivalRate)) {
      return (
        atMs - Math.floor(this.lateRng.real(MS_SECOND, Math.max(MS_SECOND, f.maxLatenessMin * MS_MINUTE)))
      );
    }
    return atMs;
  }

  private pickMember(status: MemberStatus): MemberRecord | undefined {
    const index = this.store.memberStatusSet(status).pick(this.rng);
    return index === undefined ? undefined : this.store.members[index];
  }

  private pickProspect(status: ProspectStatus): ProspectRecord | undefined {
    const index = this.store.prospectStatusSet(status).pick(this.rng);
    return index === undefined ? undefined : this.store.prospects[index];
  }

  // ---- population -------------------------------------------------------------------------

  private dateOfBirth(): string {
    const year = this.rng.int(1955, 2008);
    return formatNaive(Date.UTC(year, this.rng.int(0, 11), this.rng.int(1, 28)));
  }

  private newMemberRecord(
    person: Person,
    plan: MembershipPlan,
    status: MemberStatus,
    startKey: number,
    saleKey: number,
    updatedMs: number,
  ): MemberRecord {
    const index = this.store.members.length;
    const membership = {
      Id: this.nextMembershipId++,
      Name: plan.name,
      StartDate: formatNaive(startKey),
      SaleDate: formatNaive(saleKey),
      ...(plan.minimumTermMonths
        ? { MinimumTermDate: formatNaive(addMonths(startKey, plan.minimumTermMonths)) }
        : {}),
      ...(plan.termMonths ? { ExpiryDate: formatNaive(addMonths(startKey, plan.termMonths)) } : {}),
      Type: plan.type,
    };
    return {
      index,
      plan,
      billingAnchor: this.rng.int(0, 27),
      startKey,
      updatedKey: updatedMs,
      ...(plan.termMonths ? { expiryKey: addMonths(startKey, plan.termMonths) } : {}),
      arrears: 0,
      referredToDebt: false,
      api: {
        Number: String(100001 + index),
        FirstName: person.firstName,
        LastName: person.lastName,
        Status: status,
        Barcode: `20${this.rng.chars(8)}`,
        FitnessPassportNumber: this.rng.chance(0.08) ? `FP${this.rng.chars(7)}` : null,
        DateOfBirth: this.dateOfBirth(),
        Gender: this.rng.weighted(GENDERS),
        LastUpdatedUtcDateTime: formatNaive(updatedMs, true),
        Contact: person.contact,
        Membership: membership,
      },
    };
  }

  private createInitialMember(historyStartMs: number): void {
    const rng = this.rng;
    const plan = rng.weighted(MEMBERSHIP_PLANS.map((p) => [p, p.weight] as const));
    const status = rng.weighted<MemberStatus>([
      ['Active', 82],
      ['PaymentIssue', 4],
      ['Suspended', 4],
      ['Archived', 7],
      ['PendingActivation', 2],
      ['PendingOnlineSignup', 1],
    ]);
    const today = this.zone.localDayStart(historyStartMs);
    let startKey = today - rng.int(1, 1500) * MS_DAY;
    if (status === 'PendingActivation') startKey = today + rng.int(1, 10) * MS_DAY;
    if (status === 'PendingOnlineSignup') startKey = today - rng.int(0, 1) * MS_DAY;
    const saleKey = floorToSecond(startKey - rng.int(0, 7) * MS_DAY + rng.int(8 * 60, 20 * 60) * MS_MINUTE);
    const saleUtc = this.zone.fromNaive(saleKey);
    const updatedMs = Math.min(
      historyStartMs - 1,
      saleUtc + Math.floor(rng.next() * (historyStartMs - saleUtc)),
    );
    const person = makePerson(rng, this.store.profile.locale, this.store.members.length + 1);
    const member = this.newMemberRecord(person, plan, status, startKey, saleKey, updatedMs);
    if (plan.termMonths && member.expiryKey !== undefined && status !== 'Archived') {
      // Paid-in-full members still here have renewed: move the expiry past today.
      while (member.expiryKey <= today) member.expiryKey = addMonths(member.expiryKey, plan.termMonths);
      member.api.Membership.ExpiryDate = formatNaive(member.expiryKey);
    }
    if (status === 'Archived') {
      const cancel = Math.min(today - MS_DAY, startKey + rng.int(30, 900) * MS_DAY);
      member.cancellationKey = cancel;
      member.api.Membership.CancellationDate = formatNaive(cancel);
    }
    if (status === 'PaymentIssue') {
      member.paymentIssueSinceMs = historyStartMs - rng.int(0, 20) * MS_DAY;
      member.arrears = plan.amount;
    }
    this.store.addMember(member, updatedMs);
  }

  private createInitialProspect(historyStartMs: number): void {
    const rng = this.rng;
    const status = rng.weighted<ProspectStatus>([
      ['Enquiry', 25],
      ['Tour', 10],
      ['OnTrial', 10],
      ['Sale', 15],
      ['NotInterested', 15],
      ['Trial_Expired', 10],
      ['DidNotShow', 10],
      ['NoSaleReturn', 5],
    ]);
    const createdMs = floorToSecond(historyStartMs - rng.int(1, 45 * 24 * 60) * MS_MINUTE);
    const updatedMs =
      status === 'OnTrial'
        ? historyStartMs - rng.int(1, 6 * 24 * 60) * MS_MINUTE
        : createdMs + Math.floor(rng.next() * (historyStartMs - createdMs));
    const prospect = this.newProspectRecord(status, createdMs, Math.max(createdMs, updatedMs));
    if (status === 'OnTrial') this.startTrial(prospect, Math.max(createdMs, updatedMs));
    this.store.addProspect(prospect, createdMs);
  }

  private newProspectRecord(status: ProspectStatus, createdMs: number, statusMs: number): ProspectRecord {
    const rng = this.rng;
    const index = this.store.prospects.length;
    const person = makePerson(rng, this.store.profile.locale, 50000 + index);
    return {
      index,
      statusKey: this.store.ambiguous(statusMs),
      api: {
        Number: `P${String(index + 1).padStart(6, '0')}`,
        FirstName: person.firstName,
        LastName: person.lastName,
        Status: status,
        Barcode: null,
        DateOfBirth: rng.chance(0.6) ? this.dateOfBirth() : null,
        Gender: rng.weighted(GENDERS),
        TrialStartDate: null,
        TrialEndDate: null,
        CreatedDateUtc: formatNaive(createdMs, true),
        ContactMethod: { ...rng.pick(PROSPECT_CONTACT_METHODS) } as IdName,
        Source: { ...rng.pick(PROSPECT_SOURCES) } as IdName,
        SourcePage: rng.pick(PROSPECT_SOURCE_PAGES),
        SalesPerson: { ...rng.pick(this.salesPeople) },
        Contact: person.contact,
      },
    };
  }

  private startTrial(prospect: ProspectRecord, atMs: number): void {
    const day = this.zone.localDayStart(atMs);
    prospect.trialEndKey = day + 7 * MS_DAY;
    prospect.api.TrialStartDate = formatNaive(day);
    prospect.api.TrialEndDate = formatNaive(prospect.trialEndKey);
    prospect.api.Barcode ??= `30${this.rng.chars(8)}`;
  }

  // ---- visits -----------------------------------------------------------------------------

  private visitBatch(times: readonly number[]): void {
    const active = this.store.memberStatusSet('Active');
    const issue = this.store.memberStatusSet('PaymentIssue');
    const doorWeights = DOORS.map((d, i) => [i, d[2]] as const);
    for (const at of times) {
      // Access control usually still lets members with a payment issue in.
      const set = issue.size > 0 && this.rng.chance(0.05) ? issue : active;
      const member = set.pick(this.rng);
      if (member === undefined) continue;
      const visitAt = this.recordTime(at);
      if (this.trafficFactor(visitAt) === 0) continue;
      this.store.addVisit(member, this.rng.weighted(doorWeights), visitAt, at);
    }
  }

  // ---- payments ---------------------------------------------------------------------------

  private addPayment(
    member: MemberRecord,
    atMs: number,
    p: {
      type: 'DD' | 'CC';
      response: string;
      description: string;
      purpose: IdName;
      fees: Partial<FeeBreakdown>;
      settles?: boolean;
    },
  ): PaymentRecord {
    const key = floorToSecond(this.store.ambiguous(this.recordTime(atMs)));
    const breakdown = fees(p.fees);
    const amount = round2(FEE_FIELDS.reduce((sum, f) => sum + breakdown[f], 0));
    const approved = p.response === PAYMENT_RESPONSES.approved;
    const payment: PaymentRecord = {
      key,
      memberIndex: member.index,
      amount,
      settlement: approved && p.settles !== false ? 'pending' : 'none',
      api: {
        Id: this.nextPaymentId++,
        Number: member.api.Number,
        PaymentDate: formatNaive(key),
        PaymentType: p.type,
        Response: p.response,
        PaymentDescription: p.description,
        PaymentForReference: { ...p.purpose },
        FeeBreakdown: [breakdown],
        Refund: { IsRefunded: false, RefundedPaymentId: null },
      },
    };
    this.store.addPayment(payment, atMs);
    if (payment.settlement === 'pending') this.pendingSettlement.push(payment);
    if (approved) {
      this.recentApproved.push(payment);
      if (this.recentApproved.length > 2000) this.recentApproved.splice(0, this.recentApproved.length - 2000);
    }
    return payment;
  }

  private declinedResponse(): string {
    return this.rng.weighted([
      [PAYMENT_RESPONSES.declined[0], 60],
      [PAYMENT_RESPONSES.declined[1], 25],
      [PAYMENT_RESPONSES.declined[2], 15],
    ]);
  }

  /** Daily direct-debit run (02:30 local) and paid-in-full renewals. */
  private billingRun(atMs: number): void {
    const today = this.zone.localDayStart(atMs);
    const dayNumber = Math.floor(today / MS_DAY);
    const dayOfMonth = new Date(today).getUTCDate();
    for (const member of this.store.members) {
      const status = member.api.Status;
      if (!DD_STATUSES_BILLED.includes(status)) continue;
      const plan = member.plan;
      if (plan.type === 'Paid in Full') {
        if (status === 'Active' && member.expiryKey !== undefined && member.expiryKey <= today)
          this.renewal(member, atMs);
        continue;
      }
      const due =
        plan.period === 'weekly'
          ? dayNumber % 7 === member.billingAnchor % 7
          : plan.period === 'fortnightly'
            ? dayNumber % 14 === member.billingAnchor % 14
            : dayOfMonth === member.billingAnchor + 1;
      if (due) this.directDebit(member, atMs);
    }
  }

  private directDebit(member: MemberRecord, atMs: number): void {
    const plan = member.plan;
    const description = `${plan.name} membership fee`;
    if (member.api.Status === 'PaymentIssue') {
      const arrears = round2(member.arrears);
      const approved = this.rng.chance(0.5);
      this.addPayment(member, atMs, {
        type: 'DD',
        response: approved ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
        description,
        purpose: PAYMENT_PURPOSES.membership,
        fees: { SubscriptionFee: plan.amount, ArrearsFee: arrears },
      });
      if (approved) {
        member.arrears = 0;
        this.store.setMemberStatus(member, 'Active', atMs);
      } else {
        member.arrears = round2(member.arrears + plan.amount);
      }
      return;
    }
    const outcome = this.rng.weighted<'approved' | 'declined' | 'dishonour'>([
      ['approved', 940],
      ['declined', 35],
      ['dishonour', 25],
    ]);
    const payment = this.addPayment(member, atMs, {
      type: 'DD',
      response: outcome === 'declined' ? this.declinedResponse() : PAYMENT_RESPONSES.approved,
      description,
      purpose: PAYMENT_PURPOSES.membership,
      fees: { SubscriptionFee: plan.amount },
    });
    if (outcome === 'declined') {
      member.arrears = round2(member.arrears + plan.amount);
      this.store.setMemberStatus(member, 'PaymentIssue', atMs);
    }
    if (outcome === 'dishonour') {
      const at = atMs + this.rng.int(1, 5) * MS_DAY + this.rng.int(0, 8 * 60) * MS_MINUTE;
      const insertAt = this.dishonours.findIndex((d) => d.at > at);
      const entry = { at, payment };
      if (insertAt < 0) this.dishonours.push(entry);
      else this.dishonours.splice(insertAt, 0, entry);
    }
  }

  /** A direct debit that was Approved comes back dishonoured: same Id and PaymentDate, new Response. */
  private dishonour(payment: PaymentRecord, atMs: number): void {
    if (payment.api.Response !== PAYMENT_RESPONSES.approved || payment.api.Refund.IsRefunded) return;
    const member = this.store.members[payment.memberIndex];
    if (!member) return;
    this.store.changePaymentResponse(payment, this.rng.pick(PAYMENT_RESPONSES.dishonoured), atMs);
    this.unsettle(payment, atMs);
    member.arrears = round2(member.arrears + payment.amount + DISHONOUR_FEE);
    if (member.api.Status === 'Active') this.store.setMemberStatus(member, 'PaymentIssue', atMs);
    this.addPayment(member, atMs, {
      type: 'DD',
      response: PAYMENT_RESPONSES.approved,
      description: 'Dishonour fee',
      purpose: PAYMENT_PURPOSES.dishonourFee,
      fees: { DishonourFee: DISHONOUR_FEE },
      settles: false,
    });
  }

  /** Takes back a payment's money: before settlement it is never paid out, after it is reversed. */
  private unsettle(payment: PaymentRecord, atMs: number): void {
    if (payment.settlement === 'pending') payment.settlement = 'none';
    else if (payment.settlement === 'settled') {
      payment.settlement = 'none';
      this.reversals.push({ payment, transactionKey: floorToSecond(this.store.ambiguous(atMs)) });
    }
  }

  private renewal(member: MemberRecord, atMs: number): void {
    const plan = member.plan;
    if (!plan.termMonths || member.expiryKey === undefined) return;
    if (this.rng.chance(0.25)) {
      this.store.setMemberStatus(member, 'Archived', atMs);
      return;
    }
    const approved = this.rng.chance(0.95);
    this.addPayment(member, atMs, {
      type: 'CC',
      response: approved ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
      description: `${plan.name} renewal`,
      purpose: PAYMENT_PURPOSES.renewal,
      fees: { SubscriptionFee: plan.amount },
    });
    if (!approved) {
      member.arrears = round2(member.arrears + plan.amount);
      this.store.setMemberStatus(member, 'PaymentIssue', atMs);
      return;
    }
    const months = plan.termMonths;
    this.store.editMember(member, atMs, (m) => {
      m.expiryKey = addMonths(m.expiryKey ?? m.startKey, months);
      m.api.Membership.ExpiryDate = formatNaive(m.expiryKey);
      return ['Membership.ExpiryDate'];
    });
  }

  private casualPayment(atMs: number): void {
    const member = this.pickMember('Active');
    if (!member) return;
    const personalTraining = this.rng.chance(0.3);
    this.addPayment(member, atMs, {
      type: 'CC',
      response: this.rng.chance(0.95) ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
      description: personalTraining ? 'Personal training session' : 'Guest pass',
      purpose: PAYMENT_PURPOSES.casual,
      fees: { AddOnAmount: personalTraining ? 70 : 25, CardSurchargeFee: personalTraining ? 1.05 : 0.38 },
    });
  }

  /** A member with a payment issue pays the arrears by card. */
  private catchUp(atMs: number): void {
    const member = this.pickMember('PaymentIssue');
    if (!member) return;
    const approved = this.rng.chance(0.9);
    this.addPayment(member, atMs, {
      type: 'CC',
      response: approved ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
      description: 'Arrears payment',
      purpose: PAYMENT_PURPOSES.arrears,
      fees: { ArrearsFee: round2(Math.max(member.arrears, member.plan.amount)) },
    });
    if (approved) {
      member.arrears = 0;
      this.store.setMemberStatus(member, 'Active', atMs);
    }
  }

  private refund(atMs: number): void {
    const candidates = this.recentApproved.filter(
      (p) =>
        !p.api.Refund.IsRefunded &&
        p.api.Response === PAYMENT_RESPONSES.approved &&
        p.api.PaymentForReference.Id !== PAYMENT_PURPOSES.dishonourFee.Id,
    );
    if (candidates.length === 0) return;
    const payment = this.rng.pick(candidates);
    this.store.refundPayment(payment, this.nextPaymentId++, atMs);
    this.unsettle(payment, atMs);
  }

  /** Daily at 06:00 local: pays the club for yesterday's approved payments (and reverses dishonours). */
  private settlementRun(atMs: number): void {
    const day = this.store.ambiguous(atMs);
    const disbursementDate = formatNaive(day - (day % MS_DAY));
    for (const payment of this.pendingSettlement.splice(0)) {
      if (payment.settlement !== 'pending') continue;
      payment.settlement = 'settled';
      this.store.addDisbursement(
        {
          key: payment.key,
          api: {
            DisbursementDate: disbursementDate,
            TransactionDate: payment.api.PaymentDate,
            Amount: payment.amount,
            MemberNumber: payment.api.Number,
            Department: payment.api.PaymentForReference.Name,
            PaymentType: payment.api.PaymentType,
            Breakdown: disbursementBreakdown(payment, 1),
          },
        },
        atMs,
      );
    }
    for (const reversal of this.reversals.splice(0)) {
      const payment = reversal.payment;
      this.store.addDisbursement(
        {
          key: reversal.transactionKey,
          api: {
            DisbursementDate: disbursementDate,
            TransactionDate: formatNaive(reversal.transactionKey),
            Amount: -payment.amount,
            MemberNumber: payment.api.Number,
            Department: payment.api.Refund.IsRefunded ? 'Refunds' : 'Dishonours',
            PaymentType: payment.api.PaymentType,
            Breakdown: disbursementBreakdown(payment, -1),
          },
        },
        atMs,
      );
    }
  }

  /** Daily at 09:00 local: members with a payment issue for 7+ days go to debt collection. */
  private debtReferralRun(atMs: number): void {
    for (const index of this.store.memberStatusSet('PaymentIssue').toArray()) {
      const member = this.store.members[index];
      if (!member || member.referredToDebt) continue;
      if ((member.paymentIssueSinceMs ?? atMs) > atMs - DEBT_AFTER_DAYS * MS_DAY) continue;
      member.referredToDebt = true;
      const key = floorToSecond(this.store.ambiguous(this.recordTime(atMs)));
      const api = member.api;
      this.store.addDebtCollection(
        {
          key,
          api: {
            Amount: round2(Math.max(member.arrears, member.plan.amount)),
            DebtCollectionDate: formatNaive(key),
            MemberNumber: api.Number,
            FirstName: api.FirstName,
            LastName: api.LastName,
            Email: api.Contact.Email,
            Mobile: api.Contact.Mobile,
            Address: oneLineAddress(api.Contact),
          },
        },
        atMs,
      );
    }
  }

  // ---- POS ------------------------------------------------------------------------------

  private posSale(atMs: number): void {
    const rng = this.rng;
    const taxRate = this.store.profile.locale.taxRate;
    const isRefund = rng.chance(0.03);
    const sign = isRefund ? -1 : 1;
    const items: ApiPosItem[] = [];
    const lines = rng.weighted([
      [1, 70],
      [2, 22],
      [3, 8],
    ]);
    let totalInc = 0;
    let totalEx = 0;
    for (let i = 0; i < lines; i++) {
      const product = rng.pick(PRODUCTS);
      const quantity =
        product.priceIncTax > 100
          ? 1
          : rng.weighted([
              [1, 80],
              [2, 15],
              [3, 5],
            ]);
      const discount = rng.chance(0.1) ? round2(product.priceIncTax * 0.1) : 0;
      const priceInc = round2(product.priceIncTax - discount);
      const priceEx = round2(priceInc / (1 + taxRate));
      const voided = !isRefund && rng.chance(0.02);
      items.push({
        ItemId: this.nextPosItemId++,
        ProductId: BigInt(product.id),
        ProductName: product.name,
        Description: product.name,
        PriceExTax: sign * priceEx,
        PriceIncTax: sign * priceInc,
        Quantity: quantity,
        Tax: sign * round2((priceInc - priceEx) * quantity),
        Discount: discount,
        CategoryId: BigInt(product.categoryId),
        CategoryName: product.category,
        SubCategoryId: BigInt(product.subCategoryId),
        SubCategoryName: product.subCategory,
        IsRefunded: isRefund,
        IsVoided: voided,
      });
      if (!voided) {
        totalInc += sign * priceInc * quantity;
        totalEx += sign * priceEx * quantity;
      }
    }
    const member = rng.chance(0.7) ? this.pickMember('Active') : undefined;
    const key = floorToSecond(this.store.ambiguous(this.recordTime(atMs)));
    this.store.addPosTransaction(
      {
        key,
        api: {
          PosTransactionId: this.nextPosId++,
          TransactionDate: formatNaive(key),
          TransactionType: isRefund ? 'Refund' : 'Sale',
          TotalExTax: round2(totalEx),
          TotalIncTax: round2(totalInc),
          Till: rng.pick(TILLS),
          Items: items,
          ...(member ? { MemberNumber: member.api.Number } : {}),
        },
      },
      atMs,
    );
  }

  // ---- member lifecycle -----------------------------------------------------------------

  private memberJoins(atMs: number, person?: Person): MemberRecord {
    const rng = this.rng;
    const plan = rng.weighted(MEMBERSHIP_PLANS.map((p) => [p, p.weight] as const));
    const status = rng.weighted<MemberStatus>([
      ['Active', 75],
      ['PendingActivation', 20],
      ['PendingOnlineSignup', 5],
    ]);
    const today = this.zone.localDayStart(atMs);
    const startKey = status === 'PendingActivation' ? today + rng.int(1, 7) * MS_DAY : today;
    const saleKey = floorToSecond(this.store.local(atMs));
    const who = person ?? makePerson(rng, this.store.profile.locale, this.store.members.length + 1);
    const member = this.newMemberRecord(who, plan, status, startKey, saleKey, atMs);
    this.store.addMember(member, atMs);
    if (status !== 'PendingOnlineSignup') this.joiningPayment(member, atMs);
    return member;
  }

  private joiningPayment(member: MemberRecord, atMs: number): void {
    this.addPayment(member, atMs, {
      type: 'CC',
      response: PAYMENT_RESPONSES.approved,
      description: 'Joining fee and first payment',
      purpose: PAYMENT_PURPOSES.joining,
      fees: { JoiningFee: JOINING_FEE, SubscriptionFee: member.plan.amount },
    });
  }

  private signupCompletion(atMs: number): void {
    const member = this.pickMember('PendingOnlineSignup');
    if (!member) return;
    const today = this.zone.localDayStart(atMs);
    this.store.setMemberStatus(member, member.startKey > today ? 'PendingActivation' : 'Active', atMs);
    this.joiningPayment(member, atMs);
  }

  private suspension(atMs: number): void {
    const member = this.pickMember('Active');
    if (member) this.store.setMemberStatus(member, 'Suspended', atMs);
  }

  private resumption(atMs: number): void {
    const member = this.pickMember('Suspended');
    if (member) this.store.setMemberStatus(member, 'Active', atMs);
  }

  private cancellation(atMs: number): void {
    const member = this.pickMember('Active');
    if (!member || member.cancellationKey !== undefined) return;
    const today = this.zone.localDayStart(atMs);
    const noticeDays = this.rng.chance(0.3) ? 0 : this.rng.int(7, 30);
    this.store.cancelMembership(member, today + noticeDays * MS_DAY, atMs);
    if (noticeDays === 0) this.store.setMemberStatus(member, 'Archived', atMs);
    else this.pendingCancellations.add(member.index);
  }

  private contactPreferencesChange(atMs: number): void {
    const member = this.store.members[this.rng.int(0, this.store.members.length - 1)];
    if (!member || member.api.Status === 'Archived') return;
    const c = member.api.Contact;
    if (this.rng.chance(0.5)) this.store.setContactPreferences(member, !c.OptOutEmail, c.OptOutSms, atMs);
    else this.store.setContactPreferences(member, c.OptOutEmail, !c.OptOutSms, atMs);
  }

  private detailsEdit(atMs: number): void {
    const member = this.store.members[this.rng.int(0, this.store.members.length - 1)];
    if (!member) return;
    const locale = this.store.profile.locale;
    this.store.editMember(member, atMs, (m) => {
      if (this.rng.chance(0.5)) {
        m.api.Contact.Mobile = locale.mobile(this.rng.chars(9));
        return ['Contact.Mobile'];
      }
      const fresh = makePerson(this.rng, locale, m.index);
      m.api.Contact.Address = fresh.contact.Address;
      m.api.Contact.Suburb = fresh.contact.Suburb;
      m.api.Contact.State = fresh.contact.State;
      m.api.Contact.Postcode = fresh.contact.Postcode;
      return ['Contact.Address', 'Contact.Suburb', 'Contact.State', 'Contact.Postcode'];
    });
  }

  /** Daily just after local midnight: start dates reached, cancellations effective, trials over. */
  private housekeeping(atMs: number): void {
    const today = this.zone.localDayStart(atMs);
    for (const index of this.store.memberStatusSet('PendingActivation').toArray()) {
      const member = this.store.members[index];
      if (member && member.startKey <= today) this.store.setMemberStatus(member, 'Active', atMs);
    }
    for (const index of [...this.pendingCancellations]) {
      const member = this.store.members[index];
      if (!member || member.cancellationKey === undefined || member.cancellationKey > today) continue;
      this.pendingCancellations.delete(index);
      this.store.setMemberStatus(member, 'Archived', atMs);
    }
    for (const index of this.store.prospectStatusSet('OnTrial').toArray()) {
      const prospect = this.store.prospects[index];
      if (prospect && prospect.trialEndKey !== undefined && prospect.trialEndKey <= today) {
        this.trialEnds(atMs, false, prospect);
      }
    }
  }

  // ---- prospects ------------------------------------------------------------------------

  private newProspect(atMs: number): void {
    const status = this.rng.weighted<ProspectStatus>([
      ['Enquiry', 70],
      ['Tour', 15],
      ['OnTrial', 15],
    ]);
    const prospect = this.newProspectRecord(status, floorToSecond(atMs), atMs);
    if (status === 'OnTrial') this.startTrial(prospect, atMs);
    this.store.addProspect(prospect, atMs);
  }

  private prospectMove(from: ProspectStatus, atMs: number): void {
    const rule = FUNNEL[from];
    const prospect = this.pickProspect(from);
    if (!rule || !prospect) return;
    const to = this.rng.weighted(rule.next);
    if (to === 'OnTrial') this.startTrial(prospect, atMs);
    this.store.setProspectStatus(prospect, to, atMs);
    if (to === 'Sale') this.prospectBuys(prospect, atMs);
  }

  private trialEnds(atMs: number, early: boolean, given?: ProspectRecord): void {
    const prospect = given ?? this.pickProspect('OnTrial');
    if (!prospect) return;
    const sale = early || this.rng.chance(0.4);
    this.store.setProspectStatus(prospect, sale ? 'Sale' : 'Trial_Expired', atMs);
    if (sale) this.prospectBuys(prospect, atMs);
  }

  private prospectBuys(prospect: ProspectRecord, atMs: number): void {
    const p = prospect.api;
    this.memberJoins(atMs, { firstName: p.FirstName, lastName: p.LastName, contact: { ...p.Contact } });
  }

  // ---- classes --------------------------------------------------------------------------

  private classSession(slot: ClassSlot, atMs: number): void {
    const rng = this.rng;
    const active = this.store.memberStatusSet('Active').size;
    const attendees = Math.min(slot.capacity, rng.poisson((2 + active * 0.012) * this.scale));
    const key = floorToSecond(this.store.local(atMs));
    const seen = new Set<string>();
    for (let i = 0; i < attendees; i++) {
      const kind = rng.weighted<'attended' | 'noShow' | 'walkIn' | 'prospect'>([
        ['attended', 70],
        ['noShow', 12],
        ['walkIn', 12],
        ['prospect', 6],
      ]);
      const prospect = kind === 'prospect' ? this.pickProspect('OnTrial') : undefined;
      const member = kind === 'prospect' ? undefined : this.pickMember('Active');
      const who = prospect?.api.Number ?? member?.api.Number;
      if (!who || seen.has(who)) continue;
      seen.add(who);
      this.store.addClassAttendance(
        {
          key,
          api: {
            AttendanceId: this.nextAttendanceId++,
            ClassId: slot.classId,
            ClassName: slot.name,
            ClassDateTime: formatNaive(key),
            DurationMinutes: slot.durationMin,
            Instructor: INSTRUCTORS[slot.classId % INSTRUCTORS.length] ?? 'Staff',
            MemberNumber: member?.api.Number ?? null,
            ProspectNumber: prospect?.api.Number ?? null,
            Booked: kind !== 'walkIn',
            Attended: kind !== 'noShow',
            Status: kind === 'noShow' ? 'NoShow' : kind === 'walkIn' ? 'WalkIn' : 'Attended',
          },
        },
        atMs,
      );
    }
  }
}
