/**
 * Comparing the bridge's events with the sandbox's ground-truth journal.
 *
 * Both sides are reduced to keys (a multiset: the same transition can legitimately happen twice).
 * Journal entries are grouped by the poll that first could see them (`boundaries`: the journal's
 * lastSeq when each poll started). Within one poll interval, polling sees states, not history, so
 * state changes collapse to the net transition from the state at the previous poll to the state at
 * this one (Active -> PaymentIssue -> Active in one interval is no change at all). This is the
 * documented limit of polling, not a tolerance: everything else must match one to one.
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { JournalEntry } from '../../sandbox';

export type KeyCounts = Map<string, number>;

const add = (m: KeyCounts, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

const APPROVED = /^approved$/i;

/** Which poll (index into boundaries) first sees the entry. */
function segmentOf(seq: number, boundaries: readonly number[]): number {
  for (let i = 0; i < boundaries.length; i++) if (seq <= boundaries[i]!) return i;
  return boundaries.length;
}

export function expectedKeys(entries: readonly JournalEntry[], boundaries: readonly number[]): KeyCounts {
  const keys: KeyCounts = new Map();
  // Net state per subject per segment.
  type Net = { first?: string; last?: string; joined?: boolean };
  const status = new Map<string, Net>();
  const prefs = new Map<string, Net>();
  const prospects = new Map<string, Net>();
  const paymentSegments = new Map<string, Map<number, string>>();
  const seg = (e: JournalEntry) => segmentOf(e.seq, boundaries);

  for (const e of entries) {
    const s = seg(e);
    const subjectKey = (id: string) => `${e.clubId}|${id}|${s}`;
    switch (e.kind) {
      case 'visit':
        add(keys, `V|${e.clubId}|${e.memberNumber}|${e.visitDateTime}|${e.door}`);
        break;
      case 'paymentRecorded':
      case 'paymentResponseChanged': {
        const id = `${e.clubId}|${e.paymentId}`;
        const bySegment = paymentSegments.get(id) ?? new Map<number, string>();
        bySegment.set(s, e.kind === 'paymentRecorded' ? e.response : e.current);
        paymentSegments.set(id, bySegment);
        break;
      }
      case 'paymentRefunded':
        add(keys, `REF|${e.clubId}|${e.paymentId}`);
        break;
      case 'posTransaction':
        add(keys, `POS|${e.clubId}|${e.posTransactionId}`);
        break;
      case 'disbursement':
        add(keys, `D|${e.clubId}|${e.memberNumber}|${e.transactionDate}|${e.amount}`);
        break;
      case 'debtCollection':
        add(keys, `DC|${e.clubId}|${e.memberNumber}|${e.debtCollectionDate}`);
        break;
      case 'memberJoined': {
        add(keys, `MJ|${e.clubId}|${e.memberNumber}`);
        status.set(subjectKey(e.memberNumber), { joined: true });
        prefs.set(subjectKey(e.memberNumber), { joined: true });
        break;
      }
      case 'memberStatusChanged': {
        const net = status.get(subjectKey(e.memberNumber)) ?? {};
        if (!net.joined) {
          net.first ??= e.previous;
          net.last = e.current;
        }
        status.set(subjectKey(e.memberNumber), net);
        break;
      }
      case 'membershipCancelled':
        add(keys, `MC|${e.clubId}|${e.memberNumber}`);
        break;
      case 'memberContactPreferencesChanged': {
        const net = prefs.get(subjectKey(e.memberNumber)) ?? {};
        if (!net.joined) {
          net.first ??= `${e.previous.optOutEmail},${e.previous.optOutSms}`;
          net.last = `${e.current.optOutEmail},${e.current.optOutSms}`;
        }
        prefs.set(subjectKey(e.memberNumber), net);
        break;
      }
      case 'prospectCreated':
        add(keys, `PC|${e.clubId}|${e.prospectNumber}`);
        prospects.set(subjectKey(e.prospectNumber), { joined: true });
        break;
      case 'prospectStatusChanged': {
        const net = prospects.get(subjectKey(e.prospectNumber)) ?? {};
        if (!net.joined) {
          net.first ??= e.previous;
          net.last = e.current;
        }
        prospects.set(subjectKey(e.prospectNumber), net);
        break;
      }
      case 'classAttendance':
        add(keys, `CA|${e.clubId}|${e.attendanceId}`);
        break;
      case 'memberDetailsChanged':
        break; // no event is expected for a phone or address edit
    }
  }
  const strip = (k: string) => k.slice(0, k.lastIndexOf('|'));
  for (const [k, net] of status)
    if (net.first !== undefined && net.first !== net.last)
      add(keys, `MSC|${strip(k)}|${net.first}|${net.last}`);
  for (const [k, net] of prefs)
    if (net.first !== undefined && net.first !== net.last)
      add(keys, `MCP|${strip(k)}|${net.first}|${net.last}`);
  for (const [k, net] of prospects)
    if (net.first !== undefined && net.first !== net.last)
      add(keys, `PSC|${strip(k)}|${net.first}|${net.last}`);
  // A payment is seen once per poll with its response at that time: an event whenever it differs.
  for (const [id, bySegment] of paymentSegments) {
    let observed: string | undefined;
    for (const s of [...bySegment.keys()].sort((a, b) => a - b)) {
      const response = bySegment.get(s)!;
      if (response !== observed)
        add(keys, `PAY|${id}|${APPROVED.test(response) ? 'ok' : 'failed'}|${response}`);
      observed = response;
    }
  }
  return keys;
}

