/** The report's check of the DynamoDB unit model against a DynamoDB-compatible server (issue 20). */
import { CHECKED_ERROR_BOUND, unitsSource } from '../units-check';
import { int, table } from './format';
import type { BenchResults } from './results';

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(2)}%`;

export function unitsSection(r: BenchResults): string {
  const u = r.units;
  if (!u)
    return '## DynamoDB units: model and server\n\nNot checked in this run (a report from before the check).\n';
  const source = unitsSource(u);
  const rows = Object.entries(u.server.byCommand)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([command, c]) => [command, int(c.calls), int(c.units)]);
  return `## DynamoDB units: model and server

The read and write units of this report are computed from item sizes (bench/store-units.ts). They
are checked here against what a DynamoDB-compatible server reports: the typical club
(${int(r.plan.unitsCheck.members)} members) polled for ${u.simulatedHours} hours into the real DynamoDB adapter on dynalite,
every call asked for \`ReturnConsumedCapacity\` (bench/units-check.ts).

${table(
  ['', 'model', 'server', 'model error'],
  [
    ['read units', int(u.model.readUnits), int(u.server.readUnits), pct(u.error.read)],
    ['write units', int(u.model.writeUnits), int(u.server.writeUnits), pct(u.error.write)],
    ['priced (a write = 5 reads)', '', '', pct(u.error.priced)],
  ],
)}

Units source of the cost: **${source.unitsSource}** (the model within ${100 * CHECKED_ERROR_BOUND}% of the server on each
side: ${source.unitsSource === 'model-checked' ? 'met' : 'not met'}). What the server reported, by command:

${table(['command', 'calls', 'units'], rows)}
`;
}
