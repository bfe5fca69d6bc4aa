/** The simulation's domains, each alone over an in-memory club (no sockets). */
import { describe, expect, it } from 'vitest';
import { classSession } from '../../../../sandbox/activity/classes';
import { posSale } from '../../../../sandbox/activity/pos';
import { type Step, scheduleActions } from '../../../../sandbox/activity/schedule';
import { disbursementBreakdown, Settlement } from '../../../../sandbox/activity/settlement';
import { trafficFactor } from '../../../../sandbox/activity/visits';
import { CLASS_TIMETABLE, PAYMENT_PURPOSES, PAYMENT_RESPONSES } from '../../../../sandbox/vocabulary';
import { all, HISTORY_START, profile, testClub } from './club';

const HOUR = 3_600_000;
const localAt = (hour: number) => Date.UTC(2026, 5, 10, hour, 30);

describe('visits: traffic by local hour', () => {
  it('is 0 while the club is closed and averages 1 over the open hours of a 24-hour club', () => {
    // Prepare
    const dayClub = profile();
    const nightClub = profile({ open24h: true });

    // Act
    const closed = [trafficFactor(dayClub, localAt(3)), trafficFactor(dayClub, localAt(23))];
    const open = trafficFactor(dayClub, localAt(7));
    const allDay = Array.from({ length: 24 }, (_, h) => trafficFactor(nightClub, localAt(h)));

    // Assess
    expect(closed).toEqual([0, 0]);
    expect(open).toBeGreaterThan(1);
    expect(allDay.reduce((a, b) => a + b, 0) / 24).toBeCloseTo(1, 10);
  });
});

describe('members: the initial population', () => {
  it('numbers members from 100001 and files each under its status', () => {
    // Prepare and Act
    const { store } = testClub(50);

    // Assess
    expect(store.members.map((m) => m.api.Number)).toEqual(
      Array.from({ length: 50 }, (_, i) => String(100001 + i)),
    );
    const filed = [...store.membersByStatus.values()].reduce((sum, set) => sum + set.size, 0);
    expect(filed).toBe(50);
    for (const m of store.members) expect(store.memberStatusSet(m.api.Status).has(m.index)).toBe(true);
  });

  it('a member who joins makes the joining payment unless the sign-up is still pending online', () => {
    // Prepare
    const { store, members, journal } = testClub(20);

    // Act
    const joined = Array.from({ length: 30 }, (_, i) => members.joins(HISTORY_START + i * HOUR));

    // Assess
    const joiningPayments = all(store.payments).filter(
      (p) => p.api.PaymentForReference.Id === PAYMENT_PURPOSES.joining.Id,
    );
    const paying = joined.filter((m) => m.api.Status !== 'PendingOnlineSignup');
    expect(joiningPayments.map((p) => p.api.Number)).toEqual(paying.map((m) => m.api.Number));
    expect(journal.entries().filter((e) => e.kind === 'memberJoined')).toHaveLength(30);
  });
});

describe('payments and settlement', () => {
  it('pays out approved payments at the next settlement and reverses a refund made after it', () => {
    // Prepare
    const { store, ctx, payments, members } = testClub(30);
    const settlement = new Settlement(ctx, payments);
    const member = members.joins(HISTORY_START);
    const joining = all(store.payments).find((p) => p.api.Number === member.api.Number);
    if (!joining) throw new Error('the joining payment was not recorded');
    const paid = joining.amount;

    // Act
    settlement.settlementRun(HISTORY_START + 20 * HOUR);
    store.refundPayment(joining, 1n, HISTORY_START + 21 * HOUR);
    payments.unsettle(joining, HISTORY_START + 21 * HOUR);
    settlement.settlementRun(HISTORY_START + 44 * HOUR);

    // Assess
    const mine = all(store.disbursements).filter((d) => d.api.MemberNumber === member.api.Number);
    expect(mine.map((d) => [d.api.Amount, d.api.Department])).toEqual([
      [paid, PAYMENT_PURPOSES.joining.Name],
      [-paid, 'Refunds'],
    ]);
    expect(joining.settlement).toBe('none');
  });

  it('maps a payment’s fees onto the disbursement breakdown, negated for a reversal', () => {
    // Prepare
    const { payments, members } = testClub(5);
    const member = members.joins(HISTORY_START);
    const payment = payments.add(member, HISTORY_START, {
      type: 'CC',
      response: PAYMENT_RESPONSES.approved,
      description: 'test',
      purpose: PAYMENT_PURPOSES.casual,
      fees: { SubscriptionFee: 40, DishonourFee: 12.5, AddOnAmount: 7.25 },
    });

    // Act
    const paidOut = disbursementBreakdown(payment, 1);
    const reversed = disbursementBreakdown(payment, -1);

    // Assess
    expect(paidOut).toMatchObject({ Membership: 40, Dishonour: 12.5, AddOn: 7.25, Pos: 0 });
    expect(reversed).toMatchObject({ Membership: -40, Dishonour: -12.5, AddOn: -7.25 });
    expect(payment.amount).toBe(59.75);
  });
});

describe('POS', () => {
  it('totals the lines that are not voided, negative for a refund', () => {
    // Prepare
    const { store, ctx } = testClub(40);

    // Act
    for (let i = 0; i < 200; i++) posSale(ctx, HISTORY_START + i * 60_000);

    // Assess
    const sales = all(store.pos);
    expect(sales).toHaveLength(200);
    for (const { api } of sales) {
      const counted = api.Items.filter((item) => !item.IsVoided);
      const total = counted.reduce((sum, item) => sum + item.PriceIncTax * item.Quantity, 0);
      expect(api.TotalIncTax).toBeCloseTo(total, 2);
      if (api.TransactionType === 'Refund') expect(api.TotalIncTax).toBeLessThanOrEqual(0);
    }
  });
});

describe('classes', () => {
  it('never books more than the capacity nor the same person twice in a session', () => {
    // Prepare
    const { store, ctx } = testClub(2_000);
    const slot = CLASS_TIMETABLE[0];
    if (!slot) throw new Error('no class in the timetable');

    // Act
    classSession(ctx, slot, HISTORY_START);

    // Assess
    const attendances = all(store.classes);
    const people = attendances.map((a) => a.api.MemberNumber ?? a.api.ProspectNumber);
    expect(attendances.length).toBeGreaterThan(0);
    expect(attendances.length).toBeLessThanOrEqual(slot.capacity);
    expect(new Set(people).size).toBe(people.length);
  });
});

describe('schedule: one step of random activity', () => {
  it('makes the visits first, then returns the other actions in time order inside the step', () => {
    // Prepare
    const { ctx } = testClub(500);
    const step: Step = {
      t0: HISTORY_START,
      t1: HISTORY_START + 15 * 60_000,
      traffic: 2,
      visitsPerDay: 5_000,
    };
    const calls: string[] = [];
    const noted = (name: string) => () => void calls.push(name);
    const run = noted('action');

    // Act
    const actions = scheduleActions(ctx, step, {
      visits: (times) => calls.push(`visits:${times.length}`),
      joins: run,
      suspension: run,
      resumption: run,
      cancellation: run,
      contactPreferencesChange: run,
      detailsEdit: run,
      signupCompletion: run,
      casualPayment: run,
      catchUp: run,
      refund: run,
      posSale: run,
      newProspect: run,
      prospectMove: run,
      earlySale: run,
    });

    // Assess
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^visits:\d+$/);
    expect(actions.length).toBeGreaterThan(0);
    const times = actions.map((a) => a.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((t) => t >= step.t0 && t < step.t1)).toBe(true);
  });
});
