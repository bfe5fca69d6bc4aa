import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  guardAttributes,
  type InvocationLog,
  logger,
  RESERVED_LOG_KEYS,
} from '../../../lambdas/common/logger';
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
