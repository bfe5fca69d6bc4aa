/**
 * A consumer's bundle of @gym-bridge/events holds the catalog and zod, and none of the engine, the
 * state store, the sandbox, the API client or the AWS SDK (esbuild metafile of the bundles that
 * bench/consumer-bundle.ts measures). A correctness test: no timing.
 */
import { describe, expect, it } from 'vitest';
import {
  bundleConsumer,
  type ConsumerBundle,
  FORBIDDEN_INPUTS,
  forbiddenInputs,
} from '../../../bench/consumer-bundle';

describe('consumer bundle of @gym-bridge/events', () => {
  let moduleOnly: ConsumerBundle;
  let withPowertools: ConsumerBundle;

  it('bundles the module alone: catalog, record schemas, zod; no forbidden input, no Node built-in', async () => {
    moduleOnly = await bundleConsumer('module-only');
    expect(moduleOnly.packages).toEqual(['zod']);
    expect(moduleOnly.projectFiles).toEqual([
      'event-tooling/consumer-named-schemas.ts',
      'event-tooling/consumer-parse.ts',
      'event-tooling/consumer-schemas.ts',
      'event-tooling/consumer-webhooks.ts',
      'event-tooling/consumer.ts',
      'lambdas/common/source-names.ts',
      'lambdas/events/catalog.ts',
      'lambdas/events/detail-envelope.ts',
      'lambdas/events/event-data.ts',
      'lambdas/events/event-descriptions.ts',
      'lambdas/events/event-details.ts',
      'lambdas/events/event-id-pattern.ts',
      'lambdas/events/event-names.ts',
      'lambdas/events/event-pattern-operators.ts',
      'lambdas/events/event-pattern-types.ts',
      'lambdas/events/event-pattern.ts',
      'lambdas/events/eventbridge-envelope.ts',
      'lambdas/events/lifecycle-details.ts',
      'lambdas/gym-api/schemas.ts',
    ]);
    expect(forbiddenInputs(moduleOnly)).toEqual([]);
    expect(moduleOnly.externalImports).toEqual([]);
  });

  it('bundles the module with Powertools Parser: no AWS SDK, no engine, state, sandbox or API client', async () => {
    withPowertools = await bundleConsumer('module');
    expect(withPowertools.packages).toEqual(['@aws-lambda-powertools/parser', 'zod']);
    expect(forbiddenInputs(withPowertools)).toEqual([]);
    for (const input of withPowertools.inputs) {
      expect(input).not.toMatch(/@aws-sdk|lambdas\/(engine|state)\/|^sandbox\/|lambdas\/gym-api\/client/);
    }
  });

  it('the check catches a forbidden input (it can fail)', () => {
    const planted = { ...moduleOnly, inputs: [...moduleOnly.inputs, 'lambdas/events/event-id.ts'] };
    expect(forbiddenInputs(planted)).toEqual(['lambdas/events/event-id.ts']);
    for (const input of [
      'node_modules/@aws-sdk/client-eventbridge/dist-es/index.js',
      'lambdas/engine/poll.ts',
      'lambdas/state/store.ts',
      'sandbox/server.ts',
      'lambdas/gym-api/client.ts',
    ]) {
      expect(FORBIDDEN_INPUTS.some((p) => p.test(input))).toBe(true);
    }
    expect(FORBIDDEN_INPUTS.some((p) => p.test('lambdas/gym-api/schemas.ts'))).toBe(false);
  });
});
