/**
 * Freshness: the delay between a change in the sandbox (its journal entry's `at`) and the event
 * that reports it being published, in simulated time.
 *
 * Journal entries and events are matched by key (the same keys as the end-to-end test's ground
 * truth). Polling sees states, not history: when a member's status (or opt-outs, or a prospect's
 * status) changes again before an event reported the earlier change, the earlier entry is
 * superseded and never matched (counted as `superseded`), and the delay is measured from the change
 * that set the state the event reports.
 */
import type { BridgeEvent } from '../lambdas/events/catalog';
import type { JournalEntry } from '../sandbox';

interface Pending {
  readonly key: string;
  readonly atMs: number;
  readonly kind: string;
}

/** Entries whose later changes supersede earlier ones (the subject's state is what polling sees). */
const STATEFUL = new Set(['memberStatusChanged', 'memberContactPreferencesChanged', 'prospectStatusChanged']);

export function journalKey(e: JournalEntry): { key: string; subject?: string } | undefined {
  const c = e.clubId;
  switch (e.kind) {
    case 'visit':
      return { key: `V|${c}|${e.memberNumber}|${e.visitDateTime}|${e.door}` };
    case 'paymentRecorded':
      return { key: `PAY|${c}|${e.paymentId}|${e.response}` };
    case 'paymentResponseChanged':
      return { key: `PAY|${c}|${e.paymentId}|${e.current}` };
    case 'paymentRefunded':
      return { key: `REF|${c}|${e.paymentId}` };
    case 'posTransaction':
      return { key: `POS|${c}|${e.posTransactionId}` };
    case 'disbursement':
      return { key: `D|${c}|${e.memberNumber}|${e.transactionDate}|${e.amount}` };
    case 'debtCollection':
      return { key: `DC|${c}|${e.memberNumber}|${e.debtCollectionDate}` };
    case 'memberJoined':
      return { key: `MJ|${c}|${e.memberNumber}` };
    case 'memberStatusChanged':
      return { key: `MSC|${c}|${e.memberNumber}|${e.current}`, subject: `MSC|${c}|${e.memberNumber}` };
    case 'membershipCancelled':
      return { key: `MC|${c}|${e.memberNumber}` };
    case 'memberContactPreferencesChanged':
      return {
        key: `MCP|${c}|${e.memberNumber}|${e.current.optOutEmail},${e.current.optOutSms}`,
        subject: `MCP|${c}|${e.memberNumber}`,
      };
    case 'prospectCreated':
      return { key: `PC|${c}|${e.prospectNumber}` };
    case 'prospectStatusChanged':
      return { key: `PSC|${c}|${e.prospectNumber}|${e.current}`, subject: `PSC|${c}|${e.prospectNumber}` };
    case 'classAttendance':
      return { key: `CA|${c}|${e.attendanceId}` };
    default:
      return undefined; // memberDetailsChanged: no event is expected
  }
}

export function eventKey(event: BridgeEvent): string | undefined {
  const d = event.detail as Record<string, unknown> & { clubId: string; subject: Record<string, string> };
  const data = (d.data ?? {}) as Record<string, unknown>;
  const c = d.clubId;
  const member = d.subject.memberNumber;
  switch (event.detailType) {
    case 'Member Visit Recorded':
      return `V|${c}|${data.MemberNumber}|${data.VisitDateTime}|${data.Door}`;
    case 'Payment Succeeded':
    case 'Payment Failed':
      return `PAY|${c}|${d.paymentId}|${d.response}`;
    case 'Payment Refunded':
      return `REF|${c}|${d.paymentId}`;
    case 'POS Transaction Recorded':
      return `POS|${c}|${d.posTransactionId}`;
    case 'Disbursement Recorded':
      return `D|${c}|${data.MemberNumber}|${data.TransactionDate}|${d.amount}`;
    case 'Member Sent To Debt Collection':
      return `DC|${c}|${data.MemberNumber}|${data.DebtCollectionDate}`;
    case 'Member Joined':
      return `MJ|${c}|${member}`;
    case 'Member Status Changed':
      return `MSC|${c}|${member}|${d.status}`;
    case 'Membership Cancelled':
      return `MC|${c}|${member}`;
    case 'Member Contact Preferences Changed': {
      const now = d.current as { optOutEmail: boolean; optOutSms: boolean };
      return `MCP|${c}|${member}|${now.optOutEmail},${now.optOutSms}`;
    }
    case 'Prospect Created':
      return `PC|${c}|${d.subject.prospectNumber}`;
    case 'Prospect Status Changed':
      return `PSC|${c}|${d.subject.prospectNumber}|${d.status}`;
    case 'Class Attendance Recorded':
      return `CA|${c}|${data.AttendanceId}`;
    default:
      return undefined; // operational events report no change of the club's data
  }
}

