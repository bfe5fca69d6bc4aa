/**
 * What the lifecycle evaluation keeps between evaluations (docs/lifecycle.md, "State and
 * schedule"), in the club's two lifecycle items:
 * - the base: the rules' document (evaluate.ts), the facts of every member and prospect the rules
 *   need (the view), which of its facts the first evaluation passed silently (`silent`,
 *   baseline-marks.ts) and when it was written; rewritten by a full evaluation (the first one, every
 *   REBASE_EVERY_MS, or when the notes cannot tell what changed);
 * - the delta: every subject whose kept state differs from the base's (a later last visit alone
 *   does not count: the visits since the base are read again), rewritten when that set changes.
 * The delta written with new facts carries them (`facts`, with the evaluation's clock and hour: their
 * events are built again from them, the same to the byte) : they are surely published once the club
 * state item records that hour as evaluated (its closing write follows the publishing), else the
 * next evaluation publishes them again (same eventIds). A delta of an earlier release carries the
 * events themselves (`pending`).
 * A delta names the base version it applies to: one written before a rebase is ignored (its
 * pending events were published before the base was rewritten).
 */

import type { EventSink } from '../events/event-sink';
import type { ClubLifecycle } from '../state/state-store';
import { type SilentMarks, silentMarksIn, silentMarksOf, stillSilent } from './baseline-marks';
import type { LifecycleDoc, LifecycleFact } from './evaluate';
import { publishFacts } from './lifecycle-events';
import type { MemberFacts, ProspectFacts } from './rules';

/** The facts of every member and prospect the rules read (status and dates), by number. */
export interface LifecycleView {
  readonly members: Readonly<Record<string, MemberFacts>>;
  readonly prospects: Readonly<Record<string, ProspectFacts>>;
}

type MemberEntry = LifecycleDoc['members'][string];

/** The base item's document: the rules' document, the view and when it was written. */
interface BaseDoc extends LifecycleDoc {
  readonly writtenAtMs?: number;
  /** Absent in a document of an earlier release: the next evaluation reads everything. */
  readonly view?: LifecycleView;
  readonly pending?: readonly unknown[];
  /** The marks the first evaluation passed silently (baseline-marks.ts); absent before this release. */
  readonly silent?: SilentMarks;
}

interface DeltaEntries {
  /**
   * The earliest visit (epoch ms) noted since the base that is older than the visits re-read from
   * the base: a late visit whose fold the delta does not keep (a last visit alone) is read again.
   */
  readonly visitsFromMs?: number;
  readonly members: Readonly<Record<string, MemberEntry | null>>;
  readonly prospects: Readonly<Record<string, readonly string[] | null>>;
  readonly viewMembers: Readonly<Record<string, MemberFacts | null>>;
  readonly viewProspects: Readonly<Record<string, ProspectFacts | null>>;
}

interface DeltaDoc extends DeltaEntries {
  readonly delta: 1;
  readonly baseVersion: number;
  readonly writtenAtMs: number;
  /** Events an earlier release kept (this one keeps `facts`). */
  readonly pending?: readonly unknown[];
  /** The facts found, whose events may not be published yet. */
  readonly facts?: readonly unknown[];
  /** The clock of the evaluation that found them: their events' observedAt and counts. */
  readonly factsNowMs?: number;
  /** The hour (epoch hours) of the evaluation that found the pending events. */
  readonly pendingHour?: number;
}

/** What an evaluation kept and may not have published: events (an earlier release's) and facts. */
export interface Pending {
  readonly events: readonly unknown[];
  readonly facts: readonly unknown[];
  /** The clock of the evaluation that found `facts`. */
  readonly nowMs: number;
}

