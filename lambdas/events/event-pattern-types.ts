/**
 * The shared pieces of the offline event-pattern matcher (./event-pattern.ts): the pattern's JSON
 * type, the error an invalid pattern throws, and the JSON value type the tests work on.
 */

/** An EventBridge event pattern in its JSON form. */
export type EventPatternJson = { readonly [field: string]: unknown };

export class EventPatternError extends Error {
  override readonly name = 'EventPatternError';
  /** Where in the pattern, e.g. `detail.status[0]`. */
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`invalid event pattern at ${path || '(root)'}: ${problem}`);
    this.path = path;
  }
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
