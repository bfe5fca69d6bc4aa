/**
 * Billing: the daily direct-debit run (02:30 local) with its declines and later dishonours, and the
 * renewals of paid-in-full memberships.
 */
import { DAY_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { MemberStatus } from '../../lambdas/gym-api/statuses';
import { formatNaive } from '../naive-time';
import type { MemberRecord, PaymentRecord } from '../records';
import { DISHONOUR_FEE, PAYMENT_PURPOSES, PAYMENT_RESPONSES } from '../vocabulary';
import { addMonths, round2, type SimulationContext } from './context';
import type { Payments } from './payments';

const DD_STATUSES_BILLED: readonly MemberStatus[] = ['Active', 'PaymentIssue'];

/** An approved direct debit due to come back dishonoured at `at`. */
export interface Dishonour {
  readonly at: number;
  readonly payment: PaymentRecord;
}

/** Whether a periodic plan's direct debit falls due on the day. */
function debitDue(member: MemberRecord, today: number): boolean {
  const dayNumber = Math.floor(today / DAY_MS);
  const anchor = member.billingAnchor;
  if (member.plan.period === 'weekly') return dayNumber % 7 === anchor % 7;
  if (member.plan.period === 'fortnightly') return dayNumber % 14 === anchor % 14;
  return new Date(today).getUTCDate() === anchor + 1;
}

export class Billing {
  /** Dishonours to come, in time order. */
  private readonly dishonours: Dishonour[] = [];

  constructor(
    private readonly ctx: SimulationContext,
    private readonly payments: Payments,
  ) {}

  /** The next dishonour due before `beforeMs`, if any. */
  nextDishonour(beforeMs: number): Dishonour | undefined {
    const first = this.dishonours[0];
    return first && first.at < beforeMs ? first : undefined;
  }

  /** Takes the next dishonour off the queue and applies it at `atMs`. */
  applyNextDishonour(atMs: number): void {
    const next = this.dishonours.shift();
    if (next) this.dishonour(next.payment, atMs);
  }

  /** Daily direct-debit run (02:30 local) and paid-in-full renewals. */
  billingRun(atMs: number): void {
    const today = this.ctx.zone.localDayStart(atMs);
    for (const member of this.ctx.store.members) {
      const status = member.api.Status;
      if (!DD_STATUSES_BILLED.includes(status)) continue;
      if (member.plan.type === 'Paid in Full') {
        if (status === 'Active' && member.expiryKey !== undefined && member.expiryKey <= today)
          this.renewal(member, atMs);
        continue;
      }
      if (debitDue(member, today)) this.directDebit(member, atMs);
    }
  }

  private directDebit(member: MemberRecord, atMs: number): void {
    if (member.api.Status === 'PaymentIssue') {
      this.arrearsDebit(member, atMs);
      return;
    }
    const plan = member.plan;
    const outcome = this.ctx.rng.weighted<'approved' | 'declined' | 'dishonour'>([
      ['approved', 940],
      ['declined', 35],
      ['dishonour', 25],
    ]);
    const payment = this.payments.add(member, atMs, {
      type: 'DD',
      response: outcome === 'declined' ? this.payments.declinedResponse() : PAYMENT_RESPONSES.approved,
      description: `${plan.name} membership fee`,
      purpose: PAYMENT_PURPOSES.membership,
      fees: { SubscriptionFee: plan.amount },
    });
    if (outcome === 'declined') {
      member.arrears = round2(member.arrears + plan.amount);
      this.ctx.store.setMemberStatus(member, 'PaymentIssue', atMs);
    }
    if (outcome === 'dishonour') this.scheduleDishonour(payment, atMs);
  }

  /** A member with a payment issue is debited the fee and the arrears; half the time it goes through. */
  private arrearsDebit(member: MemberRecord, atMs: number): void {
    const plan = member.plan;
    const arrears = round2(member.arrears);
    const approved = this.ctx.rng.chance(0.5);
    this.payments.add(member, atMs, {
      type: 'DD',
      response: approved ? PAYMENT_RESPONSES.approved : this.payments.declinedResponse(),
      description: `${plan.name} membership fee`,
      purpose: PAYMENT_PURPOSES.membership,
      fees: { SubscriptionFee: plan.amount, ArrearsFee: arrears },
    });
    if (approved) {
      member.arrears = 0;
      this.ctx.store.setMemberStatus(member, 'Active', atMs);
    } else {
      member.arrears = round2(member.arrears + plan.amount);
    }
  }

  private scheduleDishonour(payment: PaymentRecord, atMs: number): void {
    const rng = this.ctx.rng;
    const at = atMs + rng.int(1, 5) * DAY_MS + rng.int(0, 8 * 60) * MINUTE_MS;
    const insertAt = this.dishonours.findIndex((d) => d.at > at);
    const entry = { at, payment };
    if (insertAt < 0) this.dishonours.push(entry);
    else this.dishonours.splice(insertAt, 0, entry);
  }

  /** A direct debit that was Approved comes back dishonoured: same Id and PaymentDate, new Response. */
  private dishonour(payment: PaymentRecord, atMs: number): void {
    if (payment.api.Response !== PAYMENT_RESPONSES.approved || payment.api.Refund.IsRefunded) return;
    const store = this.ctx.store;
    const member = store.members[payment.memberIndex];
    if (!member) return;
    store.changePaymentResponse(payment, this.ctx.rng.pick(PAYMENT_RESPONSES.dishonoured), atMs);
    this.payments.unsettle(payment, atMs);
    member.arrears = round2(member.arrears + payment.amount + DISHONOUR_FEE);
    if (member.api.Status === 'Active') store.setMemberStatus(member, 'PaymentIssue', atMs);
    this.payments.add(member, atMs, {
      type: 'DD',
      response: PAYMENT_RESPONSES.approved,
      description: 'Dishonour fee',
      purpose: PAYMENT_PURPOSES.dishonourFee,
      fees: { DishonourFee: DISHONOUR_FEE },
      settles: false,
    });
  }

  private renewal(member: MemberRecord, atMs: number): void {
    const plan = member.plan;
    if (!plan.termMonths || member.expiryKey === undefined) return;
    if (this.ctx.rng.chance(0.25)) {
      this.ctx.store.setMemberStatus(member, 'Archived', atMs);
      return;
    }
    const approved = this.ctx.rng.chance(0.95);
    this.payments.add(member, atMs, {
      type: 'CC',
      response: approved ? PAYMENT_RESPONSES.approved : this.payments.declinedResponse(),
      description: `${plan.name} renewal`,
      purpose: PAYMENT_PURPOSES.renewal,
      fees: { SubscriptionFee: plan.amount },
    });
    if (!approved) {
      member.arrears = round2(member.arrears + plan.amount);
      this.ctx.store.setMemberStatus(member, 'PaymentIssue', atMs);
      return;
    }
    const months = plan.termMonths;
    this.ctx.store.editMember(member, atMs, (m) => {
      m.expiryKey = addMonths(m.expiryKey ?? m.startKey, months);
      m.api.Membership.ExpiryDate = formatNaive(m.expiryKey);
      return ['Membership.ExpiryDate'];
    });
  }
}