/** The base with its delta applied: what the evaluation and `explain` read. */
export interface KeptLifecycle extends LifecycleDoc {
  /** When either item was last written (epoch ms). */
  readonly writtenAtMs?: number;
  /** When the base was written: the visits read must reach back to it. */
  readonly baseWrittenAtMs?: number;
  /** The earliest late visit noted since the base (the delta's), if any: read back to it too. */
  readonly visitsFromMs?: number;
  readonly view?: LifecycleView;
  /**
   * The marks the first evaluation passed silently (baseline-marks.ts): a mark not among them was
   * announced. Absent when the base does not say (written before this release).
   */
  readonly silent?: SilentMarks;
  /**
   * Facts (and events) recorded as announced and maybe not published: those of the delta unless the
   * club's last evaluated hour (`lastHour` of the read) is at or past the hour that found them, and
   * the events of a base of an earlier release.
   */
  readonly pending: Pending;
  /** Subjects the delta holds. */
  readonly deltaSize: number;
  /** The stored delta could not be read (ignored): the next evaluation reads everything. */
  readonly deltaUnreadable?: true;
  readonly stored: {
    readonly base: BaseDoc;
    readonly baseVersion: number;
    readonly deltaVersion: number;
    /** The delta's entries as they stand (canonical), to tell whether they changed. */
    readonly deltaKey: string;
  };
}

/** What an evaluation leaves: the rules' document and the view it evaluated with. */
export interface NextLifecycle {
  readonly life: LifecycleDoc;
  readonly view: LifecycleView;
  /** The earliest visit read again that lies before the base's re-read (kept until the rebase). */
  readonly visitsFromMs?: number;
}

/** JSON with object keys sorted: two equal states give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** A member's kept state without its last visit: what the delta follows (no copy of the entry made). */
const memberKey = (entry: MemberEntry | undefined): string =>
  entry ? canonical([entry.firstVisitOf, entry.lapse, entry.expiring, entry.pay]) : canonical([]);

function changed<T>(
  base: Readonly<Record<string, T>>,
  next: Readonly<Record<string, T>>,
  key: (value: T | undefined) => string,
): Record<string, T | null> {
  const out: Record<string, T | null> = {};
  // The same object is the same state (an evaluation keeps a member's object when nothing changed).
  for (const [id, value] of Object.entries(next))
    if (base[id] !== value && key(base[id]) !== key(value)) out[id] = value;
  for (const id of Object.keys(base)) if (!(id in next) && key(base[id]) !== key(undefined)) out[id] = null;
  return out;
}

const plain = <T>(value: T | undefined): string => (value === undefined ? '' : canonical(value));

/** Every subject whose kept state differs from the base's. */
export function deltaOf(base: BaseDoc, next: NextLifecycle): DeltaEntries {
  return {
    ...(next.visitsFromMs === undefined ? {} : { visitsFromMs: next.visitsFromMs }),
    members: changed(base.members, next.life.members, memberKey),
    prospects: changed(base.prospects, next.life.prospects, plain),
    viewMembers: changed(base.view?.members ?? {}, next.view.members, plain),
    viewProspects: changed(base.view?.prospects ?? {}, next.view.prospects, plain),
  };
}

const sizeOf = (d: DeltaEntries): number =>
  Object.keys(d.members).length +
  Object.keys(d.prospects).length +
  Object.keys(d.viewMembers).length +
  Object.keys(d.viewProspects).length;

const keyOf = (d: DeltaEntries): string =>
  canonical({
    v: d.visitsFromMs ?? null,
    m: Object.fromEntries(Object.entries(d.members).map(([id, e]) => [id, e && memberKey(e)])),
    p: d.prospects,
    vm: d.viewMembers,
    vp: d.viewProspects,
  });

const EMPTY: DeltaEntries = { members: {}, prospects: {}, viewMembers: {}, viewProspects: {} };

function applied<T>(base: Readonly<Record<string, T>>, delta: Readonly<Record<string, T | null>>) {
  const out: Record<string, T> = { ...base };
  for (const [id, value] of Object.entries(delta)) {
    if (value === null) delete out[id];
    else out[id] = value;
  }
  return out;
}

/** The base, or undefined for a document this release cannot read (not a version 1 one). */
function baseOf(stored: unknown): BaseDoc | undefined {
  const doc = stored as Partial<BaseDoc> | null;
  if (doc?.version !== 1 || typeof doc.members !== 'object' || typeof doc.prospects !== 'object')
    return undefined;
  return doc as BaseDoc;
}

