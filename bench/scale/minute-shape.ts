/**
 * The per-second shape of the poll load over a minute (docs/benchmarks.md, section 6; the bench
 * fleet's hour, polled at the spread's moments on the simulated clock): polls started, DynamoDB
 * read and write units and PutEvents requests in each second, attributed to the second the poll
 * started (a poll takes a few seconds: the real load is a little smoother still). And the same at
 * fleet scale: the clubs' phases (common/club-shard.ts) counted per second for N clubs, times the
 * fleet's measured load per poll.
 */
import { clubPhaseSeconds } from '../../lambdas/common/club-shard';

/** What one simulated second carried. */
export interface SecondLoad {
  readonly polls: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly putEventsRequests: number;
}

export const METRICS = ['polls', 'readUnits', 'writeUnits', 'putEventsRequests'] as const;
export type LoadMetric = (typeof METRICS)[number];

export interface MetricShape {
  /** Mean of each second of the minute (0..59) over the minutes measured. */
  readonly bySecondOfMinute: number[];
  readonly meanPerSecond: number;
  /** The busiest single second of the span. */
  readonly peakPerSecond: number;
  readonly peakToMean: number;
}

export type MinuteShape = Record<LoadMetric, MetricShape>;

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The shape of `seconds` (consecutive seconds, whole minutes from a minute's start). */
export function minuteShape(seconds: readonly SecondLoad[]): MinuteShape {
  const shape = {} as Record<LoadMetric, MetricShape>;
  for (const metric of METRICS) {
    const values = seconds.map((s) => s[metric]);
    const bySecondOfMinute = Array.from({ length: 60 }, (_, s) =>
      mean(values.filter((_, i) => i % 60 === s)),
    );
    const meanPerSecond = mean(values);
    const peakPerSecond = Math.max(0, ...values);
    shape[metric] = {
      bySecondOfMinute,
      meanPerSecond,
      peakPerSecond,
      peakToMean: meanPerSecond > 0 ? peakPerSecond / meanPerSecond : 0,
    };
  }
  return shape;
}

export interface FleetMinuteShape {
  readonly clubs: number;
  /** Share of the clubs polled in a minute (measured on the bench fleet). */
  readonly polledShare: number;
  /** Polls starting in each second of the minute: the phases of `clubs` clubs. */
  readonly pollsBySecond: number[];
  readonly peakPollsPerSecond: number;
  readonly meanPollsPerSecond: number;
  readonly peakToMean: number;
  /** The busiest second's load, at the measured load per poll. */
  readonly peak: {
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly putEventsRequests: number;
  };
  readonly mean: {
    readonly readUnits: number;
    readonly writeUnits: number;
    readonly putEventsRequests: number;
  };
}

/**
 * The minute of `clubs` clubs named as the synthetic fleet names them, each polled at its phase,
 * `polledShare` of them in a given minute, each poll carrying the measured mean load.
 */
export function fleetMinuteShape(
  clubs: number,
  polledShare: number,
  perPoll: Omit<SecondLoad, 'polls'>,
): FleetMinuteShape {
  const pollsBySecond = new Array<number>(60).fill(0);
  for (let i = 1; i <= clubs; i++) {
    const s = clubPhaseSeconds(`club-${String(i).padStart(5, '0')}`, 60);
    pollsBySecond[s] = (pollsBySecond[s] ?? 0) + polledShare;
  }
  const peakPollsPerSecond = Math.max(...pollsBySecond);
  const meanPollsPerSecond = (clubs * polledShare) / 60;
  const times = (n: number) => ({
    readUnits: n * perPoll.readUnits,
    writeUnits: n * perPoll.writeUnits,
    putEventsRequests: n * perPoll.putEventsRequests,
  });
  return {
    clubs,
    polledShare,
    pollsBySecond,
    peakPollsPerSecond,
    meanPollsPerSecond,
    peakToMean: meanPollsPerSecond > 0 ? peakPollsPerSecond / meanPollsPerSecond : 0,
    peak: times(peakPollsPerSecond),
    mean: times(meanPollsPerSecond),
  };
}
