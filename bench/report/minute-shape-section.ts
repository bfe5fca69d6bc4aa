/** Part of section 6: the per-second shape of the poll load over a minute, measured and at scale. */
import type { LoadMetric, MetricShape } from '../scale/minute-shape';
import { int, sig, table } from './format';
import type { BenchResults } from './results';

const LABELS: Record<LoadMetric, string> = {
  polls: 'polls started',
  readUnits: 'DynamoDB read units',
  writeUnits: 'DynamoDB write units',
  putEventsRequests: 'PutEvents requests',
};

const row = (metric: LoadMetric, m: MetricShape) => [
  LABELS[metric],
  sig(m.meanPerSecond),
  sig(m.peakPerSecond),
  sig(m.peakToMean),
];

export function minuteShapePart(r: BenchResults): string {
  const f = r.scale.fleet;
  const shape = f.minuteShape;
  const big = r.scale.atScale.minuteShape;
  const metrics = Object.keys(shape) as LoadMetric[];
  const atScale = big
    ? `

At ${int(big.clubs)} clubs (\`scale.minuteShape.atScale\`): the phases of ${int(big.clubs)} club ids counted per second,
${sig(big.polledShare)} of the clubs polled in a minute (as above), each poll with the load measured above:

${table(
  ['a second', 'mean', 'peak (busiest second)', 'peak / mean'],
  [
    ['polls started', sig(big.meanPollsPerSecond), sig(big.peakPollsPerSecond), sig(big.peakToMean)],
    ['DynamoDB read units', sig(big.mean.readUnits), sig(big.peak.readUnits), sig(big.peakToMean)],
    ['DynamoDB write units', sig(big.mean.writeUnits), sig(big.peak.writeUnits), sig(big.peakToMean)],
    [
      'PutEvents requests',
      sig(big.mean.putEventsRequests),
      sig(big.peak.putEventsRequests),
      sig(big.peakToMean),
    ],
  ],
)}

Without the spread every one of these polls starts in the seconds the dispatch shards take to queue them: the whole
minute's load in its first few seconds.`
    : '';
  return `**The minute's shape** (\`scale.minuteShape.fleet\`): the same hour, second by second. The dispatcher spreads each
minute's polls over ${f.spreadSeconds} s (each club at its own second, the same every minute), and each second's polls,
DynamoDB units and PutEvents requests are counted, attributed to the second the poll started:

${table(
  ['a second', 'mean', 'peak (busiest second of the hour)', 'peak / mean'],
  metrics.map((m) => row(m, shape[m])),
)}

Polls started in each second of the minute (mean over the hour): ${shape.polls.bySecondOfMinute.map((n) => sig(n, 2)).join(' ')}.${atScale}`;
}
