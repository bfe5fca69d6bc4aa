/**
 * Payments: how a payment is recorded (and queued for settlement), card payments made at the desk
 * (casual purchases, members catching up on arrears), refunds, and taking money back.
 */

import { FEE_BREAKDOWN_FIELDS as FEE_FIELDS } from '../../lambdas/gym-api/schemas';
import { floorToSecond, formatNaive } from '../naive-time';
import type { FeeBreakdown, IdName, MemberRecord, PaymentRecord } from '../records';
import { PAYMENT_PURPOSES, PAYMENT_RESPONSES } from '../vocabulary';
import { round2, type SimulationContext } from './context';

export interface NewPayment {
  readonly type: 'DD' | 'CC';
  readonly response: string;
  readonly description: string;
  readonly purpose: IdName;
  readonly fees: Partial<FeeBreakdown>;
  /** False for payments the club is never paid out for (dishonour fees). @default true */
  readonly settles?: boolean;
}

/** A settled payment whose money goes back (refund or dishonour), reversed at the next settlement. */
export interface Reversal {
  readonly payment: PaymentRecord;
  readonly transactionKey: number;
}

/** Approved payments kept as refund candidates. */
const RECENT_APPROVED_KEPT = 2000;

function fees(parts: Partial<FeeBreakdown>): FeeBreakdown {
  const out = {} as FeeBreakdown;
  for (const f of FEE_FIELDS) out[f] = parts[f] ?? 0;
  return out;
}

export class Payments {
  /** Approved payments the next settlement pays out. */
  readonly pendingSettlement: PaymentRecord[] = [];
  readonly reversals: Reversal[] = [];
  private readonly recentApproved: PaymentRecord[] = [];

  constructor(private readonly ctx: SimulationContext) {}

  add(member: MemberRecord, atMs: number, p: NewPayment): PaymentRecord {
    const store = this.ctx.store;
    const key = floorToSecond(store.ambiguous(this.ctx.recordTime(atMs)));
    const breakdown = fees(p.fees);
    const amount = round2(FEE_FIELDS.reduce((sum, f) => sum + breakdown[f], 0));
    const approved = p.response === PAYMENT_RESPONSES.approved;
    const payment: PaymentRecord = {
      key,
      memberIndex: member.index,
      amount,
      settlement: approved && p.settles !== false ? 'pending' : 'none',
      api: {
        Id: this.ctx.ids.payment++,
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
    store.addPayment(payment, atMs);
    if (payment.settlement === 'pending') this.pendingSettlement.push(payment);
    if (approved) this.keepApproved(payment);
    return payment;
  }

  private keepApproved(payment: PaymentRecord): void {
    this.recentApproved.push(payment);
    if (this.recentApproved.length > RECENT_APPROVED_KEPT) {
      this.recentApproved.splice(0, this.recentApproved.length - RECENT_APPROVED_KEPT);
    }
  }

  declinedResponse(): string {
    return this.ctx.rng.weighted([
      [PAYMENT_RESPONSES.declined[0], 60],
      [PAYMENT_RESPONSES.declined[1], 25],
      [PAYMENT_RESPONSES.declined[2], 15],
    ]);
  }

  casualPayment(atMs: number): void {
    const { rng } = this.ctx;
    const member = this.ctx.pickMember('Active');
    if (!member) return;
    const personalTraining = rng.chance(0.3);
    this.add(member, atMs, {
      type: 'CC',
      response: rng.chance(0.95) ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
      description: personalTraining ? 'Personal training session' : 'Guest pass',
      purpose: PAYMENT_PURPOSES.casual,
      fees: { AddOnAmount: personalTraining ? 70 : 25, CardSurchargeFee: personalTraining ? 1.05 : 0.38 },
    });
  }

  /** A member with a payment issue pays the arrears by card. */
  catchUp(atMs: number): void {
    const member = this.ctx.pickMember('PaymentIssue');
    if (!member) return;
    const approved = this.ctx.rng.chance(0.9);
    this.add(member, atMs, {
      type: 'CC',
      response: approved ? PAYMENT_RESPONSES.approved : this.declinedResponse(),
      description: 'Arrears payment',
      purpose: PAYMENT_PURPOSES.arrears,
      fees: { ArrearsFee: round2(Math.max(member.arrears, member.plan.amount)) },
    });
    if (approved) {
      member.arrears = 0;
      this.ctx.store.setMemberStatus(member, 'Active', atMs);
    }
  }

  refund(atMs: number): void {
    const candidates = this.recentApproved.filter(
      (p) =>
        !p.api.Refund.IsRefunded &&
        p.api.Response === PAYMENT_RESPONSES.approved &&
        p.api.PaymentForReference.Id !== PAYMENT_PURPOSES.dishonourFee.Id,
    );
    if (candidates.length === 0) return;
    const payment = this.ctx.rng.pick(candidates);
    this.ctx.store.refundPayment(payment, this.ctx.ids.payment++, atMs);
    this.unsettle(payment, atMs);
  }

  /** Takes back a payment's money: before settlement it is never paid out, after it is reversed. */
  unsettle(payment: PaymentRecord, atMs: number): void {
    if (payment.settlement === 'pending') payment.settlement = 'none';
    else if (payment.settlement === 'settled') {
      payment.settlement = 'none';
      this.reversals.push({ payment, transactionKey: floorToSecond(this.ctx.store.ambiguous(atMs)) });
    }
  }
}