export interface DelaySample {
  readonly delayMs: number;
  readonly detailType: string;
  /** The journal entry's kind (e.g. `paymentResponseChanged`). */
  readonly kind: string;
}

/**
 * Late changes: changes of records that appeared earlier, outside the tail a poll re-reads (a
 * payment dishonoured or refunded after it was recorded), found by the sources' sweeps.
 */
export const LATE_CHANGE_KINDS: ReadonlySet<string> = new Set(['paymentResponseChanged', 'paymentRefunded']);

export class FreshnessTracker {
  readonly #pending = new Map<string, Pending[]>();
  readonly #latestBySubject = new Map<string, Pending>();
  readonly samples: DelaySample[] = [];
  superseded = 0;
  /** Status/opt-out changes reported by the Member Joined / Prospect Created event itself. */
  foldedIntoCreation = 0;
  /** Events with no pending journal entry (should stay 0: a spurious or duplicate event). */
  unmatchedEvents = 0;

  addEntries(entries: readonly JournalEntry[]): void {
    for (const e of entries) {
      const k = journalKey(e);
      if (!k) continue;
      const pending: Pending = { key: k.key, atMs: Date.parse(e.at), kind: e.kind };
      if (k.subject && STATEFUL.has(e.kind)) {
        const before = this.#latestBySubject.get(k.subject);
        if (before && this.#remove(before)) this.superseded++;
        this.#latestBySubject.set(k.subject, pending);
      }
      const list = this.#pending.get(k.key);
      if (list) list.push(pending);
      else this.#pending.set(k.key, [pending]);
    }
  }

  #remove(p: Pending): boolean {
    const list = this.#pending.get(p.key);
    const i = list ? list.indexOf(p) : -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    if (list.length === 0) this.#pending.delete(p.key);
    return true;
  }

  /** Events published at simulated time `publishedAtMs`. */
  published(events: readonly BridgeEvent[], publishedAtMs: number): void {
    for (const event of events) {
      const key = eventKey(event);
      if (key === undefined) continue;
      const list = this.#pending.get(key);
      const first = list?.[0];
      if (!list || !first || first.atMs > publishedAtMs) {
        this.unmatchedEvents++;
        continue;
      }
      list.shift();
      if (list.length === 0) this.#pending.delete(key);
      this.samples.push({
        delayMs: publishedAtMs - first.atMs,
        detailType: event.detailType,
        kind: first.kind,
      });
      if (key.startsWith('MJ|') || key.startsWith('PC|')) this.#foldIntoCreation(key, publishedAtMs);
    }
  }

  /**
   * A joined member's (or new prospect's) status and opt-out changes made before its creation event
   * are reported by that event, not by transitions of their own.
   */
  #foldIntoCreation(creationKey: string, publishedAtMs: number): void {
    const [kind, club, id] = creationKey.split('|');
    const subjects = kind === 'MJ' ? [`MSC|${club}|${id}`, `MCP|${club}|${id}`] : [`PSC|${club}|${id}`];
    for (const subject of subjects) {
      const latest = this.#latestBySubject.get(subject);
      if (latest && latest.atMs <= publishedAtMs && this.#remove(latest)) this.foldedIntoCreation++;
    }
  }

  /** Journal entries still waiting for their event. */
  get pendingCount(): number {
    let n = 0;
    for (const list of this.#pending.values()) n += list.length;
    return n;
  }

  /** Pending entries older than `olderThanMs` at `nowMs`: changes the bridge missed, by kind. */
  overdue(nowMs: number, olderThanMs: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const list of this.#pending.values())
      for (const p of list) if (nowMs - p.atMs > olderThanMs) out[p.kind] = (out[p.kind] ?? 0) + 1;
    return out;
  }
}