export function eventKey(event: BridgeEvent): string | undefined {
  const d = event.detail as Record<string, unknown> & { clubId: string; subject: Record<string, string> };
  const data = (d.data ?? {}) as Record<string, unknown>;
  const club = d.clubId;
  const member = d.subject.memberNumber;
  const prospect = d.subject.prospectNumber;
  switch (event.detailType) {
    case 'Member Visit Recorded':
      return `V|${club}|${data.MemberNumber}|${data.VisitDateTime}|${data.Door}`;
    case 'Payment Succeeded':
      return `PAY|${club}|${d.paymentId}|ok|${d.response}`;
    case 'Payment Failed':
      return `PAY|${club}|${d.paymentId}|failed|${d.response}`;
    case 'Payment Refunded':
      return `REF|${club}|${d.paymentId}`;
    case 'POS Transaction Recorded':
      return `POS|${club}|${d.posTransactionId}`;
    case 'Disbursement Recorded':
      return `D|${club}|${data.MemberNumber}|${data.TransactionDate}|${d.amount}`;
    case 'Member Sent To Debt Collection':
      return `DC|${club}|${data.MemberNumber}|${data.DebtCollectionDate}`;
    case 'Member Joined':
      return `MJ|${club}|${member}`;
    case 'Member Status Changed':
      return `MSC|${club}|${member}|${d.previousStatus}|${d.status}`;
    case 'Membership Cancelled':
      return `MC|${club}|${member}`;
    case 'Member Contact Preferences Changed': {
      const p = d.previous as { optOutEmail: boolean; optOutSms: boolean };
      const c = d.current as { optOutEmail: boolean; optOutSms: boolean };
      return `MCP|${club}|${member}|${p.optOutEmail},${p.optOutSms}|${c.optOutEmail},${c.optOutSms}`;
    }
    case 'Prospect Created':
      return `PC|${club}|${prospect}`;
    case 'Prospect Status Changed':
      return `PSC|${club}|${prospect}|${d.previousStatus}|${d.status}`;
    case 'Class Attendance Recorded':
      return `CA|${club}|${data.AttendanceId}`;
    default:
      return undefined; // operational events are not changes of the club's data
  }
}

export function actualKeys(events: readonly BridgeEvent[]): KeyCounts {
  const keys: KeyCounts = new Map();
  for (const e of events) {
    const k = eventKey(e);
    if (k) add(keys, k);
  }
  return keys;
}

export interface Comparison {
  readonly expected: number;
  readonly actual: number;
  /** Keys the journal has more often than the events. */
  readonly missing: string[];
  /** Keys the events have more often than the journal. */
  readonly spurious: string[];
}

export function compare(expected: KeyCounts, actual: KeyCounts): Comparison {
  const missing: string[] = [];
  const spurious: string[] = [];
  const total = (m: KeyCounts) => [...m.values()].reduce((a, b) => a + b, 0);
  for (const [k, n] of expected) for (let i = actual.get(k) ?? 0; i < n; i++) missing.push(k);
  for (const [k, n] of actual) for (let i = expected.get(k) ?? 0; i < n; i++) spurious.push(k);
  return { expected: total(expected), actual: total(actual), missing, spurious };
}
