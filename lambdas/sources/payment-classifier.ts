/**
 * Classifies a payment-history record as succeeded, failed (declined / dishonoured), pending or
 * unknown, from its `Response` text (and `PaymentType`), with per-club override patterns.
 *
 * The API does not enumerate `Response` values, so the rules are deliberately conservative:
 * failure patterns are checked before success patterns ("Not Approved", "Approved - Reversed"
 * are failures), words match on word boundaries ("Unsuccessful" is not "Successful", "Unpaid"
 * is not "Paid"), and anything unrecognised, empty or missing is `unknown` with reason
 * `unknown-response`: never a success. The rules are listed in docs/publishing.md.
 *
 * Order: per-club overrides (dishonoured, declined, pending, succeeded), then the defaults in the
 * same order. The first match wins and is named in `rule`. The overrides are the operator's and
 * run in a linear-time engine (RE2 syntax, ../common/linear-pattern.ts), so no pattern and no
 * Response backtracks; the defaults are ours, JavaScript regexes that scan a Response once.
 */
import { compileLinearPattern, type LinearPattern } from '../common/linear-pattern';
import type { PaymentFailureReason } from '../events/catalog';
import type { MemberPaymentHistory } from '../gym-api/schemas';

export type { PaymentFailureReason };
export type PaymentOutcome = 'succeeded' | 'failed' | 'pending' | 'unknown';
type Category = 'dishonoured' | 'declined' | 'pending' | 'succeeded';

export interface PaymentClassification {
  readonly outcome: PaymentOutcome;
  readonly reason?: PaymentFailureReason;
  /** Which rule decided, e.g. 'default:declined:insufficient' or 'override:succeeded:^OK$'. */
  readonly rule: string;
  /** True when the record charges a DishonourFee (a fee for an earlier dishonour). */
  readonly isDishonourFee: boolean;
}

/** Per-club patterns (RE2 syntax, matched case-insensitively anywhere in Response), checked first. */
export interface PaymentRuleOverrides {
  readonly succeeded?: readonly string[];
  readonly declined?: readonly string[];
  readonly dishonoured?: readonly string[];
  readonly pending?: readonly string[];
}

/** The fields the classifier reads; a full MemberPaymentHistory record fits. */
export type ClassifiablePayment = Pick<MemberPaymentHistory, 'Response' | 'PaymentType' | 'FeeBreakdown'>;

export class PaymentRuleError extends Error {
  override readonly name = 'PaymentRuleError';
}

export interface PaymentRule {
  readonly name: string;
  readonly category: Category;
  /** A default's JavaScript regex, or an override compiled by the linear-time engine. */
  readonly pattern: RegExp | LinearPattern;
  /** Restricts the rule to card payments (PaymentType CC) or to every other PaymentType. */
  readonly onlyFor?: 'card' | 'non-card';
}

const isCard = (paymentType: string) => paymentType.trim().toUpperCase() === 'CC';

/** Default rules, in evaluation order. Exported for the documentation and tests. */
export const DEFAULT_PAYMENT_RULES: readonly PaymentRule[] = [
  // A direct debit taken and later returned by the payer's bank.
  { name: 'dishonour', category: 'dishonoured', pattern: /\bdishono(?:u)?r/i },
  { name: 'returned', category: 'dishonoured', pattern: /\breturned\b/i },
  { name: 'reversed', category: 'dishonoured', pattern: /\brevers(?:ed|al)\b/i },
  { name: 'chargeback', category: 'dishonoured', pattern: /\bcharge[\s-]?back\b/i },
  { name: 'account-closed', category: 'dishonoured', pattern: /\baccount closed\b/i },
  { name: 'payment-stopped', category: 'dishonoured', pattern: /\bpayment stopped\b/i },
  { name: 'invalid-bsb', category: 'dishonoured', pattern: /\binvalid bsb\b|\bno account\b/i },
  {
    name: 'refer-to-customer-dd',
    category: 'dishonoured',
    pattern: /\brefer to customer\b/i,
    onlyFor: 'non-card',
  },
  {
    name: 'refer-to-customer-card',
    category: 'declined',
    pattern: /\brefer to customer\b/i,
    onlyFor: 'card',
  },
  // Refused at the time of the attempt.
  {
    name: 'negated-success',
    category: 'declined',
    pattern: /\b(?:not|non|un)[\s-]*(?:approved|paid|successful|processed)\b/i,
  },
  { name: 'declined', category: 'declined', pattern: /\bdecline(?:d)?\b/i },
  { name: 'insufficient', category: 'declined', pattern: /\binsufficient\b/i },
  { name: 'do-not-honour', category: 'declined', pattern: /\bdo not hono(?:u)?r\b/i },
  { name: 'expired-card', category: 'declined', pattern: /\bexpired card\b|\bcard expired\b/i },
  { name: 'invalid-card', category: 'declined', pattern: /\binvalid card\b|\binvalid (?:card )?number\b/i },
  { name: 'lost-or-stolen', category: 'declined', pattern: /\bstolen\b|\blost\b|\bpick[\s-]?up card\b/i },
  { name: 'refer-to-issuer', category: 'declined', pattern: /\brefer to (?:card )?issuer\b/i },
  { name: 'rejected', category: 'declined', pattern: /\brejected\b|\bfail(?:ed|ure)?\b/i },
  // Not settled yet: no event until it is.
  {
    name: 'pending',
    category: 'pending',
    pattern: /\bpending\b|\bsubmitted\b|\bprocessing\b|\bin progress\b|\bqueued\b/i,
  },
  // Success.
  { name: 'approved', category: 'succeeded', pattern: /\bapproved\b/i },
  { name: 'success', category: 'succeeded', pattern: /\bsuccess(?:ful(?:ly)?)?\b/i },
  { name: 'paid', category: 'succeeded', pattern: /\bpaid\b/i },
  { name: 'settled', category: 'succeeded', pattern: /\bsettled\b|\bcompleted?\b/i },
];

