/** A poison record as stored: its API body and the keys it is filed under. */
import { lowerBound, type OrderedView, upperBound } from './sorted-index';

export interface PoisonRecord {
  readonly api: Record<string, unknown>;
  /** The sort key of its operation (naive ms; members: the start-date key). */
  readonly key: number;
  /** Members only: the `updatedate` key (UTC ms). */
  readonly updatedKey?: number;
  /** The member status a visits `status` filter matches it with. */
  readonly status?: string;
}

/**
 * All data of one club, with the sorted indexes the API filters need, and every mutation the
 * simulation makes. Each mutation keeps the indexes in step and, once journaling is on (after the
 * initial history), records the change in the ground-truth journal. What the club is configured as
 * (zone, plan, locale, opening hours) is its profile (club-profile.ts).
 */
import type { MemberStatus, ProspectStatus } from '../lambdas/gym-api/statuses';
import type { ClubProfile } from './club-profile';
import { IndexedSet } from './indexed-set';
import type { Journal, JournalChange } from './journal';
import { formatNaive } from './naive-time';
import type {
  ApiClassAttendance,
  ApiDebtCollection,
  ApiDisbursement,
  ApiPosTransaction,
  KeyedRecord,
  MemberRecord,
  PaymentRecord,
  ProspectRecord,
} from './records';
import { SortedIndex } from './sorted-index';
import { DOORS } from './vocabulary';

export class ClubStore {
  readonly members: MemberRecord[] = [];
  readonly membersByStart = new SortedIndex<MemberRecord>();
  readonly membersByUpdate = new SortedIndex<MemberRecord>();
  readonly membersByStatus = new Map<MemberStatus, IndexedSet>();
  readonly membersByNumber = new Map<string, MemberRecord>();

  readonly prospects: ProspectRecord[] = [];
  readonly prospectsByUpdate = new SortedIndex<ProspectRecord>();
  readonly prospectsByStatus = new Map<ProspectStatus, IndexedSet>();

  readonly visits = new VisitStore();
  readonly payments = new SortedIndex<PaymentRecord>();
  readonly pos = new SortedIndex<KeyedRecord<ApiPosTransaction>>();
  readonly disbursements = new SortedIndex<KeyedRecord<ApiDisbursement>>();
  readonly debts = new SortedIndex<KeyedRecord<ApiDebtCollection>>();
  readonly classes = new SortedIndex<KeyedRecord<ApiClassAttendance>>();

  /**
   * Poison visits (poison mode, poison/poison-filing.ts): a visit whose member index is -1 - i is
   * `poisonVisits[i]`.
   */
  readonly poisonVisits: PoisonRecord[] = [];

  /** Off while the initial history is generated; on afterwards. */
  journaling = false;

  constructor(
    readonly profile: ClubProfile,
    private readonly journal: Journal,
  ) {}

  get clubId(): string {
    return this.profile.clubId;
  }

  /** Naive ms of an instant in the club's local time. */
  local(utcMs: number): number {
    return this.profile.timeZone.toNaive(utcMs);
  }

  /** Naive ms of an instant for the fields whose zone the seed leaves open (see `ambiguousZone`). */
  ambiguous(utcMs: number): number {
    return this.profile.ambiguousZone === 'local' ? this.local(utcMs) : utcMs;
  }

  private record(atMs: number, change: JournalChange): void {
    if (this.journaling) this.journal.record(this.clubId, atMs, change);
  }

  memberStatusSet(status: MemberStatus): IndexedSet {
    return setOf(this.membersByStatus, status);
  }

  prospectStatusSet(status: ProspectStatus): IndexedSet {
    return setOf(this.prospectsByStatus, status);
  }

  // ---- members ---------------------------------------------------------------------------

  addMember(member: MemberRecord, atMs: number): void {
    this.members.push(member);
    this.membersByNumber.set(member.api.Number, member);
    this.membersByStart.insert(member.startKey, member);
    this.membersByUpdate.insert(member.updatedKey, member);
    this.memberStatusSet(member.api.Status).add(member.index);
    this.record(atMs, { kind: 'memberJoined', memberNumber: member.api.Number, status: member.api.Status });
  }

