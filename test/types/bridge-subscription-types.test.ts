/**
 * Types of a subscription's detail pattern (lib/constructs/bridge-subscription.ts), with vitest's
 * expectTypeOf: checked by tsc (npm test's typecheck), listed by vitest. The @ts-expect-error
 * checks of planted typos are in bridge-subscription.test-d.ts.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { DetailType, PaymentFailureReason } from '../../lambdas/events/catalog';
import type {
  BridgePatternSpec,
  DetailPattern,
  ExistsMatcher,
  FieldPattern,
  LeafOption,
  NumberMatcher,
  StringMatcher,
} from '../../lib/constructs/bridge-subscription';

type PaymentFailed = DetailPattern<'Payment Failed'>;

describe('detail pattern types', () => {
  it('an enum field takes its members and string matchers', () => {
    expectTypeOf<NonNullable<PaymentFailed['reason']>>().toEqualTypeOf<
      readonly LeafOption<PaymentFailureReason>[]
    >();
    expectTypeOf<'dishonoured'>().toExtend<LeafOption<PaymentFailureReason>>();
    expectTypeOf<'dishonored'>().not.toExtend<LeafOption<PaymentFailureReason>>();
    expectTypeOf<{ 'anything-but': ['declined'] }>().toExtend<LeafOption<PaymentFailureReason>>();
    expectTypeOf<{ 'anything-but': ['nope'] }>().not.toExtend<LeafOption<PaymentFailureReason>>();
  });

  it('a number field takes numbers and numeric ranges, not strings', () => {
    expectTypeOf<LeafOption<number>>().toEqualTypeOf<number | ExistsMatcher | NumberMatcher<number>>();
    expectTypeOf<{ numeric: readonly ['>', 0, '<=', 5] }>().toExtend<LeafOption<number>>();
    expectTypeOf<{ numeric: readonly ['>', 0, '>', 5] }>().not.toExtend<LeafOption<number>>();
    expectTypeOf<'40'>().not.toExtend<LeafOption<number>>();
  });

  it('a nullable string takes null and string matchers; a boolean only true/false/exists', () => {
    expectTypeOf<LeafOption<string | null>>().toEqualTypeOf<
      string | null | ExistsMatcher | StringMatcher<string>
    >();
    expectTypeOf<LeafOption<boolean>>().toEqualTypeOf<boolean | ExistsMatcher>();
  });

  it('nested objects recurse; arrays take their elements pattern', () => {
    expectTypeOf<{ data: { Contact: { State: ['NSW'] } } }>().toExtend<
      DetailPattern<'Member Status Changed'>
    >();
    expectTypeOf<FieldPattern<string[]>>().toEqualTypeOf<FieldPattern<string>>();
  });

  it('several detail-types: the common fields only', () => {
    type Both = DetailPattern<'Payment Failed' | 'Payment Succeeded'>;
    expectTypeOf<Both>().toHaveProperty('paymentType');
    expectTypeOf<keyof Both>().not.toEqualTypeOf<keyof PaymentFailed>();
    expectTypeOf<'reason'>().not.toExtend<keyof Both>();
    expectTypeOf<'reason'>().toExtend<keyof PaymentFailed>();
  });

  it('detailType is a catalog name or a list of them', () => {
    expectTypeOf<BridgePatternSpec<DetailType>['detailType']>().toEqualTypeOf<
      DetailType | readonly DetailType[]
    >();
  });
});