const isRecord = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The delta if it applies to this base; undefined for one of an earlier base (written before a
 * rebase that stopped before replacing it) and 'unreadable' for one this release cannot read: it
 * is then ignored and the evaluation reads everything and rebases, rather than fail every hour.
 */
function deltaFor(stored: unknown, baseVersion: number): DeltaDoc | undefined | 'unreadable' {
  const doc = stored as Partial<DeltaDoc> | null;
  const entries = [doc?.members, doc?.prospects, doc?.viewMembers, doc?.viewProspects];
  if (
    doc?.delta !== 1 ||
    !entries.every(isRecord) ||
    (doc.pending !== undefined && !Array.isArray(doc.pending)) ||
    (doc.facts !== undefined && (!Array.isArray(doc.facts) || typeof doc.factsNowMs !== 'number'))
  )
    return 'unreadable';
  return doc.baseVersion === baseVersion ? (doc as DeltaDoc) : undefined;
}

function pendingOf(base: BaseDoc, delta: DeltaDoc | undefined): Pending {
  return {
    events: [...(base.pending ?? []), ...(delta?.pending ?? [])],
    facts: delta?.facts ?? [],
    nowMs: delta?.factsNowMs ?? 0,
  };
}

const published = (delta: DeltaDoc, lastHour: number | undefined) =>
  delta.pendingHour !== undefined && lastHour !== undefined && lastHour >= delta.pendingHour;

function silentOf(base: BaseDoc): { silent?: SilentMarks } {
  const silent = silentMarksIn(base.silent);
  return silent ? { silent } : {};
}

/**
 * The silent marks the new base keeps: all of a first evaluation's (no kept state: the rules passed
 * every fact silently), those of the kept base still recorded, or none when the kept base has none.
 */
function silentFor(kept: KeptLifecycle | undefined, next: NextLifecycle): { silent?: SilentMarks } {
  if (!kept) return { silent: silentMarksOf(next.life) };
  return kept.silent ? { silent: stillSilent(kept.silent, next.life) } : {};
}

/**
 * The stored base cannot be read (a document of a later release after a rollback, a damaged item):
 * the evaluation starts over silently, as a first one, and its base replaces this one (`versions`
 * for the puts). What the unreadable base held, pending events included, is lost: said in a WARN.
 */
export class UnreadableLifecycleBaseError extends Error {
  override readonly name = 'UnreadableLifecycleBaseError';
  constructor(
    readonly clubId: string,
    readonly versions: { readonly base: number; readonly delta: number },
  ) {
    super(`the lifecycle base of ${clubId} (version ${versions.base}) cannot be read by this release`);
  }
}

/** The kept state: the base with its delta applied, or undefined before the first evaluation. */
export async function readKeptLifecycle(
  store: Pick<ClubLifecycle, 'getLifecycle'>,
  clubId: string,
  lastHour?: number,
): Promise<KeptLifecycle | undefined> {
  const [storedBase, storedDelta] = await Promise.all([
    store.getLifecycle('base'),
    store.getLifecycle('delta'),
  ]);
  if (!storedBase) return undefined;
  const base = storedBase.unreadable ? undefined : baseOf(storedBase.doc);
  if (!base) {
    const versions = { base: storedBase.version, delta: storedDelta?.version ?? 0 };
    throw new UnreadableLifecycleBaseError(clubId, versions);
  }
  const found = storedDelta
    ? storedDelta.unreadable
      ? 'unreadable'
      : deltaFor(storedDelta.doc, storedBase.version)
    : undefined;
  const delta = found === 'unreadable' ? undefined : found;
  const entries = delta ?? EMPTY;
  const view = base.view && {
    members: applied(base.view.members, entries.viewMembers),
    prospects: applied(base.view.prospects, entries.viewProspects),
  };
  const writtenAtMs = Math.max(base.writtenAtMs ?? 0, delta?.writtenAtMs ?? 0);
  return {
    version: 1,
    trackedSince: base.trackedSince,
    trackedSinceMs: base.trackedSinceMs,
    // The visit history the first evaluation read: lapses and first visits count from it for good.
    ...(base.seenFrom === undefined ? {} : { seenFrom: base.seenFrom }),
    members: applied(base.members, entries.members),
    prospects: applied(base.prospects, entries.prospects),
    ...(writtenAtMs > 0 ? { writtenAtMs } : {}),
    ...(base.writtenAtMs === undefined ? {} : { baseWrittenAtMs: base.writtenAtMs }),
    ...(delta?.visitsFromMs === undefined ? {} : { visitsFromMs: delta.visitsFromMs }),
    ...(view ? { view } : {}),
    ...silentOf(base),
    pending: pendingOf(base, delta && !published(delta, lastHour) ? delta : undefined),
    deltaSize: sizeOf(entries),
    ...(found === 'unreadable' ? { deltaUnreadable: true } : {}),
    stored: {
      base,
      baseVersion: storedBase.version,
      deltaVersion: storedDelta?.version ?? 0,
      deltaKey: keyOf(entries),
    },
  };
}

