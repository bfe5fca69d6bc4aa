/**
 * What every domain of the club simulation shares: the club's store, the settings, the one random
 * stream all data is drawn from (its order of draws is the data: keep it), the lateness stream, the
 * id counters, and the small pickers and clocks the domains use.
 */
import { MINUTE_MS, SECOND_MS } from '../../lambdas/common/time-units';
import type { MemberStatus, ProspectStatus } from '../../lambdas/gym-api/statuses';
import type { ClubStore } from '../club-store';
import type { Faults } from '../faults';
import { formatNaive } from '../naive-time';
import type { PoisonLog } from '../poison/poison-log';
import type { MemberRecord, ProspectRecord, SalesPerson } from '../records';
import { SeededRandom } from '../sandbox-random';

/** First int64 ids handed out: above 2^53, so clients are tested on precision. */
export const FIRST_PAYMENT_ID = 9007199254740993n;
export const FIRST_POS_ID = 9007199254800001n;
export const FIRST_POS_ITEM_ID = 9007199255000001n;

export interface SimulationSettings {
  readonly seed: number;
  readonly initialMembers: number;
  /** Visits in the initial history, when set: overrides the per-member visit rate. */
  readonly historyVisits?: number;
  readonly historyDays: number;
  readonly activityScale: number;
  /** Read on every record, so changes at run time apply at once. */
  readonly faults: Faults;
  /** Where stored poison is logged (poison mode). @default a log of the club's own */
  readonly poisonLog?: PoisonLog;
  /** Day passes, short trials and terms cut short (./short-terms.ts). @default false */
  readonly shortTerms?: boolean;
}

/** The next id of each kind of record (ids only go up). */
export interface IdCounters {
  payment: bigint;
  pos: bigint;
  posItem: bigint;
  membership: number;
  attendance: number;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

export function addMonths(naiveMs: number, months: number): number {
  const d = new Date(naiveMs);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.getTime();
}

export class SimulationContext {
  /** Every draw of the club's data, in one order: the same seed gives the same data. */
  readonly rng: SeededRandom;
  /** Lateness decisions, apart from `rng` so toggling the fault leaves the data stream alone. */
  readonly lateRng: SeededRandom;
  readonly ids: IdCounters = {
    payment: FIRST_PAYMENT_ID,
    pos: FIRST_POS_ID,
    posItem: FIRST_POS_ITEM_ID,
    membership: 70001,
    attendance: 1,
  };
  salesPeople: SalesPerson[] = [];

  constructor(
    readonly store: ClubStore,
    readonly settings: SimulationSettings,
  ) {
    this.rng = new SeededRandom(settings.seed, `activity:${store.clubId}`);
    this.lateRng = new SeededRandom(settings.seed, `lateness:${store.clubId}`);
  }

  get zone() {
    return this.store.profile.timeZone;
  }

  get scale(): number {
    return this.settings.activityScale;
  }

  /** When a record made at `atMs` says it happened: usually then, sometimes earlier (late arrival). */
  recordTime(atMs: number): number {
    const f = this.settings.faults;
    if (f.lateArrivalRate > 0 && this.lateRng.chance(f.lateArrivalRate)) {
      return (
        atMs - Math.floor(this.lateRng.real(SECOND_MS, Math.max(SECOND_MS, f.maxLatenessMin * MINUTE_MS)))
      );
    }
    return atMs;
  }

  pickMember(status: MemberStatus): MemberRecord | undefined {
    const index = this.store.memberStatusSet(status).pick(this.rng);
    return index === undefined ? undefined : this.store.members[index];
  }

  pickProspect(status: ProspectStatus): ProspectRecord | undefined {
    const index = this.store.prospectStatusSet(status).pick(this.rng);
    return index === undefined ? undefined : this.store.prospects[index];
  }

  dateOfBirth(): string {
    const year = this.rng.int(1955, 2008);
    return formatNaive(Date.UTC(year, this.rng.int(0, 11), this.rng.int(1, 28)));
  }
}