const OVERRIDE_ORDER: readonly Category[] = ['dishonoured', 'declined', 'pending', 'succeeded'];

const compiledOverrides = new WeakMap<PaymentRuleOverrides, readonly PaymentRule[]>();

/**
 * Compiles override patterns (cached per overrides object). Throws PaymentRuleError naming the rule
 * when the linear-time engine does not take one (club config validation refuses it earlier).
 */
export function compileOverrides(overrides: PaymentRuleOverrides): readonly PaymentRule[] {
  const cached = compiledOverrides.get(overrides);
  if (cached) return cached;
  const rules: PaymentRule[] = [];
  for (const category of OVERRIDE_ORDER) {
    (overrides[category] ?? []).forEach((source, index) => {
      try {
        rules.push({
          name: `override:${category}:${source}`,
          category,
          pattern: compileLinearPattern(source),
        });
      } catch (err) {
        throw new PaymentRuleError(
          `payment rule override ${category}[${index}] is not a pattern the linear-time engine takes (RE2 syntax): ${(err as Error).message}`,
          { cause: err },
        );
      }
    });
  }
  compiledOverrides.set(overrides, rules);
  return rules;
}

export function classifyPayment(
  record: ClassifiablePayment,
  overrides?: PaymentRuleOverrides,
): PaymentClassification {
  const isDishonourFee = hasDishonourFee(record);
  const response = (record.Response ?? '').trim();
  if (response === '') {
    return { outcome: 'unknown', reason: 'unknown-response', rule: 'empty-response', isDishonourFee };
  }
  const paymentType = record.PaymentType ?? '';
  const candidates = [
    ...(overrides ? compileOverrides(overrides) : []),
    ...DEFAULT_PAYMENT_RULES.map((rule) => ({ ...rule, name: `default:${rule.category}:${rule.name}` })),
  ];
  for (const rule of candidates) {
    if (rule.onlyFor && (rule.onlyFor === 'card') !== isCard(paymentType)) continue;
    if (!rule.pattern.test(response)) continue;
    return { ...outcomeOf(rule.category), rule: rule.name, isDishonourFee };
  }
  return { outcome: 'unknown', reason: 'unknown-response', rule: 'no-match', isDishonourFee };
}

function outcomeOf(category: Category): Pick<PaymentClassification, 'outcome' | 'reason'> {
  switch (category) {
    case 'succeeded':
      return { outcome: 'succeeded' };
    case 'pending':
      return { outcome: 'pending' };
    case 'declined':
      return { outcome: 'failed', reason: 'declined' };
    case 'dishonoured':
      return { outcome: 'failed', reason: 'dishonoured' };
  }
}

/** True when any FeeBreakdown line carries a non-zero DishonourFee. */
export function hasDishonourFee(record: Pick<MemberPaymentHistory, 'FeeBreakdown'>): boolean {
  return (record.FeeBreakdown ?? []).some(
    (fees) => typeof fees.DishonourFee === 'number' && fees.DishonourFee !== 0,
  );
}

/**
 * Sum of every number in the FeeBreakdown lines (the payment's amount), rounded to 4 decimals to
 * drop floating-point noise; undefined when the record has no breakdown.
 */
export function paymentAmount(record: Pick<MemberPaymentHistory, 'FeeBreakdown'>): number | undefined {
  const lines = record.FeeBreakdown;
  if (!lines || lines.length === 0) return undefined;
  let total = 0;
  for (const line of lines) {
    for (const value of Object.values(line))
      if (typeof value === 'number' && Number.isFinite(value)) total += value;
  }
  return Math.round(total * 10_000) / 10_000;
}
