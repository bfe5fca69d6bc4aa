/** What one bench run measured: everything the report, the charts and docs/benchmarks.json are made from. */
import type { BackfillRun, FetchLoopRun } from '../backfill';
import type { ClubCost } from '../cost';
import type { CpuCalibration } from '../cpu-calibration';
import type { DeploymentSettings } from '../deployment';
import type { InvocationMemory } from '../invocation-memory';
import type { LifecycleBigClubFigures } from '../lifecycle-big-club';
import type { LifecycleCostFigures } from '../lifecycle-cost';
import type { MachineInfo } from '../machine';
import type { BenchPlan } from '../plan';
import type { HashMicro, ProfileSummary } from '../profile';
import type { DispatchRun } from '../scale/dispatch';
import type { FleetAtScaleResult } from '../scale/fleet-at-scale';
import type { FleetHourResult } from '../scale/fleet-hour';
import type { WebhookFigures } from '../steps/webhooks-step';
import type { PublishSdkRun, ThroughputRun } from '../throughput';
import type { TypicalClubRun } from '../typical-club';
import type { UnitsCheck } from '../units-check';

export interface BenchResults {
  readonly generatedAt: string;
  readonly durationSec: number;
  readonly plan: BenchPlan;
  readonly machine: MachineInfo;
  /**
   * How a CPU ms measured on this machine maps to Lambda arm64 (cpu-calibration.ts), the bound the
   * Lambda lines were priced at, and the range of those lines and of the total (absent before it:
   * such reports priced the bench machine's CPU as Lambda's).
   */
  readonly cpuCalibration?: CpuCalibration;
  readonly deployment: DeploymentSettings;
  readonly throughput: { memory: ThroughputRun[]; dynalite: ThroughputRun[]; sdk: PublishSdkRun[] };
  readonly backfill: {
    resumable: BackfillRun[];
    raw: FetchLoopRun[];
    clientOnly: FetchLoopRun[];
    days: number;
  };
  readonly profile: ProfileSummary;
  readonly fingerprintHashing: HashMicro;
  readonly typical: {
    runs: TypicalClubRun[];
    unconfirmedZone: TypicalClubRun;
    /** The first seed with the fast lane off (absent in reports from before the lane). */
    laneOff?: TypicalClubRun;
  };
  /** What lifecycle events add to the typical club (absent in reports from before them). */
  readonly lifecycle?: LifecycleCostFigures;
  /** The big club's lifecycle, every member due in one hour (absent in reports from before it). */
  readonly lifecycleBigClub?: LifecycleBigClubFigures;
  /** Steps measured again into this report (`--only`), after the run it is made of. */
  readonly remeasured?: readonly {
    readonly steps: string;
    readonly date: string;
    readonly commit: string;
    readonly seconds: number;
  }[];
  /** The unit model checked against a DynamoDB-compatible server (absent in earlier reports). */
  readonly units?: UnitsCheck;
  readonly scale: {
    dispatchMemory: DispatchRun[];
    fleet: FleetHourResult;
    /** The fleet at scale (50,000 clubs), every dispatch shard measured. */
    atScale: FleetAtScaleResult;
    /** Peak RSS of poll invocations under Lambda's heap flags (absent in earlier reports). */
    invocationMemory?: InvocationMemory;
  };
  readonly cost: {
    default: ClubCost;
    noLatency: ClubCost;
    slowApi: ClubCost;
    unconfirmedZone: ClubCost;
    /** The first seed's cost with the fast lane off and on (absent before the lane): what it adds. */
    laneOff?: ClubCost;
    laneOn?: ClubCost;
    /**
     * The typical club's cost in fleets of 100, 1,000 and 5,000 clubs, each priced with the stage's
     * template for its own club count (`settings`: absent in reports from before, which priced every
     * size with the stage's own template).
     */
    byFleet: { clubs: number; cost: ClubCost; settings?: FleetSizeSettings }[];
    perRun: { seed: number; total: number }[];
    /** Seed of the run the cost lines come from. */
    seed: number;
  };
  /** Webhook delivery (issue 35; absent in reports from before it). */
  readonly webhooks?: WebhookFigures;
}

/** What a fleet size's template sets from its club count (lib/fleet-sizing.ts). */
export interface FleetSizeSettings {
  readonly pollMaxConcurrency: number;
  readonly dispatchShards: number;
  /** The provisioned state table's min capacity (absent: on demand). */
  readonly tableMin?: { readonly read: number; readonly write: number };
}
