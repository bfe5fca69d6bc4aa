/** How big each benchmark is: the full run (`npm run bench`) and a quick smoke run (`--quick`). */

export interface BenchPlan {
  readonly name: 'full' | 'quick';
  readonly runs: number;
  readonly bigClub: { members: number; visits: number; historyDays: number; seed: number };
  /** Work per source in each dynalite slice, ms. */
  readonly dynaliteSliceMs: number;
  readonly sdkPublishEvents: number;
  /** Days of visits the resumable backfill and the profile read. */
  readonly backfillDays: number;
  readonly invocationBudgetMs: number;
  readonly typicalClub: { members: number; visitsPerDay: number; historyDays: number };
  readonly simDays: number;
  readonly simSeeds: readonly number[];
  /** Simulated days of the lifecycle on/off pair (bench/lifecycle-cost.ts). */
  readonly lifecycleDays: number;
  /** The big club's lifecycle step (bench/lifecycle-big-club.ts): every member due in one hour. */
  readonly lifecycleBigClub: { readonly members: number; readonly prospects: number };
  /** The unit model's check against dynalite's consumed capacity (bench/units-check.ts). */
  readonly unitsCheck: { members: number; visitsPerDay: number; historyDays: number; hours: number };
  readonly naiveCycles: number;
  /** Span of the every-source-every-minute comparison run, hours. */
  readonly altScheduleHours: number;
  /** Clubs of the in-memory dispatch the cost model prices. */
  readonly dispatchClubs: number;
  /** Clubs of the fleet at scale: every shard the stage configures for them, measured on dynalite. */
  readonly scaleClubs: number;
  /** The clubs of the invocation memory runs (bench/invocation-memory.ts), a full batch of them. */
  readonly memory: { readonly members: number; readonly historyDays: number };
  readonly fleet: {
    clubs: number;
    minutes: number;
    members: number;
    visitsPerDay: number;
    historyDays: number;
  };
  /** The webhook delivery bench (bench/steps/webhooks-step.ts). */
  readonly webhooks: {
    readonly endpoints: number;
    readonly deliveriesPerSecond: number;
    /** Simulated hours of the typical club whose events are delivered. */
    readonly poolHours: number;
    readonly warmupSec: number;
    readonly measureSec: number;
    /**
     * The run with dead endpoints: how many; they die at its start, their circuits open in the
     * warm-up (the transition, reported apart), then the measured seconds.
     */
    readonly dead: number;
    readonly deadWarmupSec: number;
    readonly deadMeasureSec: number;
    /** A machine that cannot keep up at the rate halves it, down to this (reported). */
    readonly minDeliveriesPerSecond: number;
  };
}

export const FULL_PLAN: BenchPlan = {
  name: 'full',
  runs: 3,
  bigClub: { members: 50_000, visits: 1_000_000, historyDays: 14, seed: 11 },
  dynaliteSliceMs: 8000,
  sdkPublishEvents: 20_000,
  backfillDays: 3,
  invocationBudgetMs: 2000,
  typicalClub: { members: 3000, visitsPerDay: 1500, historyDays: 30 },
  simDays: 3, // x 3 seeds, nights included: the typical runs are most of a full bench (84 min on 2 cores on 6a0f53a)
  simSeeds: [5, 6, 7],
  lifecycleDays: 1,
  lifecycleBigClub: { members: 50_000, prospects: 5_000 },
  unitsCheck: { members: 3000, visitsPerDay: 1500, historyDays: 7, hours: 2 },
  naiveCycles: 10,
  altScheduleHours: 12,
  dispatchClubs: 5000,
  scaleClubs: 50_000,
  memory: { members: 3000, historyDays: 30 },
  fleet: { clubs: 200, minutes: 60, members: 3000, visitsPerDay: 1500, historyDays: 1 },
  webhooks: {
    endpoints: 1000,
    deliveriesPerSecond: 100,
    poolHours: 2,
    // 50 cold containers each load 1,000 endpoints and their filters, and the first success of
    // each endpoint writes its health: the first half minute queues behind that.
    warmupSec: 45,
    measureSec: 60,
    dead: 100,
    deadWarmupSec: 30,
    deadMeasureSec: 90,
    minDeliveriesPerSecond: 12.5,
  },
};

export const QUICK_PLAN: BenchPlan = {
  name: 'quick',
  runs: 1,
  bigClub: { members: 5000, visits: 100_000, historyDays: 14, seed: 11 },
  dynaliteSliceMs: 2000,
  sdkPublishEvents: 2000,
  backfillDays: 1,
  invocationBudgetMs: 500,
  typicalClub: { members: 3000, visitsPerDay: 1500, historyDays: 30 },
  simDays: 0.5,
  simSeeds: [5],
  lifecycleDays: 0.25,
  lifecycleBigClub: { members: 5_000, prospects: 500 },
  unitsCheck: { members: 500, visitsPerDay: 250, historyDays: 3, hours: 0.5 },
  naiveCycles: 3,
  altScheduleHours: 2,
  dispatchClubs: 500,
  scaleClubs: 6000,
  memory: { members: 300, historyDays: 3 },
  fleet: { clubs: 20, minutes: 10, members: 3000, visitsPerDay: 1500, historyDays: 1 },
  webhooks: {
    endpoints: 200,
    deliveriesPerSecond: 20,
    poolHours: 1,
    warmupSec: 5,
    measureSec: 15,
    dead: 20,
    deadWarmupSec: 10,
    deadMeasureSec: 20,
    minDeliveriesPerSecond: 5,
  },
};