  private touchMember(member: MemberRecord, atMs: number): void {
    const old = member.updatedKey;
    member.updatedKey = atMs;
    member.api.LastUpdatedUtcDateTime = formatNaive(atMs, true);
    this.membersByUpdate.rekey(old, atMs, member);
  }

  setMemberStatus(member: MemberRecord, status: MemberStatus, atMs: number): void {
    const previous = member.api.Status;
    if (previous === status) return;
    this.memberStatusSet(previous).delete(member.index);
    this.memberStatusSet(status).add(member.index);
    member.api.Status = status;
    if (status === 'PaymentIssue') member.paymentIssueSinceMs = atMs;
    if (previous === 'PaymentIssue') {
      member.paymentIssueSinceMs = undefined;
      member.referredToDebt = false;
    }
    this.touchMember(member, atMs);
    this.record(atMs, {
      kind: 'memberStatusChanged',
      memberNumber: member.api.Number,
      previous,
      current: status,
    });
  }

  cancelMembership(member: MemberRecord, cancellationKey: number, atMs: number): void {
    const cancellationDate = formatNaive(cancellationKey);
    member.cancellationKey = cancellationKey;
    member.api.Membership.CancellationDate = cancellationDate;
    this.touchMember(member, atMs);
    this.record(atMs, { kind: 'membershipCancelled', memberNumber: member.api.Number, cancellationDate });
  }

  setContactPreferences(member: MemberRecord, optOutEmail: boolean, optOutSms: boolean, atMs: number): void {
    const contact = member.api.Contact;
    const previous = { optOutEmail: contact.OptOutEmail, optOutSms: contact.OptOutSms };
    if (previous.optOutEmail === optOutEmail && previous.optOutSms === optOutSms) return;
    contact.OptOutEmail = optOutEmail;
    contact.OptOutSms = optOutSms;
    this.touchMember(member, atMs);
    this.record(atMs, {
      kind: 'memberContactPreferencesChanged',
      memberNumber: member.api.Number,
      previous,
      current: { optOutEmail, optOutSms },
    });
  }

  /** An edit no event is expected for; `apply` makes it and returns the API field paths touched. */
  editMember(member: MemberRecord, atMs: number, apply: (m: MemberRecord) => string[]): void {
    const fields = apply(member);
    this.touchMember(member, atMs);
    this.record(atMs, { kind: 'memberDetailsChanged', memberNumber: member.api.Number, fields });
  }

  // ---- prospects -------------------------------------------------------------------------

  addProspect(prospect: ProspectRecord, atMs: number): void {
    this.prospects.push(prospect);
    this.prospectsByUpdate.insert(prospect.statusKey, prospect);
    this.prospectStatusSet(prospect.api.Status).add(prospect.index);
    this.record(atMs, {
      kind: 'prospectCreated',
      prospectNumber: prospect.api.Number,
      status: prospect.api.Status,
    });
  }

  setProspectStatus(prospect: ProspectRecord, status: ProspectStatus, atMs: number): void {
    const previous = prospect.api.Status;
    if (previous === status) return;
    this.prospectStatusSet(previous).delete(prospect.index);
    this.prospectStatusSet(status).add(prospect.index);
    prospect.api.Status = status;
    const old = prospect.statusKey;
    prospect.statusKey = this.ambiguous(atMs);
    this.prospectsByUpdate.rekey(old, prospect.statusKey, prospect);
    this.record(atMs, {
      kind: 'prospectStatusChanged',
      prospectNumber: prospect.api.Number,
      previous,
      current: status,
    });
  }

  // ---- append-only activity --------------------------------------------------------------

  /** `visitUtcMs` may lie before `atMs` (a late arrival). */
  addVisit(memberIndex: number, door: number, visitUtcMs: number, atMs: number): void {
    const key = Math.floor(this.local(visitUtcMs) / 1000) * 1000;
    this.visits.insert(key, memberIndex, door);
    if (!this.journaling) return;
    const [doorName, scanSource] = DOORS[door] ?? ['', ''];
    this.record(atMs, {
      kind: 'visit',
      memberNumber: this.members[memberIndex]?.api.Number ?? '',
      visitDateTime: formatNaive(key),
      door: doorName,
      scanSource,
    });
  }

