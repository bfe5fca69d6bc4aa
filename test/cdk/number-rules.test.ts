/**
 * One rule per numeric setting (lambdas/common/deployment-contract.ts, NUMBER_RULES): the stack's
 * checks, the poll Lambdas' and the webhook Lambdas' read the same rule and say it in the same
 * words, so a bound changed in one place cannot leave another side accepting what this one refuses.
 */
import { describe, expect, it } from 'vitest';
import {
  CLUB_ID_PATTERN,
  ENV,
  MAX_CLUB_ID_CHARS,
  MAX_EVENT_SOURCE_CONCURRENCY,
  NUMBER_RULES,
  numberRule,
  ruleWords,
} from '../../lambdas/common/deployment-contract';
import { DEFAULT_QUOTA_RESERVE } from '../../lambdas/common/plans';
import { fanOutRuntimeFromEnv, WebhookEnvironmentError } from '../../lambdas/delivery/handlers/runtime';
import { DEFAULT_TIMEOUT_MS } from '../../lambdas/delivery/http-delivery';
import { optionalNumberEnv } from '../../lambdas/handlers/runtime-env';
import { MAX_POLL_CONCURRENCY } from '../../lib/fleet-sizing';
import { resolveStageConfig } from '../../lib/stage-config';

/** Values around every bound a rule may have: below, at, between and above. */
const PROBES = [
  -1, 0, 0.5, 0.99, 1, 1.5, 2, 19, 20, 21, 900, 901, 999, 1000, 1001, 30_000, 30_001, 65_536, 1e9,
];

const WEBHOOK_ENV = {
  [ENV.webhookTable]: 'webhooks',
  [ENV.webhookQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries',
  [ENV.webhookSecretPrefix]: 'gym-bridge/webhooks/',
  [ENV.webhookIngestQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ingest',
  [ENV.eventBus]: 'bus',
};

const stageRefuses = (key: string, n: number): boolean => {
  try {
    resolveStageConfig((k) => (k === key ? String(n) : undefined));
    return false;
  } catch {
    return true;
  }
};

const runtimeRefuses = (name: string, n: number): boolean => {
  try {
    optionalNumberEnv({ [name]: String(n) }, name);
    return false;
  } catch {
    return true;
  }
};

describe('NUMBER_RULES, the one place of each numeric limit', () => {
  it.each([
    ['pollBatchSize', ENV.pollClubsPerMessage],
    ['quotaReserve', ENV.quotaReserve],
  ])('the stack refuses %s exactly where the poll Lambdas refuse %s', (key, name) => {
    for (const n of PROBES) expect(stageRefuses(key, n), `${key}=${n}`).toBe(runtimeRefuses(name, n));
    const rule = NUMBER_RULES[name]!;
    expect(() => resolveStageConfig((k) => (k === key ? '-1' : undefined))).toThrow(
      `must be ${ruleWords(rule)}`,
    );
  });

  it('the webhook Lambdas refuse by the rule, in its words, and their defaults keep it', () => {
    for (const [name, good, bad] of [
      [ENV.webhookFanOutConcurrency, '3', '1001'],
      [ENV.webhookTimeoutMs, '20000', '999'],
    ] as const) {
      expect(() => fanOutRuntimeFromEnv({ ...WEBHOOK_ENV, [name]: good })).not.toThrow();
      const refused = () => fanOutRuntimeFromEnv({ ...WEBHOOK_ENV, [name]: bad });
      expect(refused).toThrow(WebhookEnvironmentError);
      expect(refused).toThrow(
        `${name} is '${bad}': it must hold ${NUMBER_RULES[name]!.holds}, ${ruleWords(NUMBER_RULES[name]!)}`,
      );
    }
    expect(runtimeRefuses(ENV.webhookTimeoutMs, DEFAULT_TIMEOUT_MS)).toBe(false);
    expect(runtimeRefuses(ENV.quotaReserve, DEFAULT_QUOTA_RESERVE)).toBe(false);
  });

  it("bounds the fan-out's concurrency by the event source's, as the poll function's", () => {
    expect(numberRule(ENV.webhookFanOutConcurrency).max).toBe(MAX_EVENT_SOURCE_CONCURRENCY);
    expect(MAX_POLL_CONCURRENCY).toBe(MAX_EVENT_SOURCE_CONCURRENCY);
  });

  it('a club id is checked by one pattern, as long as its stated limit', () => {
    expect(CLUB_ID_PATTERN.test('a'.repeat(MAX_CLUB_ID_CHARS))).toBe(true);
    expect(CLUB_ID_PATTERN.test('a'.repeat(MAX_CLUB_ID_CHARS + 1))).toBe(false);
  });
});
