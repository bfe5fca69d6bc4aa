/**
 * package.json `exports` maps `gym-bridge/events` to the consumer entry, so code in this repository
 * can also import the module by the package's own name (tsc, tsx and vitest resolve it); it is the
 * same module as the `@gym-bridge/events` alias.
 */
import * as alias from '@gym-bridge/events';
import { DETAIL_TYPES, EVENT_SCHEMAS, parseBridgeEvent } from 'gym-bridge/events';
import { describe, expect, it } from 'vitest';

describe('gym-bridge/events (package self-reference)', () => {
  it('is the consumer entry', () => {
    expect(DETAIL_TYPES.PaymentFailed).toBe('Payment Failed');
    expect(EVENT_SCHEMAS).toBe(alias.EVENT_SCHEMAS);
    expect(parseBridgeEvent).toBe(alias.parseBridgeEvent);
  });
});
