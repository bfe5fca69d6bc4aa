/** The consumer entry resolves by its alias in tests, as it does for tsc and tsx. */
import { DETAIL_TYPES, EVENT_SCHEMAS } from '@gym-bridge/events';
import { describe, expect, it } from 'vitest';

describe('@gym-bridge/events', () => {
  it('exports the detail types and their schemas', () => {
    expect(DETAIL_TYPES.PaymentFailed).toBe('Payment Failed');
    expect(Object.keys(EVENT_SCHEMAS)).toContain('Payment Failed');
  });
});
