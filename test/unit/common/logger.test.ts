import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BridgeLogger,
  type BridgeLoggerOptions,
  guardAttributes,
  type InvocationLog,
  logger,
  RESERVED_LOG_KEYS,
} from '../../../lambdas/common/logger';
import { forgetKnownSecrets, rememberSecrets } from '../../../lambdas/common/redact';
import { captureLogs, type LogCapture, logProblems } from '../../support/log-capture';

let capture: LogCapture | undefined;
afterEach(() => {
  capture?.stop();
  capture = undefined;
});

describe('runtime logger', () => {
  it("knows every key Powertools reserves (read from the installed Powertools' constants)", async () => {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@aws-lambda-powertools/logger');
    const constants = await readFile(join(dirname(main), 'constants.js'), 'utf8');
    const list = /ReservedKeys = \[([^\]]*)\]/.exec(constants)?.[1];
    expect(list, 'ReservedKeys not found in Powertools constants.js').toBeDefined();
    const keys = [...list!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    expect(keys).toContain('message');
    for (const key of keys) expect(RESERVED_LOG_KEYS.has(key), key).toBe(true);
  });

  it('keeps an attribute passed under a reserved key (renamed, and the line says so) instead of dropping it', () => {
    capture = captureLogs();
    logger.error('source poll failed', { source: 'visits', message: 'visits: HTTP 401 (apiKey rejected)' });
    const child = logger.createChild({ persistentKeys: { clubId: 'club-1' } });
    child.warn('source failed', { level: 'x', error: 'boom' });
    expect(capture.lines.map((l) => l.message)).toEqual(['source poll failed', 'source failed']);
    const [first, second] = capture.lines;
    expect(first).toMatchObject({
      level: 'ERROR',
      attr_message: 'visits: HTTP 401 (apiKey rejected)',
      reservedKeysRenamed: ['message'],
    });
    expect(second).toMatchObject({ level: 'WARN', clubId: 'club-1', attr_level: 'x', error: 'boom' });
    // Powertools never got the reserved key, so it printed no "reserved key" warning...
    expect(capture.lines.some((l) => /reserved key/.test(l.message))).toBe(false);
    // ...and the checker used by the poll tests flags both lines.
    expect(logProblems(capture.lines)).toEqual([
      "reserved key passed as an attribute in 'source poll failed'",
      "ERROR 'source poll failed' has no reason (error/err/reason/reasons)",
      "reserved key passed as an attribute in 'source failed'",
    ]);
  });

  it('flags an ERROR or WARN line without a reason, and passes one with an error attached', () => {
    capture = captureLogs();
    logger.error('could not record a failed poll', { err: new Error('table gone') });
    logger.warn('gym-api token refresh failed', { error: 'HTTP 503' });
    expect(logProblems(capture.lines)).toEqual([]);
    logger.error('something failed', { clubId: 'club-1' });
    expect(logProblems(capture.lines)).toEqual([
      "ERROR 'something failed' has no reason (error/err/reason/reasons)",
    ]);
  });

  it('leaves attributes without reserved keys, errors and strings as they are', () => {
    const attrs = { clubId: 'c', err: new Error('x') };
    const error = new Error('y');
    const { extra, renamed } = guardAttributes([attrs, error, 'text']);
    expect(renamed).toEqual([]);
    expect(extra[0]).toBe(attrs);
    expect(extra[1]).toBe(error);
    expect(extra).toHaveLength(3);
  });

  it('writes the X-Ray trace id only with the Lambda context, and sampling_rate only when sampling', () => {
    // Prepare: Lambda's trace header; one logger with the Lambda context, one without.
    const saved = process.env._X_AMZN_TRACE_ID;
    process.env._X_AMZN_TRACE_ID =
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=0';
    capture = captureLogs();
    const withContext = logger.createChild();
    withContext.addContext({ awsRequestId: 'req-1', functionName: 'fn' } as Parameters<
      InvocationLog['start']
    >[0]);
    try {
      // Act
      logger.info('without the context', { clubId: 'club-1' });
      withContext.info('with the context');
      logger.createChild().info('a child made without it');
    } finally {
      if (saved === undefined) delete process.env._X_AMZN_TRACE_ID;
      else process.env._X_AMZN_TRACE_ID = saved;
    }
    // Assess
    const [without, withIt, child] = capture.lines;
    expect(without).not.toHaveProperty('xray_trace_id');
    expect(child).not.toHaveProperty('xray_trace_id');
    expect(withIt).toMatchObject({
      function_request_id: 'req-1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
    });
    for (const line of capture.lines) expect(line).not.toHaveProperty('sampling_rate');
  });
});