export interface KeepDeps {
  readonly store: Pick<ClubLifecycle, 'putLifecycle'>;
  readonly clubId: string;
  /** The club's zone: the facts' events carry their local times in it. */
  readonly zone: string;
  readonly nowMs: number;
  /** The evaluation's hour (epoch hours): recorded with the pending facts. */
  readonly hour: number;
  /** Where the facts' events are published (lifecycle-events.ts builds them). */
  readonly sink: Pick<EventSink, 'publish'>;
}

/**
 * Keeps the evaluation's outcome and publishes its facts' events, in an order a stop anywhere
 * survives: the facts are recorded as pending (the delta, with the clock and the hour) before their
 * events are published; the hour the session then records says they were. A rebase (`rebase`) then writes the
 * whole state as the new base and empties the delta. Nothing is written when nothing the delta
 * follows changed.
 */
export async function keepLifecycle(
  deps: KeepDeps,
  kept: KeptLifecycle | undefined,
  next: NextLifecycle,
  facts: readonly LifecycleFact[],
  rebase: boolean,
  /** Without `kept`: the versions of the items an unreadable base left (UnreadableLifecycleBaseError). */
  unreadable?: { readonly base: number; readonly delta: number },
): Promise<void> {
  const { store, clubId, nowMs } = deps;
  const baseVersion = kept?.stored.baseVersion ?? unreadable?.base ?? 0;
  let deltaVersion = kept?.stored.deltaVersion ?? unreadable?.delta ?? 0;
  const entries = kept ? deltaOf(kept.stored.base, next) : EMPTY;
  const deltaDoc = (more: Partial<DeltaDoc> = {}): DeltaDoc => ({
    delta: 1,
    baseVersion,
    writtenAtMs: nowMs,
    ...entries,
    ...more,
  });
  if (facts.length > 0) {
    if (!kept) throw new Error('lifecycle facts found before the first evaluation was kept');
    const pending = { facts, factsNowMs: nowMs, pendingHour: deps.hour };
    deltaVersion = await store.putLifecycle(deltaDoc(pending), deltaVersion, 'delta');
    await publishFacts(deps.sink, { clubId, zone: deps.zone, nowMs }, facts);
  }
  if (rebase || !kept) {
    const base: BaseDoc = { ...next.life, view: next.view, writtenAtMs: nowMs, ...silentFor(kept, next) };
    const version = await store.putLifecycle(base, baseVersion, 'base');
    if (deltaVersion > 0) {
      const emptied: DeltaDoc = { delta: 1, baseVersion: version, writtenAtMs: nowMs, ...EMPTY };
      await store.putLifecycle(emptied, deltaVersion, 'delta');
    }
  } else if (facts.length === 0 && keyOf(entries) !== kept.stored.deltaKey) {
    await store.putLifecycle(deltaDoc(), deltaVersion, 'delta');
  }
}

/** Subjects in the delta past which the next evaluation rebases (the delta stays a few KB). */
export const MAX_DELTA_SIZE = 1500;
