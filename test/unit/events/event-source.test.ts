/** The event source: one rule for the stack's stages and the CLI, with the CLI's precedence. */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../../lambdas/common/deployment-contract';
import {
  DEFAULT_EVENT_SOURCE,
  DEPLOYMENT_STAGES,
  describeEventSource,
  EVENT_SOURCE_ENV,
  EventSourceError,
  eventSourceForStage,
  resolveEventSource,
  resolveEventSourceWithOrigin,
  validateEventSource,
} from '../../../lambdas/events/event-source';
import { resolveStageConfig, STAGES } from '../../../lib/stage-config';

const noContext = (stage: string) => (key: string) => (key === 'stage' ? stage : undefined);

describe('event source per stage: the CLI and the stack agree', () => {
  // One table for both sides: what a deployed stage's rules match, and what `--stage` publishes.
  it.each([
    ['dev', 'gym-bridge.dev'],
    ['prod', 'gym-bridge'],
  ])('stage %s: %s', (stage, expected) => {
    expect(resolveStageConfig(noContext(stage)).eventSource).toBe(expected);
    expect(resolveEventSource({ stage, env: {} })).toBe(expected);
    expect(eventSourceForStage(stage)).toBe(expected);
  });

  it('every stage the stack knows has the same source on both sides', () => {
    expect(STAGES).toEqual(DEPLOYMENT_STAGES);
    for (const stage of STAGES) {
      expect(resolveEventSource({ stage, env: {} })).toBe(resolveStageConfig(noContext(stage)).eventSource);
    }
  });

  it('an unknown stage is an error naming the stages, on both sides', () => {
    expect(() => resolveEventSource({ stage: 'staging', env: {} })).toThrow(EventSourceError);
    expect(() => resolveEventSource({ stage: 'staging', env: {} })).toThrow(/stage="staging".*dev, prod/);
    expect(() => resolveStageConfig(noContext('staging'))).toThrow(/stage="staging".*dev, prod/);
  });
});

describe('resolveEventSource precedence: --event-source > $GYM_BRIDGE_EVENT_SOURCE > --stage > default', () => {
  const env = { [EVENT_SOURCE_ENV]: 'acme.from-env' };
  it.each([
    [{ flag: 'acme.flag', env, stage: 'dev' }, 'acme.flag', 'flag'],
    [{ env, stage: 'dev' }, 'acme.from-env', 'env'],
    [{ env: {}, stage: 'dev' }, 'gym-bridge.dev', 'stage'],
    [{ env: { [EVENT_SOURCE_ENV]: '  ' }, stage: 'prod' }, 'gym-bridge', 'stage'],
    [{ env: {} }, DEFAULT_EVENT_SOURCE, 'default'],
    [{ env: { [EVENT_SOURCE_ENV]: ' acme.padded ' } }, 'acme.padded', 'env'],
  ] as const)('%o -> %s (%s)', (input, source, origin) => {
    expect(resolveEventSourceWithOrigin(input)).toEqual({ source, origin });
    expect(resolveEventSource(input)).toBe(source);
  });

  it("does not read the Lambda's EVENT_SOURCE (set by the stack on the poll function only)", () => {
    expect(ENV.eventSource).not.toBe(EVENT_SOURCE_ENV);
    expect(resolveEventSource({ env: { [ENV.eventSource]: 'leftover.value' } })).toBe(DEFAULT_EVENT_SOURCE);
  });

  it('a bad --stage is an error even when a flag decides the source', () => {
    expect(() => resolveEventSource({ flag: 'acme.flag', env: {}, stage: 'prd' })).toThrow(/stage="prd"/);
  });

  it('names where a bad value came from', () => {
    expect(() => resolveEventSource({ flag: 'aws.events', env: {} })).toThrow(
      /^--event-source="aws\.events"/,
    );
    expect(() => resolveEventSource({ env: { [EVENT_SOURCE_ENV]: 'aws.x' } })).toThrow(
      /^\$GYM_BRIDGE_EVENT_SOURCE="aws\.x"/,
    );
    expect(() => resolveEventSource({ flag: '', env })).toThrow(/--event-source="" .*empty/);
  });

  it('describes the source and its origin for the CLI', () => {
    expect(describeEventSource(resolveEventSourceWithOrigin({ env: {}, stage: 'dev' }), 'dev')).toBe(
      'gym-bridge.dev (from --stage dev)',
    );
    expect(describeEventSource(resolveEventSourceWithOrigin({ env }))).toBe(
      'acme.from-env (from $GYM_BRIDGE_EVENT_SOURCE)',
    );
  });
});

describe('validateEventSource: EventBridge rules', () => {
  it.each(['gym-bridge', 'gym-bridge.dev', 'com.acme_gyms-1', 'a', 'x'.repeat(256)])(
    'accepts %s',
    (value) => {
      expect(validateEventSource(value)).toBe(value);
    },
  );

  it.each([
    ['', /empty/],
    ['x'.repeat(257), /257 characters long/],
    ['aws.events', /'aws\.' is reserved/],
    ['AWS.events', /'aws\.' is reserved/],
    ['gym bridge', /only letters, digits/],
    ['.gym', /starting with a letter or digit/],
    ['gym/bridge', /only letters, digits/],
  ])('rejects %j', (value, reason) => {
    expect(() => validateEventSource(value, '--event-source')).toThrow(EventSourceError);
    expect(() => validateEventSource(value, '--event-source')).toThrow(reason);
  });
});
