/**
 * All data of one club, with the sorted indexes the API filters need, and every mutation the
 * simulation makes. Each mutation keeps the indexes in step and, once journaling is on (after the
 * initial history), records the change in the ground-truth journal.
 */
import type { OperationName } from '../gym-api/operations';
import type { MemberStatus, ProspectStatus } from '../gym-api/schemas';
import { IndexedSet } from './indexed-set';
import type { Journal, JournalChange } from './journal';
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
import { VisitStore } from './visit-store';
import { DOORS, type Locale } from './vocabulary';
import { formatNaive, type TimeZone } from './zoned-time';

export type AmbiguousZone = 'local' | 'utc';
export type PlanName = 'basic' | 'advanced';

export interface ClubProfile {
  readonly clubId: string;
  readonly timeZone: TimeZone;
  readonly plan: PlanName;
  readonly locale: Locale;
  readonly ambiguousZone: AmbiguousZone;
  /** Local opening hours in minutes after midnight; `open24h` clubs take visits all night. */
  readonly openMinute: number;
  readonly closeMinute: number;
  readonly open24h: boolean;
}

/** A poison record (poison mode) as stored: its API body and the keys it is filed under. */
export interface PoisonRecord {
  readonly api: Record<string, unknown>;
  /** The sort key of its operation (naive ms; members: the start-date key). */
  readonly key: number;
  /** Members only: the `updatedate` key (UTC ms). */
  readonly updatedKey?: number;
  /** The member status a visits `status` filter matches it with. */
  readonly status?: string;
}

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

  /** Poison visits (poison mode): a visit whose member index is -1 - i is `poisonVisits[i]`. */
  readonly poisonVisits: PoisonRecord[] = [];
  private readonly poisonBodies = new WeakSet<object>();

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
    let set = this.membersByStatus.get(status);
    if (!set) {
      set = new IndexedSet();
      this.membersByStatus.set(status, set);
    }
    return set;
  }

  prospectStatusSet(status: ProspectStatus): IndexedSet {
    let set = this.prospectsByStatus.get(status);
    if (!set) {
      set = new IndexedSet();
      this.prospectsByStatus.set(status, set);
    }
    return set;
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

  // ---- poison mode -----------------------------------------------------------------------

  /**
   * Files a poison record in the operation's index like a real one, `copies` times in a row. It is
   * never journaled, and the simulation never sees it (it is in no status set or member list).
   */
  addPoison(operation: OperationName, record: PoisonRecord, copies = 1): void {
    this.poisonBodies.add(record.api);
    const file = this.poisonFiler(operation, record);
    for (let i = 0; i < copies; i++) file();
  }

  private poisonFiler(operation: OperationName, record: PoisonRecord): () => void {
    const { api, key } = record;
    const keyed = <T>(index: SortedIndex<T>) => {
      const item = { api, key } as unknown as T;
      return () => void index.insert(key, item);
    };
    switch (operation) {
      case 'members': {
        const member = { index: -1, api, startKey: key, updatedKey: record.updatedKey ?? key };
        return () => {
          this.membersByStart.insert(key, member as unknown as MemberRecord);
          this.membersByUpdate.insert(member.updatedKey, member as unknown as MemberRecord);
        };
      }
      case 'prospects': {
        const prospect = { index: -1, api, statusKey: key } as unknown as ProspectRecord;
        return () => void this.prospectsByUpdate.insert(key, prospect);
      }
      case 'visits': {
        this.poisonVisits.push(record);
        const code = -this.poisonVisits.length; // -1 - its position
        return () => this.visits.insert(key, code, 0);
      }
      case 'paymentHistory':
        return keyed(this.payments);
      case 'posTransactions':
        return keyed(this.pos);
      case 'disbursements':
        return keyed(this.disbursements);
      case 'debtCollection':
        return keyed(this.debts);
      case 'classAttendance':
        return keyed(this.classes);
    }
  }

  /**
   * Files one of the operation's latest real records once more, right after itself (so it is
   * served twice in a row), unjournaled; `pick(n)` chooses among the n candidates. Returns the
   * record as served, or undefined when there is none (or the operation is not append-only).
   */
  repeatRealRecord(operation: OperationName, pick: (count: number) => number): PoisonRecord | undefined {
    if (operation === 'visits') return this.repeatRealVisit(pick);
    const index = this.appendIndex(operation);
    if (!index) return undefined;
    const candidates = lastOfTies(index, (i) => !this.poisonBodies.has(index.itemAt(i).api));
    const at = candidates[pick(candidates.length)];
    if (at === undefined) return undefined;
    const item = index.itemAt(at);
    index.insert(index.keyAt(at), item);
    return { api: item.api as unknown as Record<string, unknown>, key: index.keyAt(at) };
  }

  private repeatRealVisit(pick: (count: number) => number): PoisonRecord | undefined {
    const visits = this.visits;
    const candidates = lastOfTies(visits, (i) => (visits.members[i] as number) >= 0);
    const at = candidates[pick(candidates.length)];
    if (at === undefined) return undefined;
    const member = visits.members[at] as number;
    const door = visits.doors[at] as number;
    visits.insert(visits.keyAt(at), member, door);
    const [doorName, scanSource] = DOORS[door] ?? ['', ''];
    const api = {
      MemberNumber: this.members[member]?.api.Number,
      Door: doorName,
      ScanSource: scanSource,
      VisitDateTime: formatNaive(visits.keyAt(at)),
    };
    return { api, key: visits.keyAt(at) };
  }

  private appendIndex(operation: OperationName): SortedIndex<{ api: object }> | undefined {
    switch (operation) {
      case 'paymentHistory':
        return this.payments;
      case 'posTransactions':
        return this.pos;
      case 'disbursements':
        return this.disbursements;
      case 'debtCollection':
        return this.debts;
      case 'classAttendance':
        return this.classes;
      default:
        return undefined;
    }
  }
}

/**
 * Up to 20 positions from the end of `view` that are the last of their equal keys and `real`
 * (looking back at most 10,000 positions, past poison records and closed hours).
 */
function lastOfTies(
  view: { readonly length: number; keyAt(i: number): number },
  real: (i: number) => boolean,
): number[] {
  const out: number[] = [];
  for (let i = view.length - 1; i >= Math.max(0, view.length - 10_000) && out.length < 20; i--) {
    const lastOfKey = i === view.length - 1 || view.keyAt(i + 1) !== view.keyAt(i);
    if (lastOfKey && real(i)) out.push(i);
  }
  return out;
}
