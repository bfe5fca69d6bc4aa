/**
 * Interim: EventBridge's matching for patterns made only of exact values (what the example's rules
 * use), until the bridge's offline matcher (`matchesEventPattern`, lambdas/events/event-pattern.ts)
 * lands and replaces it in e2e.test.ts. A pattern with any other operator (prefix, anything-but,
 * numeric, exists, $or, ...) is refused rather than guessed at.
 *
 * EventBridge's rules for exact values: every field of the pattern must be in the event; a list
 * matches when the event's value (or any element of an array value) equals one of its values; an
 * object recurses into the event's object.
 */
export function matchesExactPattern(pattern: Record<string, unknown>, event: unknown): boolean {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return false;
  return Object.entries(pattern).every(([key, expected]) => {
    const value = (event as Record<string, unknown>)[key];
    if (Array.isArray(expected)) {
      for (const option of expected) {
        if (typeof option === 'object' && option !== null) {
          throw new Error(`unsupported pattern operator at '${key}': ${JSON.stringify(option)}`);
        }
      }
      const values = Array.isArray(value) ? value : [value];
      return value !== undefined && values.some((v) => expected.includes(v));
    }
    if (typeof expected === 'object' && expected !== null) {
      return matchesExactPattern(expected as Record<string, unknown>, value);
    }
    throw new Error(`pattern field '${key}' must be a list or an object`);
  });
}
