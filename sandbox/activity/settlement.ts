/**
 * Settlement and debt collection: the daily payout of approved payments (06:00 local) with the
 * reversals of refunded and dishonoured ones, and the daily referral to debt collection (09:00).
 */

import { DAY_MS } from '../../lambdas/common/time-units';
import { floorToSecond, formatNaive } from '../naive-time';
import { oneLineAddress } from '../people';
import {
  type ApiDisbursementBreakdown,
  type FeeField,
  type PaymentRecord,
  zeroDisbursementBreakdown,
} from '../records';
import { round2, type SimulationContext } from './context';
import type { Payments, Reversal } from './payments';

const DEBT_AFTER_DAYS = 7;

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

/** A payment's fees as the disbursement's breakdown; `sign` -1 for a reversal. */
export function disbursementBreakdown(payment: PaymentRecord, sign: 1 | -1): ApiDisbursementBreakdown {
  const out = zeroDisbursementBreakdown();
  const targets = Object.entries(FEE_TO_DISBURSEMENT) as [FeeField, keyof ApiDisbursementBreakdown][];
  for (const line of payment.api.FeeBreakdown) {
    for (const [fee, target] of targets) out[target] = round2(out[target] + sign * line[fee]);
  }
  return out;
}

export class Settlement {
  constructor(
    private readonly ctx: SimulationContext,
    private readonly payments: Payments,
  ) {}

  /** Daily at 06:00 local: pays the club for yesterday's approved payments (and reverses dishonours). */
  settlementRun(atMs: number): void {
    const day = this.ctx.store.ambiguous(atMs);
    const disbursementDate = formatNaive(day - (day % DAY_MS));
    for (const payment of this.payments.pendingSettlement.splice(0)) {
      if (payment.settlement !== 'pending') continue;
      payment.settlement = 'settled';
      this.payOut(payment, disbursementDate, atMs);
    }
    for (const reversal of this.payments.reversals.splice(0)) this.reverse(reversal, disbursementDate, atMs);
  }

  private payOut(payment: PaymentRecord, disbursementDate: string, atMs: number): void {
    this.ctx.store.addDisbursement(
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

  private reverse(reversal: Reversal, disbursementDate: string, atMs: number): void {
    const payment = reversal.payment;
    this.ctx.store.addDisbursement(
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

  /** Daily at 09:00 local: members with a payment issue for 7+ days go to debt collection. */
  debtReferralRun(atMs: number): void {
    const store = this.ctx.store;
    for (const index of store.memberStatusSet('PaymentIssue').toArray()) {
      const member = store.members[index];
      if (!member || member.referredToDebt) continue;
      if ((member.paymentIssueSinceMs ?? atMs) > atMs - DEBT_AFTER_DAYS * DAY_MS) continue;
      member.referredToDebt = true;
      const key = floorToSecond(store.ambiguous(this.ctx.recordTime(atMs)));
      const api = member.api;
      store.addDebtCollection(
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
}
