/**
 * Captures what the runtime logger (lambdas/common/logger.ts) prints: every JSON line written to
 * stdout or stderr while capturing, parsed. The logger is silent under vitest; capturing turns it
 * on (DEBUG) and `stop()` restores the level and the streams.
 */
import { vi } from 'vitest';
import { logger, RENAMED_KEY_PREFIX } from '../../lambdas/common/logger';

export interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly [key: string]: unknown;
}

export interface LogCapture {
  readonly lines: LogLine[];
  stop(): void;
}

export function captureLogs(): LogCapture {
  const lines: LogLine[] = [];
  const level = logger.getLevelName();
  const take = (chunk: unknown) => {
    for (const text of String(chunk).split('\n')) {
      if (!text.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(text) as LogLine;
        if (typeof parsed.level === 'string') lines.push(parsed);
      } catch {
        // not a log line
      }
    }
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    take(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    take(chunk);
    return true;
  });
  logger.setLogLevel('DEBUG');
  return {
    lines,
    stop() {
      out.mockRestore();
      err.mockRestore();
      logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
    },
  };
}

/** Keys that carry a failure's reason on an ERROR or WARN line. */
export const REASON_KEYS = ['error', 'err', 'reason', 'reasons'] as const;

/** The text of a line's reason (an Error is logged as { name, message, stack, ... }). */
export function reasonText(line: LogLine): string {
  const parts: string[] = [];
  for (const key of REASON_KEYS) {
    const value = line[key];
    if (value === undefined || value === null) continue;
    if (typeof value === 'object' && !Array.isArray(value)) {
      const m = (value as { message?: unknown }).message;
      parts.push(typeof m === 'string' ? m : JSON.stringify(value));
    } else parts.push(Array.isArray(value) ? value.join('; ') : String(value));
  }
  return parts.join(' | ').trim();
}

/**
 * What is wrong with the captured lines: a reserved-key warning printed by Powertools, an attribute
 * the logger had to rename, or an ERROR/WARN line without its reason.
 */
export function logProblems(lines: readonly LogLine[]): string[] {
  const problems: string[] = [];
  for (const line of lines) {
    if (/reserved key/i.test(line.message)) problems.push(`reserved-key warning: ${line.message}`);
    if (line.reservedKeysRenamed || Object.keys(line).some((k) => k.startsWith(RENAMED_KEY_PREFIX))) {
      problems.push(`reserved key passed as an attribute in '${line.message}'`);
    }
    if ((line.level === 'ERROR' || line.level === 'WARN' || line.level === 'CRITICAL') && !reasonText(line)) {
      problems.push(`${line.level} '${line.message}' has no reason (${REASON_KEYS.join('/')})`);
    }
  }
  return problems;
}
