/**
 * The one logger of runtime code: Powertools (structured JSON, CloudWatch-friendly). Keys such as
 * `clubId` and `source` are attached with `logger.appendKeys` or per call. Never pass secrets,
 * tokens or raw upstream bodies to it.
 *
 * Level: `LOG_LEVEL` (or Powertools' `POWERTOOLS_LOG_LEVEL`); silent under vitest unless set.
 */
import { Logger } from '@aws-lambda-powertools/logger';

type Level = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';

function defaultLevel(): Level {
  const fromEnv = (process.env.LOG_LEVEL ?? process.env.POWERTOOLS_LOG_LEVEL)?.toUpperCase();
  if (fromEnv) return fromEnv as Level;
  return process.env.VITEST ? 'SILENT' : 'INFO';
}

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gym-bridge',
  logLevel: defaultLevel(),
});
