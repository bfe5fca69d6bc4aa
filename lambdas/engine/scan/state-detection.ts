/**
 * State detection: a subject's snapshot is compared with the stored one; the differences are
 * events. Per page: intents are stored (snapshot-intent.ts), the events published, then the new
 * snapshots committed. A poll that failed before its commit left an intent: its states are
 * published again (same eventIds) before the subject moves on.
 */

import { splitIntent, withIntent } from '../../common/snapshot-intent';
import type { BridgeEvent } from '../../events/catalog';
import { notesOfSnapshots } from '../../lifecycle/lifecycle-input';
import type { ClubContext, StateSource } from '../../sources/source';
import type { LifecycleNotes } from '../../state/lifecycle-notes';
import type { ClubSnapshots, LifecycleNoting } from '../../state/state-store';
import type { Snapshot } from '../../state/store';
import { addEvents, emptyPageEvents, type PageEvents, type PublishPage } from './publish-commit';
import { withoutPublished, withPublished } from './published-log';
import { eventErrorReason, type QuarantineEntry, quarantineEntry } from './quarantine';
import type { RowMarks } from './row-marks';
import type { Detection, EngineScan, IdentifiedRecord } from './scan-types';
import { SourceReads } from './source-reads';

/** The source's snapshot functions over records of unknown shape (the source checked them). */
interface SnapshotFunctions {
  readonly snapshotOf: (i: unknown, id: string, p: Snapshot | undefined, c: ClubContext) => Snapshot;
  readonly diff: (p: Snapshot | undefined, i: unknown, n: Snapshot, c: ClubContext) => BridgeEvent[];
  readonly backfill?: (i: unknown, n: Snapshot, c: ClubContext, from: number) => BridgeEvent[];
}

/** A page's work: the intents to store first, the events, then the snapshots to commit. */
interface PageWork extends PageEvents {
  readonly intents: Snapshot[];
  readonly changed: Snapshot[];
}

/**
 * Snapshots this scan wrote, kept so a re-read of the same subject in the same poll (a re-read
 * after offset drift, a page proving a repeat) compares with what was just written: snapshots are
 * read eventually consistent, and a read moments after the write may still return the state
 * before it (found by the chaos suite with stale reads: a second Prospect Created, in a newer
 * status, under another eventId). The most recent ones suffice: re-reads come seconds later.
 */
const WRITTEN_CACHE_SIZE = 10_000;

export class StateDetection implements Detection {
  readonly #fns: SnapshotFunctions;
  readonly #written = new Map<string, Snapshot>();
  /** The poll's context as of the page being detected (see `detect`). */
  private ctx: ClubContext;

