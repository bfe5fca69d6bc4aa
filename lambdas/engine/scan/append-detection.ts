/**
 * Append detection: a record's facets are new when their fingerprints are not in the seen set.
 * Regular lane: the facets not in the seen set are published (none in a baseline), then filed in
 * it. Backfill lane: every facet is published, seen or not (same eventIds); those the seen set
 * lacks and the regular polls can still meet are filed in it, so the next regular poll does not
 * publish them again. Facets with a `track` learn their group's earlier values from the seen set.
 */
import { toInstant } from '../../sources/record-time';
import { type AppendSource, type ClubContext, type Facet, tailLookbackFor } from '../../sources/source';
import type { SeenAt, SeenStore } from '../../state/store';
import { fingerprint } from './fingerprint';
import { addEvents, emptyPageEvents, type PublishPage } from './publish-commit';
import { eventErrorReason, type QuarantineEntry, quarantineEntry } from './quarantine';
import { iso, type ScanMode } from './scan-types';
import { SeenWindow, seenTag } from './seen-window';

/** Seen keys outlive the regular polls' window by this margin (a zone misreading). */
const SEEN_MARGIN_MS = 2 * 86_400_000;

interface FacetRead {
  readonly facet: Facet;
  readonly item: unknown;
  readonly at: string | undefined;
}

export interface IdentifiedRecord {
  readonly id: string;
  readonly item: unknown;
}

export class AppendDetection {
  readonly #seen: SeenWindow;

  constructor(
    private readonly store: SeenStore,
    private readonly ctx: ClubContext,
    private readonly source: AppendSource,
    private readonly startMs: number,
    private readonly publish: PublishPage,
  ) {
    this.#seen = new SeenWindow(store, ctx.clubId, source.name, startMs);
  }

  async detect(
    records: readonly IdentifiedRecord[],
    mode: ScanMode,
    quarantine: QuarantineEntry[],
  ): Promise<void> {
    const facets = this.#facetsOf(records);
    if (facets.size === 0) return;
    const backfill = mode === 'backfill';
    const keys = [...facets.keys()];
    // The backfill publishes untimed facets without asking the per-key set (one read per key).
    const asked = backfill ? keys.filter((k) => facets.get(k)!.at !== undefined) : keys;
    const seen = await this.#seen.seenAmong(asked, (k) => facets.get(k)!.at);
    const fresh = keys.filter((k) => !seen.has(k));
    const publish = backfill ? keys : fresh;
    if (publish.length === 0) return;
    const page = emptyPageEvents();
    if (mode !== 'baseline') {
      for (const key of publish) this.#buildEvents(facets.get(key)!, page, quarantine);
    }
    await this.publish(page, quarantine);
    await this.#fileSeen(fresh, facets, backfill);
  }

  #facetsOf(records: readonly IdentifiedRecord[]): Map<string, FacetRead> {
    const facets = new Map<string, FacetRead>();
    const facetsOf = this.source.facets as (i: unknown, id: string) => Facet[];
    for (const { id, item } of records) {
      const at = this.#recordAt(item);
      for (const facet of facetsOf(item, id)) facets.set(fingerprint(facet.key), { facet, item, at });
    }
    return facets;
  }

  #buildEvents(
    { facet, item }: FacetRead,
    page: ReturnType<typeof emptyPageEvents>,
    quarantine: QuarantineEntry[],
  ) {
    try {
      const earlier = facet.track ? this.#seen.earlierValues(facet.track) : undefined;
      addEvents(page, facet.events(this.ctx, earlier), item);
    } catch (err) {
      quarantine.push(quarantineEntry(item, eventErrorReason(err)));
    }
  }

  /** Files the fresh keys in the seen set (the backfill: only those the regular polls can meet). */
  async #fileSeen(fresh: readonly string[], facets: ReadonlyMap<string, FacetRead>, backfill: boolean) {
    const window = Math.max(tailLookbackFor(this.source, this.ctx), this.source.sweep?.windowMs ?? 0);
    const expiresAt = Math.ceil((this.startMs + window + SEEN_MARGIN_MS) / 1000);
    // What the regular polls can still read: their window, with the margin for a zone misreading.
    const reach = iso(this.startMs - window - SEEN_MARGIN_MS);
    const timed: SeenAt[] = [];
    const untimed: string[] = [];
    for (const key of fresh) {
      const { at, facet } = facets.get(key)!;
      if (at === undefined) {
        if (!backfill) untimed.push(key);
        continue;
      }
      if (backfill && at < reach) continue;
      const tag = facet.track ? seenTag(facet.track) : undefined;
      timed.push({
        fingerprint: key,
        at,
        ...(tag ?? {}),
        ...(facet.memo === undefined ? {} : { memo: facet.memo }),
      });
      this.#seen.add(key, tag);
    }
    for (const key of untimed) this.#seen.add(key);
    const { clubId } = this.ctx;
    if (timed.length > 0) await this.store.putSeenAt(clubId, this.source.name, timed, expiresAt);
    if (untimed.length > 0) await this.store.putSeen(clubId, this.source.name, untimed, expiresAt);
  }

  /**
   * The record's instant (UTC ISO with ms) for the time-ordered seen set; undefined if it has none,
   * or one outside the fixed 24-character form the set sorts by (years before 0 or after 9999).
   */
  #recordAt(item: unknown): string | undefined {
    const recordTime = this.source.recordTime as ((i: unknown) => string | null | undefined) | undefined;
    const value = recordTime?.(item);
    if (!value) return undefined;
    try {
      const ms = toInstant(value, this.source.filterZone, this.ctx);
      const at = Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
      return at?.length === 24 ? at : undefined;
    } catch {
      return undefined;
    }
  }
}
