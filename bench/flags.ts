/** Reading the bench scripts' command-line flags. */

/** A flag's whole number (>= 0), or `fallback` when it is not given; a RangeError naming it otherwise. */
export function wholeNumberFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`--${name} must be a whole number >= 0, got '${value}'`);
  return n;
}