  constructor(
    private readonly store: ClubSnapshots & LifecycleNoting,
    private readonly pollCtx: ClubContext,
    private readonly source: StateSource,
    private readonly publish: PublishPage,
    /** The regular lane's row marks (row-marks.ts): SourceScan gives the backfill lane none. */
    private readonly marks?: RowMarks,
    /** How the snapshots are read, and the mark a write leaves (source-reads.ts). */
    private readonly reads: SourceReads = new SourceReads(false),
  ) {
    this.ctx = pollCtx;
    this.#fns = {
      snapshotOf: source.snapshot as SnapshotFunctions['snapshotOf'],
      diff: source.diff as SnapshotFunctions['diff'],
      ...(source.backfillEvents ? { backfill: source.backfillEvents as SnapshotFunctions['backfill'] } : {}),
    };
  }

  /**
   * `readAtMs`: when the page was read. A page read later in the poll than its start may show a
   * change made after the start: its snapshots and events are as of the read (the snapshot's time
   * is when the bridge read the change, which the lifecycle rules take as the moment a subject
   * came to qualify), never before it.
   */
  async detect(
    records: readonly IdentifiedRecord[],
    scan: EngineScan,
    quarantine: QuarantineEntry[],
    readAtMs = this.pollCtx.observedAtMs,
  ) {
    this.ctx = { ...this.pollCtx, observedAtMs: Math.max(this.pollCtx.observedAtMs, readAtMs) };
    const latest = new Map<string, unknown>();
    for (const { id, item } of records) latest.set(id, item);
    if (latest.size === 0) return;
    // With row marks, each row's tracked-field hash (it depends on the record alone): a row the
    // marks name unchanged needs no read and no write.
    const { marks } = this;
    const hashes = new Map<string, string>();
    if (marks) {
      for (const [id, item] of latest)
        hashes.set(id, this.#fns.snapshotOf(item, id, undefined, this.ctx).hash);
    }
    const toRead = [...latest.keys()].filter((id) => !marks?.unchanged(id, hashes.get(id) as string));
    const toReadSet = new Set(toRead);
    const previous =
      toRead.length === 0
        ? new Map<string, Snapshot>()
        : await this.store.getSnapshots(this.source.snapshotKind, toRead, this.reads.readOptions());
    for (const id of toRead) {
      const written = this.#written.get(id);
      if (written) previous.set(id, written);
    }
    const work: PageWork = { ...emptyPageEvents(), intents: [], changed: [] };
    for (const id of toRead) {
      const item = latest.get(id);
      if (scan.mode === 'backfill') this.#backfillSubject(id, item, previous.get(id), scan, work, quarantine);
      else this.#regularSubject(id, item, previous.get(id), scan, work, quarantine);
    }
    const kind = this.source.snapshotKind;
    if (work.intents.length > 0 || work.changed.length > 0) await this.reads.beforeWrite();
    if (work.intents.length > 0) {
      this.#note(notesOfSnapshots(kind, work.intents));
      await this.store.putSnapshots(kind, work.intents);
      this.#remember(work.intents);
    }
    await this.publish(work, quarantine);
    if (work.changed.length > 0) {
      this.#note(notesOfSnapshots(kind, work.changed));
      await this.store.putSnapshots(kind, work.changed);
      this.#remember(work.changed);
    }
    // What is committed is known for the rows this page wrote and the rows it skipped. A row read
    // and found equal is not marked: its read was eventually consistent and may predate a write.
    if (marks) {
      for (const id of latest.keys()) if (!toReadSet.has(id)) marks.committed(id, hashes.get(id) as string);
      for (const s of work.changed) marks.committed(s.id, s.hash);
    }
  }

  /** Nothing held back: every page is detected as it is read. */
  async flush(): Promise<QuarantineEntry[]> {
    return [];
  }

  /** Nothing to keep beyond the snapshots each page wrote. */
  async finish(): Promise<void> {}

  #note(notes: LifecycleNotes | undefined): void {
    if (notes) this.store.noteLifecycle(notes);
  }

  #remember(snapshots: readonly Snapshot[]): void {
    for (const snapshot of snapshots) {
      this.#written.delete(snapshot.id);
      this.#written.set(snapshot.id, snapshot);
    }
    while (this.#written.size > WRITTEN_CACHE_SIZE)
      this.#written.delete(this.#written.keys().next().value as string);
  }

  /**
   * Every subject's backfill events (e.g. Member Joined since the start), known or not, in the
   * status its first announcement had (the snapshot's `firstStatus`): the regular poll's eventIds.
   * Stored snapshots are left alone (their next diff is the regular polls'); a subject announced
   * here that has none gets the one a regular poll would have written.
   */
  #backfillSubject(
    id: string,
    item: unknown,
    stored: Snapshot | undefined,
    scan: EngineScan,
    work: PageWork,
    quarantine: QuarantineEntry[],
  ): void {
    const { snapshotOf, diff, backfill } = this.#fns;
    const { committed, published } = splitIntent(stored);
    const next = snapshotOf(item, id, published.at(-1) ?? committed, this.ctx);
    let built: BridgeEvent[] = [];
    try {
      built =
        backfill && scan.backfillFromMs !== undefined
          ? backfill(item, next, this.ctx, scan.backfillFromMs)
          : [];
      // A subject it announces without a snapshot gets the one a regular poll would have
      // written: it also publishes what that poll's first sighting would have (e.g. a
      // cancellation already set), or no later diff would.
      if (!stored && built.length > 0) {
        const ids = new Set(built.map((e) => e.detail.eventId));
        built.push(...diff(undefined, item, next, this.ctx).filter((e) => !ids.has(e.detail.eventId)));
      }
    } catch (err) {
      quarantine.push(quarantineEntry(item, eventErrorReason(err)));
    }
    addEvents(work, built, item);
    if (!stored && built.length > 0) {
      const logged = withPublished(next, undefined, built);
      work.intents.push(withIntent(undefined, [logged]));
      work.changed.push(logged);
    }
  }

  /**
   * Polls that failed before their commit may have published committed -> ... -> last, and the
   * subject may have moved on since (even back): publish those again (same ids: consumers
   * de-duplicate) and carry on from there, so no consumer keeps a state that is gone.
   */
  #regularSubject(
    id: string,
    item: unknown,
    stored: Snapshot | undefined,
    scan: EngineScan,
    work: PageWork,
    quarantine: QuarantineEntry[],
  ): void {
    const { snapshotOf, diff } = this.#fns;
    const { committed, published } = splitIntent(stored);
    const last = published.at(-1) ?? committed;
    const seen = snapshotOf(item, id, last, this.ctx);
    if (published.length === 0 && committed && committed.hash === seen.hash) return;
    const moved = !last || last.hash !== seen.hash;
    const built: BridgeEvent[] = [];
    const transitions = (before: Snapshot | undefined, state: Snapshot): BridgeEvent[] =>
      scan.mode === 'baseline' ? [] : diff(before, item, state, this.ctx);
    try {
      let before = committed;
      for (const state of published) {
        built.push(...transitions(before, state));
        before = state;
      }
      if (moved) built.push(...transitions(last, seen));
    } catch (err) {
      quarantine.push(quarantineEntry(item, eventErrorReason(err)));
    }
    addEvents(work, built, item);
    // The snapshot carries the events last published for the subject (explain reads them): the
    // committed log and this poll's events (which include any an intent left: rebuilt above).
    const next = withPublished(seen, committed, built);
    const states = moved ? [...published, seen] : published;
    if (built.length > 0) work.intents.push(withIntent(committed, states.map(withoutPublished)));
    work.changed.push(next);
  }
}
