/** The sandbox's short terms (issue 33): day passes, short trials and terms cut short, each alone. */

import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from '../../../../lambdas/common/time-units';
import { Prospects } from '../../../../sandbox/activity/prospects';
import { ShortTerms } from '../../../../sandbox/activity/short-terms';
import { formatNaive } from '../../../../sandbox/naive-time';
import { HISTORY_START, testClub } from './club';

function shortTermsClub(members: number, prospects = 0) {
  const club = testClub(members);
  const funnel = new Prospects(club.ctx, club.members);
  club.ctx.salesPeople = [{ Id: 1, FirstName: 'Sam', LastName: 'Sales', Email: 'sam@example.com' }];
  club.store.journaling = false;
  for (let i = 0; i < prospects; i++) funnel.createInitial(HISTORY_START);
  club.store.journaling = true;
  return { ...club, prospects: funnel, shortTerms: new ShortTerms(club.ctx, club.members, funnel) };
}

describe('short terms', () => {
  it('a day pass is an Active member whose ExpiryDate is 1 to 7 days away, archived once it passed', () => {
    // Prepare
    const { store, ctx, shortTerms, journal } = shortTermsClub(10);
    const today = ctx.zone.localDayStart(HISTORY_START);

    // Act
    shortTerms.dayPass(HISTORY_START);
    const member = store.members.at(-1)!;
    const expiry = member.expiryKey!;
    shortTerms.housekeeping(ctx.zone.fromNaive(expiry) - HOUR_MS);
    const stillActive = member.api.Status;
    shortTerms.housekeeping(ctx.zone.fromNaive(expiry) + HOUR_MS);

    // Assess
    expect((expiry - today) / DAY_MS).toBeGreaterThanOrEqual(1);
    expect((expiry - today) / DAY_MS).toBeLessThanOrEqual(7);
    expect(member.api.Membership.ExpiryDate).toBe(formatNaive(expiry));
    expect(member.api.Membership.StartDate).toBe(formatNaive(today));
    expect(stillActive).toBe('Active');
    expect(member.api.Status).toBe('Archived');
    const kinds = journal
      .entries()
      .filter((e) => 'memberNumber' in e && e.memberNumber === member.api.Number);
    expect(kinds.map((e) => e.kind)).toEqual(['memberJoined', 'paymentRecorded', 'memberStatusChanged']);
  });

  it('a short trial takes an Enquiry OnTrial for 20 to 40 hours, once', () => {
    // Prepare
    const { store, shortTerms, journal } = shortTermsClub(5, 60);
    const enquiries = store.prospectStatusSet('Enquiry').size;

    // Act
    for (let i = 0; i < 200; i++) shortTerms.shortTrial(HISTORY_START + i * 60_000);

    // Assess
    const started = journal.entries().filter((e) => e.kind === 'prospectStatusChanged');
    expect(started.length).toBe(enquiries);
    for (const e of started) {
      expect(e).toMatchObject({ previous: 'Enquiry', current: 'OnTrial' });
      const p = store.prospects.find((x) => 'prospectNumber' in e && x.api.Number === e.prospectNumber)!;
      const hours = (p.trialEndKey! - store.local(Date.parse(e.at))) / HOUR_MS;
      expect(hours).toBeGreaterThan(19);
      expect(hours).toBeLessThanOrEqual(40);
      expect(p.api.TrialEndDate).toBe(formatNaive(p.trialEndKey!));
    }
  });

  it('a term cut short moves a paid-in-full ExpiryDate 1 to 3 days away, not renewed', () => {
    // Prepare
    const { store, ctx, shortTerms, journal } = shortTermsClub(200);
    const paidInFull = store.members.filter((m) => m.api.Status === 'Active' && m.expiryKey !== undefined);

    // Act
    for (let i = 0; i < 2000; i++) shortTerms.cutShort(HISTORY_START + i * 1000);

    // Assess
    const cuts = journal.entries().filter((e) => e.kind === 'memberDetailsChanged');
    expect(cuts.length).toBe(paidInFull.length);
    const today = ctx.zone.localDayStart(HISTORY_START);
    for (const e of cuts) {
      expect(e).toMatchObject({ fields: ['Membership.ExpiryDate'] });
      const m = store.members.find((x) => 'memberNumber' in e && x.api.Number === e.memberNumber)!;
      expect([1, 2, 3]).toContain((m.expiryKey! - today) / DAY_MS);
      expect(m.plan.termMonths).toBeUndefined();
    }
  });

  it('never cuts a term whose ExpiryDate changed since the journal began (a renewal)', () => {
    // Prepare
    const { store, shortTerms, journal } = shortTermsClub(200);
    shortTerms.actions({ t0: HISTORY_START, t1: HISTORY_START + 1000, traffic: 0, visitsPerDay: 0 });
    const renewed = store.members.filter((m) => m.api.Status === 'Active' && m.expiryKey !== undefined);
    for (const m of renewed) m.expiryKey = m.expiryKey! + 90 * DAY_MS;

    // Act
    for (let i = 0; i < 2000; i++) shortTerms.cutShort(HISTORY_START + i * 1000);

    // Assess
    expect(renewed.length).toBeGreaterThan(0);
    expect(journal.entries().filter((e) => e.kind === 'memberDetailsChanged')).toEqual([]);
  });
});
