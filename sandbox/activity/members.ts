/**
 * Members: the initial population, joining (with the joining payment), online sign-ups completed,
 * suspensions, resumptions, cancellations with notice, contact and detail edits, and the daily
 * housekeeping of start dates reached and cancellations taking effect.
 */
import { DAY_MS, MINUTE_MS } from '../../lambdas/common/time-units';
import type { MemberStatus } from '../../lambdas/gym-api/statuses';
import { floorToSecond, formatNaive } from '../naive-time';
import { makePerson, type Person } from '../people';
import type { MemberRecord } from '../records';
import {
  GENDERS,
  JOINING_FEE,
  MEMBERSHIP_PLANS,
  type MembershipPlan,
  PAYMENT_PURPOSES,
  PAYMENT_RESPONSES,
} from '../vocabulary';
import { addMonths, type SimulationContext } from './context';
import type { Payments } from './payments';

/** When and how a member record starts. */
interface MemberStart {
  readonly plan: MembershipPlan;
  readonly status: MemberStatus;
  readonly startKey: number;
  readonly saleKey: number;
  readonly updatedMs: number;
}

export class Members {
  private readonly pendingCancellations = new Set<number>();

  constructor(
    private readonly ctx: SimulationContext,
    private readonly payments: Payments,
  ) {}

  private newMemberRecord(person: Person, start: MemberStart): MemberRecord {
    const { rng, store } = this.ctx;
    const { plan, status, startKey, saleKey, updatedMs } = start;
    const index = store.members.length;
    const membership = {
      Id: this.ctx.ids.membership++,
      Name: plan.name,
      StartDate: formatNaive(startKey),
      SaleDate: formatNaive(saleKey),
      ...(plan.minimumTermMonths
        ? { MinimumTermDate: formatNaive(addMonths(startKey, plan.minimumTermMonths)) }
        : {}),
      ...(plan.termMonths ? { ExpiryDate: formatNaive(addMonths(startKey, plan.termMonths)) } : {}),
      Type: plan.type,
    };
    return {
      index,
      plan,
      billingAnchor: rng.int(0, 27),
      startKey,
      updatedKey: updatedMs,
      ...(plan.termMonths ? { expiryKey: addMonths(startKey, plan.termMonths) } : {}),
      arrears: 0,
      referredToDebt: false,
      api: {
        Number: String(100001 + index),
        FirstName: person.firstName,
        LastName: person.lastName,
        Status: status,
        Barcode: `20${rng.chars(8)}`,
        FitnessPassportNumber: rng.chance(0.08) ? `FP${rng.chars(7)}` : null,
        DateOfBirth: this.ctx.dateOfBirth(),
        Gender: rng.weighted(GENDERS),
        LastUpdatedUtcDateTime: formatNaive(updatedMs, true),
        Contact: person.contact,
        Membership: membership,
      },
    };
  }

  /** A member as they stand at `historyStartMs`: joined some time in the last four years. */
  createInitial(historyStartMs: number): void {
    const { rng, zone, store } = this.ctx;
    const plan = rng.weighted(MEMBERSHIP_PLANS.map((p) => [p, p.weight] as const));
    const status = rng.weighted<MemberStatus>([
      ['Active', 82],
      ['PaymentIssue', 4],
      ['Suspended', 4],
      ['Archived', 7],
      ['PendingActivation', 2],
      ['PendingOnlineSignup', 1],
    ]);
    const today = zone.localDayStart(historyStartMs);
    let startKey = today - rng.int(1, 1500) * DAY_MS;
    if (status === 'PendingActivation') startKey = today + rng.int(1, 10) * DAY_MS;
    if (status === 'PendingOnlineSignup') startKey = today - rng.int(0, 1) * DAY_MS;
    const saleKey = floorToSecond(startKey - rng.int(0, 7) * DAY_MS + rng.int(8 * 60, 20 * 60) * MINUTE_MS);
    const saleUtc = zone.fromNaive(saleKey);
    const updatedMs = Math.min(
      historyStartMs - 1,
      saleUtc + Math.floor(rng.next() * (historyStartMs - saleUtc)),
    );
    const person = makePerson(rng, store.profile.locale, store.members.length + 1);
    const member = this.newMemberRecord(person, { plan, status, startKey, saleKey, updatedMs });
    this.settleInitialHistory(member, today, historyStartMs);
    store.addMember(member, updatedMs);
  }

  /** Renewed expiries, past cancellations and open payment issues of an initial member. */
  private settleInitialHistory(member: MemberRecord, today: number, historyStartMs: number): void {
    const { rng } = this.ctx;
    const { plan, startKey } = member;
    const status = member.api.Status;
    if (plan.termMonths && member.expiryKey !== undefined && status !== 'Archived') {
      // Paid-in-full members still here have renewed: move the expiry past today.
      while (member.expiryKey <= today) member.expiryKey = addMonths(member.expiryKey, plan.termMonths);
      member.api.Membership.ExpiryDate = formatNaive(member.expiryKey);
    }
    if (status === 'Archived') {
      const cancel = Math.min(today - DAY_MS, startKey + rng.int(30, 900) * DAY_MS);
      member.cancellationKey = cancel;
      member.api.Membership.CancellationDate = formatNaive(cancel);
    }
    if (status === 'PaymentIssue') {
      member.paymentIssueSinceMs = historyStartMs - rng.int(0, 20) * DAY_MS;
      member.arrears = plan.amount;
    }
  }

