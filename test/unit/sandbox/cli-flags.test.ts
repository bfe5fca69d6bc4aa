import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { poisonNotice, sandboxOptionsFromFlags } from '../../../cli/commands/sandbox';
import { resolvePoison } from '../../../sandbox/poison/settings';

describe('sandbox command flags', () => {
  it('maps flags to sandbox options', () => {
    const parsed = sandboxOptionsFromFlags([
      '--port',
      '0',
      '--clubs',
      '2',
      '--seed',
      '9',
      '--members',
      '50',
      '--history-days',
      '3',
      '--start-time',
      '2025-03-01T00:00:00Z',
      '--write-clubs',
      'clubs.json',
      '--live',
      '--speed',
      '60',
      '--ambiguous-zone',
      'utc',
      '--quota-scale',
      '0.001',
      '--error-rate-5xx',
      '0.1',
      '--latency-ms',
      '20',
    ]);
    expect(parsed).toEqual({
      options: {
        port: 0,
        clubs: 2,
        seed: 9,
        members: 50,
        historyDays: 3,
        startTime: Date.parse('2025-03-01T00:00:00Z'),
        ambiguousZone: 'utc',
        quotaScale: 0.001,
        faults: { errorRate5xx: 0.1, latencyMs: 20 },
      },
      writeClubs: 'clubs.json',
      live: 60,
    });
  });

  it('--open-24h makes every club open around the clock (3 by default, or --clubs N)', () => {
    expect(sandboxOptionsFromFlags(['--open-24h'])?.options.clubs).toEqual([
      { open24h: true },
      { open24h: true },
      { open24h: true },
    ]);
    expect(sandboxOptionsFromFlags(['--open-24h', '--clubs', '2'])?.options.clubs).toEqual([
      { open24h: true },
      { open24h: true },
    ]);
    expect(sandboxOptionsFromFlags(['--clubs', '2'])?.options.clubs).toBe(2);
  });

  it('turns poison mode on, whole or as settings', () => {
    expect(sandboxOptionsFromFlags(['--poison'])?.options.faults).toMatchObject({ poison: true });
    expect(
      sandboxOptionsFromFlags(['--poison-settings', '{"stored":{"identity":2},"offsetIgnored":0.1}'])?.options
        .faults,
    ).toMatchObject({ poison: { stored: { identity: 2 }, offsetIgnored: 0.1 } });
  });

  it('defaults the port to 4010', () => {
    expect(sandboxOptionsFromFlags([])?.options.port).toBe(4010);
  });

  it.each([
    [['--port', 'x'], /--port must be an integer/],
    [['--port', '70000'], /--port must be <= 65535/],
    [['--clubs', '0'], /--clubs must be >= 1/],
    [['--ambiguous-zone', 'mars'], /--ambiguous-zone/],
    [['--error-rate-5xx', '2'], /--error-rate-5xx must be <= 1/],
    [['--speed', '10'], /--speed needs --live/],
    [['--start-time', 'tomorrow'], /--start-time/],
    [['--bogus'], /bogus/],
    [['--poison-settings', '{stored'], /--poison-settings must be JSON/],
    [['--poison', '--poison-settings', '{}'], /give one/],
  ])('rejects %j', (argv, message) => {
    expect(() => sandboxOptionsFromFlags(argv)).toThrow(CliUsageError);
    expect(() => sandboxOptionsFromFlags(argv)).toThrow(message);
  });
});

describe('sandbox --poison says what it does', () => {
  it('every class and habit: their rates, and what a poll should show of each', () => {
    const lines = poisonNotice(resolvePoison(true)).join('\n');
    expect(lines).toMatch(/^POISON MODE \(docs\/sandbox.md, "Poison mode"\): this API misbehaves on purpose/);
    expect(lines).toContain('stored bad records, per club per simulated hour: 0.5 of each class (identity,');
    expect(lines).toContain('a 100 MiB page 1%');
    expect(lines).toContain('bad records quarantined with a reason (status counts them)');
    expect(lines).toContain('a poll that fails or stops part-way during a habit');
    expect(lines).toContain('Leave out --poison for a normal API.');
  });

  it('only what is on: one stored class without habits, one habit without stored records', () => {
    const stored = poisonNotice(resolvePoison({ stored: { identity: 2 } })).join('\n');
    expect(stored).toContain('per club per simulated hour: identity 2;');
    expect(stored).not.toMatch(/response habits|during a habit/);
    const habit = poisonNotice(resolvePoison({ offsetIgnored: 0.1 })).join('\n');
    expect(habit).toContain('response habits, share of requests: offset ignored (3 requests) 10%');
    expect(habit).not.toMatch(/stored bad records|quarantined/);
    expect(poisonNotice(resolvePoison(false))).toEqual([]);
  });
});
