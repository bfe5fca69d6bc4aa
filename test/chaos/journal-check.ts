/**
 * The verdict of a chaos run: the events that reached the bus against the sandbox's ground-truth
 * journal, with the keys of test/support/ground-truth.ts.
 *
 * 1. Duplicates. Events are grouped by eventId. One eventId must always describe the same change
 *    (same key), otherwise a consumer de-duplicating on it would drop a real change (`idConflicts`).
 *    An eventId delivered more than once is a duplicate, allowed only when a crash between publish
 *    and commit explains it: it was delivered by a poll that failed before writing the seen keys or
 *    snapshots that record it (`unexplainedDuplicates` otherwise).
 * 2. One-to-one changes (visits, POS, disbursements, debt collection, class attendance, refunds,
 *    joins, cancellations, prospects created): the distinct events and the journal are multisets of
 *    keys and must be equal: a key short is missing, a key over is spurious (including a change
 *    re-published under a new eventId). Visits, debt referrals and disbursements have no id in the
 *    API: a key the journal has twice is one record to the bridge (README: guarantees).
 * 3. State changes (member status, contact preferences, prospect status) and payment responses.
 *    Polling sees states, not history: ground-truth.ts collapses the changes within one poll
 *    interval to their net transition. Under faults a poll can fail and the interval between two
 *    successful observations of a subject spans several polls, so the same rule is applied per
 *    subject over whatever the bridge actually observed: its transitions, in delivery order, must
 *    chain (each one starts where the previous ended), each must go from a state the subject was in
 *    to a later state it was in (in journal order), and the last one must end in the subject's final
 *    state. A skipped intermediate state is the documented limit of polling; a transition that never
 *    happened, a broken chain or a final state not reached is not (a crash between publish and
 *    commit included: the next poll must carry on from what was published, not from the snapshot).
 */
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { JournalEntry } from '../../sandbox';
import { eventKey } from '../support/ground-truth';

export interface JournalCheck {
  /** Journal entries after the baseline (changes the bridge had to report or rightly ignore). */
  readonly journalEntries: number;
  /** Data events delivered, re-deliveries included. */
  readonly delivered: number;
  /** Distinct data events (by eventId) compared with the journal. */
  readonly checked: number;
  /** Re-deliveries of an eventId. */
  readonly duplicates: number;
  readonly missing: string[];
  readonly spurious: string[];
  readonly unexplainedDuplicates: string[];
  readonly idConflicts: string[];
}

/** Families compared one to one (the key prefix of eventKey). */
const ONE_TO_ONE = new Set(['V', 'POS', 'D', 'DC', 'CA', 'REF', 'MC', 'MJ', 'PC']);
/**
 * Records the API gives no id: two records equal in the fields of their key are one record to the
 * bridge (a visit is member, time and door, ScanSource is not part of it; a debt referral is member
 * and date; a disbursement is identified by all its fields, and the journal's member, date and
 * amount are the ones that differ in practice), so the journal counts such a key once.
 */
const IDENTIFIED_BY_KEY = new Set(['V', 'DC', 'D']);
const APPROVED = /^approved$/i;

interface Chain {
  /** The subject's states in journal order. */
  readonly states: string[];
  /** Created during the run: the bridge's first sighting may be at any of its states. */
  readonly createdInRun: boolean;
}

interface Step {
  readonly from: string | null;
  readonly to: string;
}

type Detail = Record<string, unknown> & { clubId: string; eventId: string; subject: Record<string, string> };

const prefsOf = (p: { optOutEmail: unknown; optOutSms: unknown }) => `${p.optOutEmail},${p.optOutSms}`;

