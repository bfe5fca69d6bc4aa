import { describe, expect, it } from 'vitest';
import {
  classifyPayment,
  hasDishonourFee,
  PaymentRuleError,
  paymentAmount,
} from '../../../lambdas/sources/payment-classifier';

const classify = (Response: string | null | undefined, PaymentType = 'DD') =>
  classifyPayment({ Response, PaymentType, FeeBreakdown: [{ SubscriptionFee: 20 }] });

describe('classifyPayment: the sandbox vocabulary', () => {
  it.each([
    ['Approved', 'succeeded', undefined],
    ['Declined - Insufficient Funds', 'failed', 'declined'],
    ['Declined - Do Not Honour', 'failed', 'declined'],
    ['Declined - Expired Card', 'failed', 'declined'],
    ['Dishonoured - Refer to Customer', 'failed', 'dishonoured'],
    ['Dishonoured - Account Closed', 'failed', 'dishonoured'],
  ])('%s -> %s %s', (response, outcome, reason) => {
    const result = classify(response);
    expect(result.outcome).toBe(outcome);
    expect(result.reason).toBe(reason);
  });
});

describe('classifyPayment: default rules', () => {
  it.each([
    // success
    ['00 - Approved', 'CC', 'succeeded', undefined, 'default:succeeded:approved'],
    ['APPROVED', 'CC', 'succeeded', undefined, 'default:succeeded:approved'],
    ['Success', 'DD', 'succeeded', undefined, 'default:succeeded:success'],
    ['Transaction Successful', 'CC', 'succeeded', undefined, 'default:succeeded:success'],
    ['Paid', 'DD', 'succeeded', undefined, 'default:succeeded:paid'],
    // declined
    ['Insufficient funds', 'DD', 'failed', 'declined', 'default:declined:insufficient'],
    ['05 - Do Not Honor', 'CC', 'failed', 'declined', 'default:declined:do-not-honour'],
    ['Expired Card', 'CC', 'failed', 'declined', 'default:declined:expired-card'],
    ['Invalid Card Number', 'CC', 'failed', 'declined', 'default:declined:invalid-card'],
    ['Stolen card, pick up', 'CC', 'failed', 'declined', 'default:declined:lost-or-stolen'],
    ['Lost Card', 'CC', 'failed', 'declined', 'default:declined:lost-or-stolen'],
    ['Refer to Card Issuer', 'CC', 'failed', 'declined', 'default:declined:refer-to-issuer'],
    ['Refer to Customer', 'CC', 'failed', 'declined', 'default:declined:refer-to-customer-card'],
    ['Transaction failed', 'CC', 'failed', 'declined', 'default:declined:rejected'],
    // dishonoured
    ['Dishonour', 'DD', 'failed', 'dishonoured', 'default:dishonoured:dishonour'],
    ['Dishonored', 'DD', 'failed', 'dishonoured', 'default:dishonoured:dishonour'],
    ['Returned - Payment Stopped', 'DD', 'failed', 'dishonoured', 'default:dishonoured:returned'],
    ['Reversed', 'CC', 'failed', 'dishonoured', 'default:dishonoured:reversed'],
    ['Account Closed', 'DD', 'failed', 'dishonoured', 'default:dishonoured:account-closed'],
    ['Refer to Customer', 'DD', 'failed', 'dishonoured', 'default:dishonoured:refer-to-customer-dd'],
    ['Chargeback', 'CC', 'failed', 'dishonoured', 'default:dishonoured:chargeback'],
    // pending
    ['Pending', 'DD', 'pending', undefined, 'default:pending:pending'],
    ['Submitted to bank', 'DD', 'pending', undefined, 'default:pending:pending'],
    ['Processing', 'CC', 'pending', undefined, 'default:pending:pending'],
  ])('%s (%s) -> %s %s by %s', (response, type, outcome, reason, rule) => {
    const result = classify(response, type);
    expect(result).toMatchObject({ outcome, rule });
    expect(result.reason).toBe(reason);
  });

  it.each([
    ['Not Approved'],
    ['Unsuccessful'],
    ['Payment unsuccessful'],
    ['Unpaid'],
    ['Non-processed'],
    ['Approved - Reversed'],
    ['Declined (previously Approved)'],
  ])('never reads a negated or reversed success as success: %s', (response) => {
    expect(classify(response).outcome).toBe('failed');
  });

  it.each([[undefined], [null], [''], ['   '], ['Refund'], ['OK?'], ['Approvedish'], ['Error 999']])(
    'anything unrecognised, empty or missing is unknown, never success: %j',
    (response) => {
      const result = classify(response);
      expect(result.outcome).toBe('unknown');
      expect(result.reason).toBe('unknown-response');
    },
  );
});

describe('classifyPayment: per-club overrides', () => {
  it('are checked before the defaults', () => {
    const overrides = { succeeded: ['^OK$'], declined: ['^Approved - manual review$'] };
    expect(classifyPayment({ Response: 'OK' }, overrides)).toMatchObject({
      outcome: 'succeeded',
      rule: 'override:succeeded:^OK$',
    });
    expect(classifyPayment({ Response: 'approved - MANUAL review' }, overrides)).toMatchObject({
      outcome: 'failed',
      reason: 'declined',
    });
    expect(classifyPayment({ Response: 'Declined' }, overrides).rule).toBe('default:declined:declined');
  });

  it('check failures before successes within the overrides too', () => {
    const overrides = { succeeded: ['Z'], dishonoured: ['Z-R'], pending: ['Z-P'] };
    expect(classifyPayment({ Response: 'Z-R' }, overrides)).toMatchObject({
      outcome: 'failed',
      reason: 'dishonoured',
    });
    expect(classifyPayment({ Response: 'Z-P' }, overrides).outcome).toBe('pending');
  });

  it('reject an invalid pattern with a named error', () => {
    expect(() => classifyPayment({ Response: 'x' }, { declined: ['(unclosed'] })).toThrow(PaymentRuleError);
  });
});

describe('dishonour fees and amounts', () => {
  it('flags a record charging a DishonourFee, and still classifies it by its own Response', () => {
    const fee = {
      Response: 'Approved',
      PaymentType: 'DD',
      FeeBreakdown: [{ DishonourFee: 15, SubscriptionFee: 0 }],
    };
    expect(classifyPayment(fee)).toMatchObject({ outcome: 'succeeded', isDishonourFee: true });
    expect(classifyPayment({ ...fee, Response: 'Declined' })).toMatchObject({
      outcome: 'failed',
      isDishonourFee: true,
    });
    expect(hasDishonourFee({ FeeBreakdown: [{ DishonourFee: 0 }] })).toBe(false);
    expect(hasDishonourFee({ FeeBreakdown: null })).toBe(false);
    expect(classify('Approved').isDishonourFee).toBe(false);
  });

  it('sums every FeeBreakdown number without floating-point noise', () => {
    expect(
      paymentAmount({ FeeBreakdown: [{ SubscriptionFee: 0.1, TransactionFee: 0.2 }, { JoiningFee: 10 }] }),
    ).toBe(10.3);
    expect(
      paymentAmount({ FeeBreakdown: [{ SubscriptionFee: 39.9, Adjustment: -5, ArrearsFee: null }] }),
    ).toBe(34.9);
    expect(paymentAmount({ FeeBreakdown: [] })).toBeUndefined();
    expect(paymentAmount({})).toBeUndefined();
  });
});