describe("the logger's output (the seam the CLI sends its lines to stderr through)", () => {
  /** An output that keeps each line it is given, parsed. */
  const collector = () => {
    const lines: Record<string, unknown>[] = [];
    return {
      lines,
      output: { log: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    };
  };

  it('writes every line of a logger with an output there, one JSON line a call, and none to the streams', () => {
    // Prepare: the streams watched, a logger with an output.
    capture = captureLogs();
    const { lines, output } = collector();
    const log = logger.createChild({ output, logLevel: 'TRACE' });
    // Act
    log.trace('a trace line');
    log.info('an info line', { clubId: 'club-1' });
    log.error('an error line', { message: 'HTTP 503' });
    // Assess: all three there, shaped as Powertools' own (the reserved key still renamed); none on
    // stdout or stderr.
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['TRACE', 'a trace line'],
      ['INFO', 'an info line'],
      ['ERROR', 'an error line'],
    ]);
    expect(lines[1]).toMatchObject({
      service: 'gym-bridge',
      clubId: 'club-1',
      timestamp: expect.any(String),
    });
    expect(lines[2]).toMatchObject({ attr_message: 'HTTP 503', reservedKeysRenamed: ['message'] });
    expect(capture.lines).toEqual([]);
  });

  it("keeps the output in the children made after it is set, and Powertools' console in those made before", () => {
    // Prepare: a child made before the output is set, then the output set on their parent.
    capture = captureLogs();
    const parent = logger.createChild({ logLevel: 'INFO' });
    const before = parent.createChild();
    const { lines, output } = collector();
    parent.setOutput(output);
    // Act
    parent.createChild({ persistentKeys: { clubId: 'club-1' } }).info('from a child made after');
    before.info('from a child made before');
    // Assess
    expect(lines.map((l) => [l.message, l.clubId])).toEqual([['from a child made after', 'club-1']]);
    expect(capture.lines.map((l) => l.message)).toEqual(['from a child made before']);
  });

  it("prints a line Powertools logs while it constructs the logger (before the output exists) on Powertools' console", () => {
    // Prepare: options Powertools warns about from inside its constructor (its types forbid them).
    capture = captureLogs();
    const { lines, output } = collector();
    const options = { output, logLevel: 'WARN', persistentKeys: { a: 1 }, persistentLogAttributes: { b: 2 } };
    // Act
    const log = new BridgeLogger(options as unknown as BridgeLoggerOptions);
    log.warn('after construction', { reason: 'test' });
    // Assess: the constructor's warning printed (not thrown), the later line to the output.
    expect(capture.lines.map((l) => l.message)).toEqual([
      expect.stringContaining('Both persistentLogAttributes and persistentKeys'),
    ]);
    expect(lines.map((l) => l.message)).toEqual(['after construction']);
  });

  it('serialises through the same replacer: secrets redacted, errors keep their reason, bigints written', () => {
    // Prepare: a credential this process has used.
    rememberSecrets('s3cr3t-api-key-0001');
    const { lines, output } = collector();
    const log = logger.createChild({ output, logLevel: 'INFO' });
    try {
      // Act
      log.error('could not record a failed poll', {
        err: new Error('table gone'),
        reason: 'upstream echoed s3cr3t-api-key-0001',
        quota: 12n,
      });
    } finally {
      forgetKnownSecrets();
    }
    // Assess
    expect(lines[0]).toMatchObject({ err: { name: 'Error', message: 'table gone' }, quota: '12' });
    expect(JSON.stringify(lines[0])).not.toContain('s3cr3t-api-key-0001');
    expect(lines[0]!.reason).toContain('[redacted]');
  });
});