  /** A new member joins (a walk-in, or `person` when a prospect buys). */
  joins(atMs: number, person?: Person): MemberRecord {
    const { rng, zone, store } = this.ctx;
    const plan = rng.weighted(MEMBERSHIP_PLANS.map((p) => [p, p.weight] as const));
    const status = rng.weighted<MemberStatus>([
      ['Active', 75],
      ['PendingActivation', 20],
      ['PendingOnlineSignup', 5],
    ]);
    const today = zone.localDayStart(atMs);
    const startKey = status === 'PendingActivation' ? today + rng.int(1, 7) * DAY_MS : today;
    const saleKey = floorToSecond(store.local(atMs));
    const who = person ?? makePerson(rng, store.profile.locale, store.members.length + 1);
    const member = this.newMemberRecord(who, { plan, status, startKey, saleKey, updatedMs: atMs });
    store.addMember(member, atMs);
    if (status !== 'PendingOnlineSignup') this.joiningPayment(member, atMs);
    return member;
  }

  /** A walk-in joins on `plan`, Active from today, its membership ending at `expiryKey` (a pass). */
  joinsOn(atMs: number, plan: MembershipPlan, expiryKey: number): MemberRecord {
    const { rng, zone, store } = this.ctx;
    const today = zone.localDayStart(atMs);
    const saleKey = floorToSecond(store.local(atMs));
    const who = makePerson(rng, store.profile.locale, store.members.length + 1);
    const member = this.newMemberRecord(who, {
      plan,
      status: 'Active',
      startKey: today,
      saleKey,
      updatedMs: atMs,
    });
    member.expiryKey = expiryKey;
    member.api.Membership.ExpiryDate = formatNaive(expiryKey);
    store.addMember(member, atMs);
    this.joiningPayment(member, atMs);
    return member;
  }

  private joiningPayment(member: MemberRecord, atMs: number): void {
    this.payments.add(member, atMs, {
      type: 'CC',
      response: PAYMENT_RESPONSES.approved,
      description: 'Joining fee and first payment',
      purpose: PAYMENT_PURPOSES.joining,
      fees: { JoiningFee: JOINING_FEE, SubscriptionFee: member.plan.amount },
    });
  }

  signupCompletion(atMs: number): void {
    const member = this.ctx.pickMember('PendingOnlineSignup');
    if (!member) return;
    const today = this.ctx.zone.localDayStart(atMs);
    this.ctx.store.setMemberStatus(member, member.startKey > today ? 'PendingActivation' : 'Active', atMs);
    this.joiningPayment(member, atMs);
  }

  suspension(atMs: number): void {
    const member = this.ctx.pickMember('Active');
    if (member) this.ctx.store.setMemberStatus(member, 'Suspended', atMs);
  }

  resumption(atMs: number): void {
    const member = this.ctx.pickMember('Suspended');
    if (member) this.ctx.store.setMemberStatus(member, 'Active', atMs);
  }

  cancellation(atMs: number): void {
    const { rng, store } = this.ctx;
    const member = this.ctx.pickMember('Active');
    if (!member || member.cancellationKey !== undefined) return;
    const today = this.ctx.zone.localDayStart(atMs);
    const noticeDays = rng.chance(0.3) ? 0 : rng.int(7, 30);
    store.cancelMembership(member, today + noticeDays * DAY_MS, atMs);
    if (noticeDays === 0) store.setMemberStatus(member, 'Archived', atMs);
    else this.pendingCancellations.add(member.index);
  }

  contactPreferencesChange(atMs: number): void {
    const { rng, store } = this.ctx;
    const member = store.members[rng.int(0, store.members.length - 1)];
    if (!member || member.api.Status === 'Archived') return;
    const c = member.api.Contact;
    if (rng.chance(0.5)) store.setContactPreferences(member, !c.OptOutEmail, c.OptOutSms, atMs);
    else store.setContactPreferences(member, c.OptOutEmail, !c.OptOutSms, atMs);
  }

  detailsEdit(atMs: number): void {
    const { rng, store } = this.ctx;
    const member = store.members[rng.int(0, store.members.length - 1)];
    if (!member) return;
    const locale = store.profile.locale;
    store.editMember(member, atMs, (m) => {
      if (rng.chance(0.5)) {
        m.api.Contact.Mobile = locale.mobile(rng.chars(9));
        return ['Contact.Mobile'];
      }
      const fresh = makePerson(rng, locale, m.index);
      m.api.Contact.Address = fresh.contact.Address;
      m.api.Contact.Suburb = fresh.contact.Suburb;
      m.api.Contact.State = fresh.contact.State;
      m.api.Contact.Postcode = fresh.contact.Postcode;
      return ['Contact.Address', 'Contact.Suburb', 'Contact.State', 'Contact.Postcode'];
    });
  }

  /** Daily just after local midnight: start dates reached, cancellations effective. */
  housekeeping(atMs: number): void {
    const store = this.ctx.store;
    const today = this.ctx.zone.localDayStart(atMs);
    for (const index of store.memberStatusSet('PendingActivation').toArray()) {
      const member = store.members[index];
      if (member && member.startKey <= today) store.setMemberStatus(member, 'Active', atMs);
    }
    for (const index of [...this.pendingCancellations]) {
      const member = store.members[index];
      if (!member || member.cancellationKey === undefined || member.cancellationKey > today) continue;
      this.pendingCancellations.delete(index);
      store.setMemberStatus(member, 'Archived', atMs);
    }
  }
}
