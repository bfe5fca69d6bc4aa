/** The report's three SVG charts: freshness distribution, rows per change, cost per club. */
import { type Bar, barChart } from '../charts';
import { sum } from '../stats';
import { FRESHNESS_BINS } from '../typical-club';
import { int, pct, secs, sig, usd } from './format';
import { headline } from './headline';
import type { BenchResults } from './results';

export function freshnessChart(r: BenchResults): string {
  const totals = FRESHNESS_BINS.map((_, i) => sum(r.typical.runs.map((t) => t.freshness.histogram[i] ?? 0)));
  const n = sum(totals);
  const labels = FRESHNESS_BINS.map((b, i) => {
    const lo = i === 0 ? 0 : FRESHNESS_BINS[i - 1]!;
    const f = (s: number) => (s < 120 ? `${s} s` : `${s / 60} min`);
    return Number.isFinite(b) ? `${f(lo)} – ${f(b)}` : `over ${f(lo)}`;
  });
  const h = headline(r);
  return barChart({
    title: 'Freshness: change in the club → event published (default schedule)',
    subtitle: `${int(n)} events, ${r.typical.runs.length} runs × ${r.plan.simDays} simulated days; p50 ${secs(h.freshnessP50)}, p95 ${secs(h.freshnessP95)}, max ${secs(h.freshnessMax)}`,
    bars: totals.map((count, i) => ({
      label: labels[i]!,
      value: count,
      text: `${int(count)} (${pct(count / Math.max(1, n))})`,
      colour: (FRESHNESS_BINS[i] ?? 0) <= 90 ? '#2f8f4e' : '#c0772b',
    })),
    legend: [
      { label: 'within the 90 s target', colour: '#2f8f4e' },
      { label: 'later', colour: '#c0772b' },
    ],
  });
}

export function rowsChart(r: BenchResults): string {
  const h = headline(r);
  const alt = r.typical.unconfirmedZone;
  const bars: Bar[] = [
    {
      label: 'gym-bridge, default schedule',
      value: h.rowsPerChange,
      text: `${sig(h.rowsPerChange)} rows`,
      colour: '#2f6fb3',
    },
    {
      label: 'gym-bridge, zone not confirmed',
      value: alt.rowsPerChange,
      text: `${sig(alt.rowsPerChange)} rows`,
      colour: '#5b8fc9',
    },
    {
      label: 'naive poller, every min',
      value: h.naiveRowsPerChange,
      text: `${sig(h.naiveRowsPerChange)} rows`,
      colour: '#b33b2f',
    },
  ];
  return barChart({
    title: 'Rows fetched from the API per detected change (log scale)',
    subtitle: `Typical club (3,000 members, ~1,500 visits a day); naive = every endpoint re-read in full every cycle`,
    bars,
    log: true,
  });
}

export function costChart(r: BenchResults): string {
  const lines = [...r.cost.default.lines].sort((a, b) => b.usd - a.usd);
  return barChart({
    title: 'Cost per club per month (USD, us-east-1 list prices)',
    subtitle: `Typical club in a fleet of ${int(r.cost.default.fleetClubs)}: everything billed ${usd(r.cost.default.total)}`,
    bars: lines.map((l) => ({
      label: l.item,
      value: l.usd,
      text: usd(l.usd),
      colour: l.fixed ? '#8a5cb8' : '#2f6fb3',
    })),
    legend: [
      { label: 'grows with each club', colour: '#2f6fb3' },
      { label: 'fleet-wide, divided over the clubs', colour: '#8a5cb8' },
    ],
  });
}
