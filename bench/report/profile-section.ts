/** Section 7 of the report: where the CPU of a backfill goes (`node --cpu-prof`). */
import { int, pct, secs, table } from './format';
import type { BenchResults } from './results';

export function profileSection(r: BenchResults): string {
  const p = r.profile;
  const areas = Object.entries(p.byArea).sort((a, b) => b[1] - a[1]);
  return `## 7. Hot spots (\`node --cpu-prof\`)

\`profile.ts\` runs an in-memory backfill of ${int(p.records)} visit rows of the large club in a child
\`node --cpu-prof\` and sums the samples (${secs(p.totalMs / 1000)}) by function and by area. Run
\`npm run bench -- --cpu-prof\` to keep the .cpuprofile (bench/profiles/) for Chrome DevTools.

${table(
  ['area', 'self time', 'share'],
  areas.map(([a, ms]) => [a, `${int(ms)} ms`, pct(ms / p.totalMs)]),
)}

Top functions by self time:

${table(
  ['function', 'where', 'self time', 'share'],
  p.top.map((t) => [`\`${t.fn}\``, t.where, `${int(t.selfMs)} ms`, pct(t.share)]),
)}
`;
}