function countKeys(keys: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

class Truth {
  readonly oneToOne: string[] = [];
  readonly status = new Map<string, Chain>();
  readonly prefs = new Map<string, Chain>();
  readonly prospects = new Map<string, Chain>();
  readonly payments = new Map<string, Chain>();
  readonly #joined = new Set<string>();

  constructor(entries: readonly JournalEntry[]) {
    for (const e of entries) this.#add(e);
  }

  #extend(map: Map<string, Chain>, key: string, previous: string, current: string, createdInRun: boolean) {
    const chain = map.get(key) ?? { states: [previous], createdInRun };
    chain.states.push(current);
    map.set(key, chain);
  }

  #add(e: JournalEntry): void {
    const club = e.clubId;
    switch (e.kind) {
      case 'visit':
        this.oneToOne.push(`V|${club}|${e.memberNumber}|${e.visitDateTime}|${e.door}`);
        break;
      case 'posTransaction':
        this.oneToOne.push(`POS|${club}|${e.posTransactionId}`);
        break;
      case 'disbursement':
        this.oneToOne.push(`D|${club}|${e.memberNumber}|${e.transactionDate}|${e.amount}`);
        break;
      case 'debtCollection':
        this.oneToOne.push(`DC|${club}|${e.memberNumber}|${e.debtCollectionDate}`);
        break;
      case 'classAttendance':
        this.oneToOne.push(`CA|${club}|${e.attendanceId}`);
        break;
      case 'paymentRefunded':
        this.oneToOne.push(`REF|${club}|${e.paymentId}`);
        break;
      case 'membershipCancelled':
        this.oneToOne.push(`MC|${club}|${e.memberNumber}`);
        break;
      case 'memberJoined': {
        const key = `${club}|${e.memberNumber}`;
        this.oneToOne.push(`MJ|${key}`);
        this.status.set(key, { states: [e.status], createdInRun: true });
        this.#joined.add(key);
        break;
      }
      case 'memberStatusChanged': {
        const key = `${club}|${e.memberNumber}`;
        this.#extend(this.status, key, e.previous, e.current, false);
        break;
      }
      case 'memberContactPreferencesChanged': {
        const key = `${club}|${e.memberNumber}`;
        this.#extend(this.prefs, key, prefsOf(e.previous), prefsOf(e.current), this.#joined.has(key));
        break;
      }
      case 'prospectCreated': {
        const key = `${club}|${e.prospectNumber}`;
        this.oneToOne.push(`PC|${key}`);
        this.prospects.set(key, { states: [e.status], createdInRun: true });
        break;
      }
      case 'prospectStatusChanged':
        this.#extend(this.prospects, `${club}|${e.prospectNumber}`, e.previous, e.current, false);
        break;
      case 'paymentRecorded':
        this.payments.set(`${club}|${e.paymentId}`, { states: [e.response], createdInRun: true });
        break;
      case 'paymentResponseChanged':
        // A payment recorded before the run: its first response was recorded by the baseline.
        this.#extend(this.payments, `${club}|${e.paymentId}`, e.previous, e.current, false);
        break;
      case 'memberDetailsChanged':
        break; // no event is expected for a phone or address edit
    }
  }
}

class Observed {
  readonly oneToOne: string[] = [];
  readonly status = new Map<string, Step[]>();
  readonly prefs = new Map<string, Step[]>();
  readonly prospects = new Map<string, Step[]>();
  readonly payments = new Map<string, string[]>();
  /** First state the bridge saw of a subject created in the run (from its Joined/Created event). */
  readonly firstStatus = new Map<string, string>();
  readonly firstPrefs = new Map<string, string>();
  readonly firstProspectStatus = new Map<string, string>();
  readonly inconsistent: string[] = [];

  add(event: BridgeEvent, key: string): void {
    const family = key.slice(0, key.indexOf('|'));
    const d = event.detail as unknown as Detail;
    const member = `${d.clubId}|${d.subject.memberNumber}`;
    const prospect = `${d.clubId}|${d.subject.prospectNumber}`;
    const push = <T>(map: Map<string, T[]>, subject: string, value: T) =>
      map.set(subject, [...(map.get(subject) ?? []), value]);
    if (ONE_TO_ONE.has(family)) this.oneToOne.push(key);
    switch (family) {
      case 'MJ': {
        if (typeof d.status === 'string') this.firstStatus.set(member, d.status);
        const contact = (d.data as { Contact?: { OptOutEmail?: unknown; OptOutSms?: unknown } }).Contact;
        if (contact) {
          this.firstPrefs.set(
            member,
            prefsOf({ optOutEmail: contact.OptOutEmail, optOutSms: contact.OptOutSms }),
          );
        }
        break;
      }
      case 'PC':
        if (typeof d.status === 'string') this.firstProspectStatus.set(prospect, d.status);
        break;
      case 'MSC':
        push(this.status, member, { from: d.previousStatus as string | null, to: d.status as string });
        break;
      case 'MCP':
        push(this.prefs, member, {
          from: prefsOf(d.previous as { optOutEmail: unknown; optOutSms: unknown }),
          to: prefsOf(d.current as { optOutEmail: unknown; optOutSms: unknown }),
        });
        break;
      case 'PSC':
        push(this.prospects, prospect, { from: d.previousStatus as string | null, to: d.status as string });
        break;
      case 'PAY': {
        const response = String(d.response);
        const ok = event.detailType === 'Payment Succeeded';
        if (ok !== APPROVED.test(response)) this.inconsistent.push(`${key}: classified ${event.detailType}`);
        push(this.payments, `${d.clubId}|${d.paymentId}`, response);
        break;
      }
    }
  }
}

