/**
 * Prospects: the initial prospects, new enquiries, the funnel (enquiry, tour, trial, sale or not),
 * trials that end (early sales, and the daily check of trials past their end date), and a sale
 * making the prospect a member.
 */
import { DAY_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { ProspectStatus } from '../../lambdas/gym-api/statuses';
import { floorToSecond, formatNaive } from '../naive-time';
import { makePerson } from '../people';
import type { IdName, ProspectRecord } from '../records';
import { GENDERS, PROSPECT_CONTACT_METHODS, PROSPECT_SOURCE_PAGES, PROSPECT_SOURCES } from '../vocabulary';
import type { SimulationContext } from './context';
import type { Members } from './members';

/** Prospect funnel: daily rate of leaving each status, and where to. OnTrial ends at TrialEndDate. */
export const FUNNEL: Partial<
  Record<ProspectStatus, { rate: number; next: readonly (readonly [ProspectStatus, number])[] }>
> = {
  Enquiry: {
    rate: 0.35,
    next: [
      ['Tour', 45],
      ['OnTrial', 20],
      ['NotInterested', 25],
      ['DidNotShow', 10],
    ],
  },
  Tour: {
    rate: 0.5,
    next: [
      ['OnTrial', 40],
      ['Sale', 30],
      ['NotInterested', 20],
      ['DidNotShow', 10],
    ],
  },
  DidNotShow: {
    rate: 0.08,
    next: [
      ['Tour', 50],
      ['NotInterested', 50],
    ],
  },
  NotInterested: { rate: 0.01, next: [['NoSaleReturn', 1]] },
  Trial_Expired: { rate: 0.02, next: [['NoSaleReturn', 1]] },
  NoSaleReturn: {
    rate: 0.25,
    next: [
      ['Tour', 40],
      ['OnTrial', 30],
      ['Sale', 30],
    ],
  },
};

export class Prospects {
  constructor(
    private readonly ctx: SimulationContext,
    private readonly members: Members,
  ) {}

  /** A prospect as they stand at `historyStartMs`: created in the last 45 days. */
  createInitial(historyStartMs: number): void {
    const rng = this.ctx.rng;
    const status = rng.weighted<ProspectStatus>([
      ['Enquiry', 25],
      ['Tour', 10],
      ['OnTrial', 10],
      ['Sale', 15],
      ['NotInterested', 15],
      ['Trial_Expired', 10],
      ['DidNotShow', 10],
      ['NoSaleReturn', 5],
    ]);
    const createdMs = floorToSecond(historyStartMs - rng.int(1, 45 * 24 * 60) * MINUTE_MS);
    const updatedMs =
      status === 'OnTrial'
        ? historyStartMs - rng.int(1, 6 * 24 * 60) * MINUTE_MS
        : createdMs + Math.floor(rng.next() * (historyStartMs - createdMs));
    const prospect = this.newRecord(status, createdMs, Math.max(createdMs, updatedMs));
    if (status === 'OnTrial') this.startTrial(prospect, Math.max(createdMs, updatedMs));
    this.ctx.store.addProspect(prospect, createdMs);
  }

  private newRecord(status: ProspectStatus, createdMs: number, statusMs: number): ProspectRecord {
    const { rng, store } = this.ctx;
    const index = store.prospects.length;
    const person = makePerson(rng, store.profile.locale, 50000 + index);
    return {
      index,
      statusKey: store.ambiguous(statusMs),
      api: {
        Number: `P${String(index + 1).padStart(6, '0')}`,
        FirstName: person.firstName,
        LastName: person.lastName,
        Status: status,
        Barcode: null,
        DateOfBirth: rng.chance(0.6) ? this.ctx.dateOfBirth() : null,
        Gender: rng.weighted(GENDERS),
        TrialStartDate: null,
        TrialEndDate: null,
        CreatedDateUtc: formatNaive(createdMs, true),
        ContactMethod: { ...rng.pick(PROSPECT_CONTACT_METHODS) } as IdName,
        Source: { ...rng.pick(PROSPECT_SOURCES) } as IdName,
        SourcePage: rng.pick(PROSPECT_SOURCE_PAGES),
        SalesPerson: { ...rng.pick(this.ctx.salesPeople) },
        Contact: person.contact,
      },
    };
  }

  private startTrial(prospect: ProspectRecord, atMs: number): void {
    const day = this.ctx.zone.localDayStart(atMs);
    prospect.trialEndKey = day + 7 * DAY_MS;
    prospect.api.TrialStartDate = formatNaive(day);
    prospect.api.TrialEndDate = formatNaive(prospect.trialEndKey);
    prospect.api.Barcode ??= `30${this.ctx.rng.chars(8)}`;
  }

  /** A trial from now until `endKey` (naive ms: a time of day, not a midnight): the prospect goes OnTrial. */
  startTrialUntil(prospect: ProspectRecord, atMs: number, endKey: number): void {
    prospect.trialEndKey = endKey;
    prospect.api.TrialStartDate = formatNaive(this.ctx.zone.localDayStart(atMs));
    prospect.api.TrialEndDate = formatNaive(endKey);
    prospect.api.Barcode ??= `30${this.ctx.rng.chars(8)}`;
    this.ctx.store.setProspectStatus(prospect, 'OnTrial', atMs);
  }

  newProspect(atMs: number): void {
    const status = this.ctx.rng.weighted<ProspectStatus>([
      ['Enquiry', 70],
      ['Tour', 15],
      ['OnTrial', 15],
    ]);
    const prospect = this.newRecord(status, floorToSecond(atMs), atMs);
    if (status === 'OnTrial') this.startTrial(prospect, atMs);
    this.ctx.store.addProspect(prospect, atMs);
  }

  /** A prospect in status `from` moves on through the funnel. */
  move(from: ProspectStatus, atMs: number): void {
    const rule = FUNNEL[from];
    const prospect = this.ctx.pickProspect(from);
    if (!rule || !prospect) return;
    const to = this.ctx.rng.weighted(rule.next);
    if (to === 'OnTrial') this.startTrial(prospect, atMs);
    this.ctx.store.setProspectStatus(prospect, to, atMs);
    if (to === 'Sale') this.buys(prospect, atMs);
  }

  /** A trial ends: in a sale when `early`, else four times in ten. */
  trialEnds(atMs: number, early: boolean, given?: ProspectRecord): void {
    const prospect = given ?? this.ctx.pickProspect('OnTrial');
    if (!prospect) return;
    const sale = early || this.ctx.rng.chance(0.4);
    this.ctx.store.setProspectStatus(prospect, sale ? 'Sale' : 'Trial_Expired', atMs);
    if (sale) this.buys(prospect, atMs);
  }

  /** Daily just after local midnight: trials past their end date end. */
  endTrials(atMs: number): void {
    const store = this.ctx.store;
    const today = this.ctx.zone.localDayStart(atMs);
    for (const index of store.prospectStatusSet('OnTrial').toArray()) {
      const prospect = store.prospects[index];
      if (prospect && prospect.trialEndKey !== undefined && prospect.trialEndKey <= today) {
        this.trialEnds(atMs, false, prospect);
      }
    }
  }

  private buys(prospect: ProspectRecord, atMs: number): void {
    const p = prospect.api;
    this.members.joins(atMs, { firstName: p.FirstName, lastName: p.LastName, contact: { ...p.Contact } });
  }
}
