/** The report's three SVG charts: freshness distribution, rows per change, cost per club. */
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

/**
 * Hand-written SVG charts for docs/charts: plain horizontal bar charts, readable on light and dark
 * backgrounds (explicit white panel), no scripts, no external fonts.
 */
export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Text shown after the bar. @default the value */
  readonly text?: string;
  /** @default the chart's colour */
  readonly colour?: string;
}

export interface BarChartOptions {
  readonly title: string;
  readonly subtitle?: string;
  readonly bars: readonly Bar[];
  /** Log scale for values spanning orders of magnitude. @default false */
  readonly log?: boolean;
  readonly colour?: string;
  readonly legend?: readonly { label: string; colour: string }[];
}

const xml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function barChart(options: BarChartOptions): string {
  const width = 760;
  // About 7 px per character at 13 px Helvetica: room for the longest label.
  const labelWidth = Math.min(
    420,
    Math.max(150, Math.max(...options.bars.map((b) => b.label.length)) * 7 + 16),
  );
  const valueWidth = 150;
  const barArea = width - labelWidth - valueWidth - 30;
  const rowHeight = 26;
  const top = options.subtitle ? 64 : 46;
  const legendHeight = options.legend ? 26 : 0;
  const height = top + options.bars.length * rowHeight + legendHeight + 16;
  const values = options.bars.map((b) => Math.max(0, b.value));
  const max = Math.max(...values, Number.MIN_VALUE);
  const min = options.log ? Math.min(...values.filter((v) => v > 0), max) : 0;
  const scale = (v: number) => {
    if (v <= 0) return 0;
    if (!options.log) return (v / max) * barArea;
    const lo = Math.log10(min) - 0.3;
    return Math.max(2, ((Math.log10(v) - lo) / (Math.log10(max) - lo)) * barArea);
  };
  const colour = options.colour ?? '#2f6fb3';
  const rows = options.bars
    .map((b, i) => {
      const y = top + i * rowHeight;
      const w = scale(b.value);
      return [
        `<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end">${xml(b.label)}</text>`,
        `<rect x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="${b.colour ?? colour}" rx="2"/>`,
        `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 17}">${xml(b.text ?? String(b.value))}</text>`,
      ].join('');
    })
    .join('\n  ');
  const legend = (options.legend ?? [])
    .map((l, i) => {
      const x = labelWidth + i * 200;
      const y = top + options.bars.length * rowHeight + 8;
      return `<rect x="${x}" y="${y}" width="12" height="12" fill="${l.colour}"/><text x="${x + 18}" y="${y + 11}">${xml(l.label)}</text>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13" role="img" aria-label="${xml(options.title)}">
  <rect width="100%" height="100%" fill="#ffffff"/>
  <text x="16" y="26" font-size="16" font-weight="bold" fill="#222">${xml(options.title)}</text>
  ${options.subtitle ? `<text x="16" y="46" fill="#555">${xml(options.subtitle)}</text>` : ''}
  <g fill="#222">
  ${rows}
  ${legend}
  </g>
</svg>
`;
}
