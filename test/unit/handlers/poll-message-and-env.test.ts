/** The poll message schema and the handlers' environment reading. */
import { describe, expect, it } from 'vitest';
import { ENV } from '../../../lambdas/common/deployment-contract';
import {
  parsePollBody,
  parsePollMessage,
  serializePollBody,
  serializePollMessage,
} from '../../../lambdas/common/poll-message';
import { clubsPerMessageEnv } from '../../../lambdas/handlers/dispatch-runtime';
import {
  eventSourceEnv,
  InvalidEnvironmentError,
  MissingEnvironmentError,
  optionalNumberEnv,
  piiPolicyEnv,
  quotaReserveEnv,
  requiredEnv,
  sourceOverdueMinutesEnv,
} from '../../../lambdas/handlers/runtime-env';

describe('parsePollMessage', () => {
  it('accepts the contract message and round-trips it', () => {
    const message = {
      clubId: 'club-1',
      sources: ['members', 'visits'] as const,
      dispatchedAt: '2026-06-10T12:00:00.000Z',
      backfillFrom: '2026-06-01T00:00:00Z',
    };
    expect(parsePollMessage(serializePollMessage(message))).toEqual({ ok: true, message });
  });

  it.each([
    ['not JSON', '{"clubId":', 'body is not JSON'],
    ['no sources', '{"clubId":"c","sources":[],"dispatchedAt":"2026-06-10T12:00:00Z"}', 'sources'],
    [
      'an unknown source',
      '{"clubId":"c","sources":["gyms"],"dispatchedAt":"2026-06-10T12:00:00Z"}',
      'sources.0',
    ],
    [
      'a repeated source',
      '{"clubId":"c","sources":["visits","visits"],"dispatchedAt":"2026-06-10T12:00:00Z"}',
      'twice',
    ],
    [
      'a forged club id',
      '{"clubId":"a#b","sources":["visits"],"dispatchedAt":"2026-06-10T12:00:00Z"}',
      'clubId',
    ],
    [
      'a local time',
      '{"clubId":"c","sources":["visits"],"dispatchedAt":"2026-06-10T12:00:00"}',
      'dispatchedAt',
    ],
    ['a number', '42', '(message)'],
  ])('rejects %s, naming the problem', (_, body, problem) => {
    const parsed = parsePollMessage(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(problem);
  });
});

describe('parsePollBody', () => {
  const m = (clubId: string) => ({
    clubId,
    sources: ['visits' as const],
    dispatchedAt: '2026-06-10T12:00:00.000Z',
  });

  it('reads a group, and one club alone as releases before groups sent it; both round-trip', () => {
    // Act, Assess
    expect(parsePollBody(serializePollBody([m('a'), m('b')]))).toEqual({
      ok: true,
      messages: [m('a'), m('b')],
      problems: [],
    });
    expect(serializePollBody([m('a')])).toBe(serializePollMessage(m('a')));
    expect(parsePollBody(serializePollMessage(m('a')))).toEqual({
      ok: true,
      messages: [m('a')],
      problems: [],
    });
  });

  it('drops a bad entry alone, naming its place; a group that is not one is a problem of its own', () => {
    // Act
    const mixed = parsePollBody(JSON.stringify({ polls: [m('a'), { ...m('b'), clubId: 'a#b' }, 42] }));
    // Assess
    expect(mixed.ok && mixed.messages).toEqual([m('a')]);
    expect(mixed.ok && mixed.problems).toEqual([
      expect.stringContaining('polls.1.clubId'),
      expect.stringContaining('polls.2'),
    ]);
    for (const body of ['{"polls":[]}', '{"polls":"x"}', JSON.stringify({ polls: Array(21).fill(m('a')) })]) {
      const parsed = parsePollBody(body);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain('polls');
    }
    expect(parsePollBody('{"polls":')).toEqual({ ok: false, problem: 'body is not JSON' });
  });
});

describe('runtime environment', () => {
  it('reads the clubs a poll message carries: 1 when unset, refused outside 1..20', () => {
    expect(clubsPerMessageEnv({})).toBe(1);
    expect(clubsPerMessageEnv({ [ENV.pollClubsPerMessage]: '20' })).toBe(20);
    for (const bad of ['0', '21', '2.5', 'x']) {
      expect(() => clubsPerMessageEnv({ [ENV.pollClubsPerMessage]: bad })).toThrow(
        /POLL_CLUBS_PER_MESSAGE is '.*': it must hold the clubs one poll message carries, a whole number in 1\.\.20/,
      );
    }
  });

  it('names a missing variable and what it must hold', () => {
    expect(() => requiredEnv({}, ENV.stateTable)).toThrow(MissingEnvironmentError);
    expect(() => requiredEnv({ [ENV.stateTable]: '  ' }, ENV.stateTable)).toThrow(
      'environment variable STATE_TABLE_NAME is not set: it must hold the DynamoDB state table name',
    );
    expect(requiredEnv({ [ENV.stateTable]: 'tbl' }, ENV.stateTable)).toBe('tbl');
  });

  it('validates the optional variables and falls back to defaults', () => {
    expect(quotaReserveEnv({}, 0.1)).toBe(0.1);
    expect(quotaReserveEnv({ [ENV.quotaReserve]: '0.2' }, 0.1)).toBe(0.2);
    expect(() => quotaReserveEnv({ [ENV.quotaReserve]: '1' }, 0.1)).toThrow(InvalidEnvironmentError);
    expect(() => quotaReserveEnv({ [ENV.quotaReserve]: 'ten' }, 0.1)).toThrow(/QUOTA_RESERVE is 'ten'/);
    expect(eventSourceEnv({})).toBe('gym-bridge');
    expect(eventSourceEnv({ [ENV.eventSource]: ' gym-bridge.dev ' })).toBe('gym-bridge.dev');
    expect(() => eventSourceEnv({ [ENV.eventSource]: 'aws.gyms' })).toThrow(
      /EVENT_SOURCE is 'aws\.gyms'.*not starting with 'aws\.'/,
    );
    expect(sourceOverdueMinutesEnv({}, 15)).toBe(15);
    expect(sourceOverdueMinutesEnv({ [ENV.sourceOverdueMinutes]: '30' }, 15)).toBe(30);
    expect(() => sourceOverdueMinutesEnv({ [ENV.sourceOverdueMinutes]: '0' }, 15)).toThrow(
      /SOURCE_OVERDUE_MINUTES is '0': it must hold the minutes a source may go without a successful poll/,
    );
    expect(optionalNumberEnv({ [ENV.pollDeadlineMs]: '100000' }, ENV.pollDeadlineMs)).toBe(100_000);
    expect(() => optionalNumberEnv({ [ENV.pollDeadlineMs]: '999' }, ENV.pollDeadlineMs)).toThrow(
      /POLL_DEADLINE_MS is '999': it must hold milliseconds a poll invocation may use, a number >= 1000/,
    );
    expect(() => optionalNumberEnv({ [ENV.maxResponseBytes]: '65535' }, ENV.maxResponseBytes)).toThrow(
      /MAX_RESPONSE_BYTES is '65535': .*a whole number >= 65536/,
    );
    expect(piiPolicyEnv({})).toBe('minimal');
    expect(piiPolicyEnv({ [ENV.piiPolicyDefault]: 'full' })).toBe('full');
    expect(() => piiPolicyEnv({ [ENV.piiPolicyDefault]: 'some' })).toThrow(InvalidEnvironmentError);
  });
});
