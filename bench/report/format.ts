/** How the report writes numbers (counts, significant digits, dollars, shares, durations) and tables. */
import { median } from '../stats';

export const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const sig = (n: number, digits = 3) => {
  if (!Number.isFinite(n)) return 'n/a';
  if (Math.abs(n) >= 10 ** digits) return int(n);
  return Number(n.toPrecision(digits)).toLocaleString('en-US', { maximumSignificantDigits: digits });
};
export const usd = (n: number) =>
  n >= 0.01 ? `$${n.toFixed(3)}` : n >= 0.0001 ? `$${n.toFixed(5)}` : `$${n.toExponential(1)}`;
export const pct = (n: number) => `${(n * 100).toFixed(n < 0.1 ? 1 : 0)}%`;
export const secs = (s: number) =>
  s < 120 ? `${sig(s, 3)} s` : s < 7200 ? `${sig(s / 60, 3)} min` : `${sig(s / 3600, 3)} h`;
export const med = <T>(runs: readonly T[], f: (r: T) => number) => median(runs.map(f));
export const yes = (ok: boolean) => (ok ? '**met**' : '**not met**');

export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