export function checkAgainstJournal(
  entries: readonly JournalEntry[],
  deliveredEvents: readonly BridgeEvent[],
  allowedDuplicateIds: ReadonlySet<string>,
): JournalCheck {
  // 1. Duplicates and eventId consistency.
  const byId = new Map<string, { key: string; count: number; event: BridgeEvent }>();
  const idConflicts: string[] = [];
  let delivered = 0;
  for (const event of deliveredEvents) {
    const key = eventKey(event);
    if (key === undefined) continue; // operational events are not changes of the club's data
    delivered++;
    const id = event.detail.eventId;
    const seen = byId.get(id);
    if (!seen) byId.set(id, { key, count: 1, event });
    else {
      seen.count++;
      if (seen.key !== key) idConflicts.push(`${id}: ${seen.key} and ${key}`);
    }
  }
  const unexplainedDuplicates = [...byId]
    .filter(([id, v]) => v.count > 1 && !allowedDuplicateIds.has(id))
    .map(([id, v]) => `${v.key} (eventId ${id}, ${v.count} times)`);

  // 2. and 3. The distinct events against the journal.
  const truth = new Truth(entries);
  const observed = new Observed();
  for (const { key, event } of byId.values()) observed.add(event, key);
  const missing: string[] = [];
  const spurious: string[] = [...observed.inconsistent];
  const expected = countKeys(truth.oneToOne);
  for (const k of expected.keys()) if (IDENTIFIED_BY_KEY.has(k.slice(0, k.indexOf('|')))) expected.set(k, 1);
  const actual = countKeys(observed.oneToOne);
  for (const [k, n] of expected) for (let i = actual.get(k) ?? 0; i < n; i++) missing.push(k);
  for (const [k, n] of actual) for (let i = expected.get(k) ?? 0; i < n; i++) spurious.push(k);

  const transitions = (
    label: string,
    chains: Map<string, Chain>,
    steps: Map<string, Step[]>,
    first: Map<string, string>,
  ) => {
    for (const subject of new Set([...chains.keys(), ...steps.keys()])) {
      followChain(`${label}|${subject}`, chains.get(subject), first.get(subject), steps.get(subject) ?? [], {
        missing,
        spurious,
      });
    }
  };
  transitions('MSC', truth.status, observed.status, observed.firstStatus);
  transitions('MCP', truth.prefs, observed.prefs, observed.firstPrefs);
  transitions('PSC', truth.prospects, observed.prospects, observed.firstProspectStatus);
  for (const subject of new Set([...truth.payments.keys(), ...observed.payments.keys()])) {
    followPayment(`PAY|${subject}`, truth.payments.get(subject), observed.payments.get(subject) ?? [], {
      missing,
      spurious,
    });
  }

  return {
    journalEntries: entries.length,
    delivered,
    checked: byId.size,
    duplicates: delivered - byId.size,
    missing,
    spurious,
    unexplainedDuplicates,
    idConflicts,
  };
}

interface Findings {
  readonly missing: string[];
  readonly spurious: string[];
}

/** Transitions of one subject against its journal states (see 3. above). */
export function followChain(
  label: string,
  chain: Chain | undefined,
  firstObserved: string | undefined,
  steps: readonly Step[],
  out: Findings,
): void {
  if (!chain) {
    for (const s of steps)
      out.spurious.push(`${label}: ${s.from} -> ${s.to} (no such change in the journal)`);
    return;
  }
  const states = chain.states;
  const final = states.at(-1);
  let at = 0;
  if (chain.createdInRun) {
    const first = firstObserved ?? steps[0]?.from ?? undefined;
    if (first === undefined) return; // never observed: its Joined/Created event is counted missing
    at = states.indexOf(first);
    if (at < 0) {
      out.spurious.push(`${label}: first seen as ${first}, a state it never had (${states.join(' -> ')})`);
      return;
    }
  }
  for (const step of steps) {
    if (step.from !== states[at]) {
      out.spurious.push(`${label}: ${step.from} -> ${step.to} while the bridge had it at ${states[at]}`);
    }
    const next = states.indexOf(step.to, at + 1);
    if (next < 0) {
      out.spurious.push(`${label}: ${step.from} -> ${step.to} never happened (${states.join(' -> ')})`);
      continue;
    }
    at = next;
  }
  if (states[at] !== final) {
    out.missing.push(`${label}: last reported ${states[at]}, but it is ${final} (${states.join(' -> ')})`);
  }
}

/** Responses reported for one payment: a subsequence of its journal responses ending at the last. */
export function followPayment(
  label: string,
  chain: Chain | undefined,
  responses: readonly string[],
  out: Findings,
): void {
  if (!chain) {
    for (const r of responses) out.spurious.push(`${label}: ${r} (no such payment change in the journal)`);
    return;
  }
  const states = chain.states;
  // A payment recorded before the run had its first response reported (silently) by the baseline.
  let at = chain.createdInRun ? -1 : 0;
  for (const r of responses) {
    const next = states.indexOf(r, at + 1);
    if (next < 0)
      out.spurious.push(`${label}: ${r} out of order or never its response (${states.join(' -> ')})`);
    else at = next;
  }
  if (at < 0 || states[at] !== states.at(-1)) {
    out.missing.push(`${label}: response ${states.at(-1)} never reported (${states.join(' -> ')})`);
  }
}