  addPayment(payment: PaymentRecord, atMs: number): void {
    this.payments.insert(payment.key, payment);
    const api = payment.api;
    this.record(atMs, {
      kind: 'paymentRecorded',
      paymentId: api.Id.toString(),
      memberNumber: api.Number,
      paymentDate: api.PaymentDate,
      paymentType: api.PaymentType,
      response: api.Response,
    });
  }

  changePaymentResponse(payment: PaymentRecord, response: string, atMs: number): void {
    const previous = payment.api.Response;
    payment.api.Response = response;
    this.record(atMs, {
      kind: 'paymentResponseChanged',
      paymentId: payment.api.Id.toString(),
      memberNumber: payment.api.Number,
      previous,
      current: response,
    });
  }

  refundPayment(payment: PaymentRecord, refundId: bigint, atMs: number): void {
    payment.api.Refund = { IsRefunded: true, RefundedPaymentId: refundId };
    this.record(atMs, {
      kind: 'paymentRefunded',
      paymentId: payment.api.Id.toString(),
      memberNumber: payment.api.Number,
      refundedPaymentId: refundId.toString(),
    });
  }

  addPosTransaction(record: KeyedRecord<ApiPosTransaction>, atMs: number): void {
    this.pos.insert(record.key, record);
    this.record(atMs, {
      kind: 'posTransaction',
      posTransactionId: record.api.PosTransactionId.toString(),
      ...(record.api.MemberNumber ? { memberNumber: record.api.MemberNumber } : {}),
      transactionDate: record.api.TransactionDate,
    });
  }

  addDisbursement(record: KeyedRecord<ApiDisbursement>, atMs: number): void {
    this.disbursements.insert(record.key, record);
    this.record(atMs, {
      kind: 'disbursement',
      memberNumber: record.api.MemberNumber,
      transactionDate: record.api.TransactionDate,
      amount: record.api.Amount,
    });
  }

  addDebtCollection(record: KeyedRecord<ApiDebtCollection>, atMs: number): void {
    this.debts.insert(record.key, record);
    this.record(atMs, {
      kind: 'debtCollection',
      memberNumber: record.api.MemberNumber,
      debtCollectionDate: record.api.DebtCollectionDate,
      amount: record.api.Amount,
    });
  }

  addClassAttendance(record: KeyedRecord<ApiClassAttendance>, atMs: number): void {
    this.classes.insert(record.key, record);
    const api = record.api;
    this.record(atMs, {
      kind: 'classAttendance',
      attendanceId: api.AttendanceId,
      ...(api.MemberNumber ? { memberNumber: api.MemberNumber } : {}),
      ...(api.ProspectNumber ? { prospectNumber: api.ProspectNumber } : {}),
      classId: api.ClassId,
      className: api.ClassName,
      classDateTime: api.ClassDateTime,
      status: api.Status,
    });
  }
}

/** The set of `key` in `map`, created empty on first use. */
function setOf<K>(map: Map<K, IndexedSet>, key: K): IndexedSet {
  let set = map.get(key);
  if (!set) {
    set = new IndexedSet();
    map.set(key, set);
  }
  return set;
}

/** The visits of one club: the only append-heavy table, so it gets its own column store. */
/** Visits, stored column-wise so a million of them stay small. Sorted by local visit time. */
export class VisitStore implements OrderedView {
  readonly keys: number[] = [];
  readonly members: number[] = [];
  readonly doors: number[] = [];

  get length(): number {
    return this.keys.length;
  }

  keyAt(index: number): number {
    return this.keys[index] as number;
  }

  lowerBound(key: number): number {
    return lowerBound(this.keys, key);
  }

  insert(key: number, memberIndex: number, door: number): void {
    const last = this.keys[this.keys.length - 1];
    if (last === undefined || last <= key) {
      this.keys.push(key);
      this.members.push(memberIndex);
      this.doors.push(door);
      return;
    }
    const at = upperBound(this.keys, key);
    this.keys.splice(at, 0, key);
    this.members.splice(at, 0, memberIndex);
    this.doors.splice(at, 0, door);
  }
}
