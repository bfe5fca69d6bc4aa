/**
 * Reading CDK context values for the stage configuration (lib/stage-config.ts): each reader takes
 * the value of one key (a string on the command line, or any JSON type in cdk.json), falls back to
 * its default when the key is absent, and throws a `StageConfigError` naming the key and the rule
 * when the value breaks it.
 */
import { fitsRule, type NumberRule, ruleWords } from '../lambdas/common/deployment-contract';
import { EVENT_SOURCE_RULE, EventSourceError, validateEventSource } from '../lambdas/events/event-source';

/** A context value that breaks its rule (or a replaced key): the message names the key. */
export class StageConfigError extends Error {
  override readonly name = 'StageConfigError';
}

/** Reads one context value (`app.node.tryGetContext`). */
export type ContextReader = (key: string) => unknown;

/** `eventSource`: an EventBridge source by EVENT_SOURCE_RULE, `fallback` when absent or empty. */
export function readEventSource(read: ContextReader, fallback: string): string {
  const raw = read('eventSource');
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string') {
    throw new StageConfigError(`context eventSource=${JSON.stringify(raw)}: must be ${EVENT_SOURCE_RULE}`);
  }
  try {
    return validateEventSource(raw, 'context eventSource');
  } catch (err) {
    if (err instanceof EventSourceError) throw new StageConfigError(err.message);
    throw err;
  }
}

export function readNumber(
  read: ContextReader,
  key: string,
  fallback: number,
  valid: (n: number) => boolean,
  rule: string,
): number {
  const raw = read(key);
  if (raw === undefined) return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() ? Number(raw) : NaN;
  if (!Number.isFinite(value) || !valid(value)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be ${rule}`);
  }
  return value;
}

/** A number the runtime reads too: checked, and its rule worded, by the contract's NUMBER_RULES. */
export function readRuled(read: ContextReader, key: string, fallback: number, rule: NumberRule): number {
  return readNumber(read, key, fallback, (n) => fitsRule(rule, n), ruleWords(rule));
}

export function readBoolean(read: ContextReader, key: string, fallback: boolean): boolean {
  const raw = read(key);
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be true or false`);
}

export function readString(
  read: ContextReader,
  key: string,
  pattern: RegExp,
  rule: string,
  fallback?: string,
): string | undefined {
  const raw = read(key);
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !pattern.test(raw)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be ${rule}`);
  }
  return raw;
}

export function readChoice<const T extends string>(
  read: ContextReader,
  key: string,
  choices: readonly T[],
  fallback: T,
): T {
  const raw = read(key);
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !(choices as readonly string[]).includes(raw)) {
    throw new StageConfigError(`context ${key}=${JSON.stringify(raw)}: must be one of ${choices.join(', ')}`);
  }
  return raw as T;
}
