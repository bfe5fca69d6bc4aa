/**
 * The CLI's `--log-level`: taken out of the arguments wherever it stands, checked, and the runtime
 * logger's lines (its children's too) sent to stderr at that level, through the logger's `output`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliUsageError } from '../../../cli/args';
import { configureCliLogs, extractLogLevel } from '../../../cli/log-output';
import { logger } from '../../../lambdas/common/logger';

describe('extractLogLevel', () => {
  it.each([
    [['poll', '--log-level', 'info', '--once'], ['poll', '--once'], 'info'],
    [['poll', '--once', '--log-level=DEBUG'], ['poll', '--once'], 'debug'],
    [['--log-level', 'silent', 'status'], ['status'], 'silent'],
    [['poll', '--once'], ['poll', '--once'], undefined],
  ])('%j -> %j at %s', (argv, rest, level) => {
    expect(extractLogLevel(argv)).toEqual(level === undefined ? { argv: rest } : { argv: rest, level });
  });

  it.each([
    [
      ['poll', '--log-level', 'loud'],
      "--log-level must be one of debug, info, warn, error, silent, got 'loud'",
    ],
    [['poll', '--log-level'], '--log-level needs a value'],
    [['poll', '--log-level', '--once'], '--log-level needs a value'],
  ])('%j is a usage error', (argv, text) => {
    expect(() => extractLogLevel(argv)).toThrow(CliUsageError);
    expect(() => extractLogLevel(argv)).toThrow(text);
  });
});

describe('configureCliLogs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    logger.setLogLevel('SILENT');
  });

  it('info and error lines both go to stderr, none to stdout', () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    configureCliLogs('info');
    logger.info('an info line', { clubId: 'club-1' });
    logger.error('an error line', { clubId: 'club-1', error: 'HTTP 503' });
    logger.debug('a debug line below the level');
    expect(out).not.toHaveBeenCalled();
    const lines = err.mock.calls.map((c) => String(c[0]));
    expect(lines.some((l) => l.includes('"an info line"'))).toBe(true);
    expect(lines.some((l) => l.includes('"an error line"') && l.includes('HTTP 503'))).toBe(true);
    expect(lines.some((l) => l.includes('a debug line'))).toBe(false);
  });

  it("the engine's children made afterwards write to stderr too, a debug and a trace line as one plain line each", () => {
    // Prepare
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    configureCliLogs('debug');
    // Act: a child as the engine makes one per poll message.
    const child = logger.createChild({ persistentKeys: { clubId: 'club-1', messageId: 'm-1' } });
    child.debug('a debug line of a poll message');
    child.setLogLevel('TRACE');
    child.trace('a trace line');
    // Assess: both on stderr, each a single JSON line (no stack trace after a trace line).
    expect(out).not.toHaveBeenCalled();
    const written = err.mock.calls.map((c) => String(c[0])).join('');
    const lines = written.split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual([
      'a debug line of a poll message',
      'a trace line',
    ]);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'DEBUG', clubId: 'club-1', messageId: 'm-1' });
  });

  it('silent prints nothing', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    configureCliLogs('silent');
    logger.error('not printed');
    expect(err).not.toHaveBeenCalled();
  });
});
