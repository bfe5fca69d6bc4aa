/**
 * The CLI's `--log-level`: taken out of the arguments wherever it stands, checked, and the runtime
 * logger's lines sent to stderr at that level.
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

  it('silent prints nothing', () => {
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    configureCliLogs('silent');
    logger.error('not printed');
    expect(err).not.toHaveBeenCalled();
  });
});
