/** Small statistics helpers for the bench: medians of repeated runs and percentiles of samples. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** The run whose `key` is the median (the lower middle for an even count), so its details agree. */
export function medianRun<T>(runs: readonly T[], key: (run: T) => number): T {
  if (runs.length === 0) throw new RangeError('medianRun needs at least one run');
  const sorted = [...runs].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** Least-squares line through `points` ([x, y]): y = intercept + slope × x (slope 0 when x never varies). */
export function linearFit(points: readonly (readonly [number, number])[]): {
  intercept: number;
  slope: number;
} {
  if (points.length === 0) return { intercept: Number.NaN, slope: Number.NaN };
  const mx = sum(points.map((p) => p[0])) / points.length;
  const my = sum(points.map((p) => p[1])) / points.length;
  const sxx = sum(points.map((p) => (p[0] - mx) ** 2));
  const slope = sxx === 0 ? 0 : sum(points.map((p) => (p[0] - mx) * (p[1] - my))) / sxx;
  return { intercept: my - slope * mx, slope };
}

/** CPU time (user + system) in ms since `since` (a process.cpuUsage() reading). */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** Rounds to `digits` significant digits, for readable tables (not for the raw JSON). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const factor = 10 ** (digits - 1 - magnitude);
  return Math.round(value * factor) / factor;
}

/** The value at `key`, created with `make` when absent. */
export function entryOf<V>(record: Record<string, V>, key: string, make: () => V): V {
  let value = record[key];
  if (value === undefined) {
    value = make();
    record[key] = value;
  }
  return value;
}
