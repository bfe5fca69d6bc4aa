/**
 * Snapshot intents: what a page is about to publish, stored before it publishes. The scan writes
 * them (engine/scan/state-detection.ts); the lifecycle evaluation and `explain` read a subject's
 * latest state through them: here, beside the snapshot's type (subject-snapshot.ts), below all three.
 *
 * Stored format (unchanged from earlier versions, so items they wrote read the same): the intent
 * lives in the snapshot's `fields` under `publishing` (an array of `{id, hash, fields, updatedAt}`,
 * oldest first; a single object is read as a one-element array). A subject with no committed
 * snapshot yet is stored with `hash: 'nothingCommitted'` and `fields.nothingCommitted: true`.
 */
import type { Snapshot } from './subject-snapshot';

/** Snapshot field holding the state a page is about to publish transitions to (an intent). */
const INTENT_FIELD = 'publishing';
/** Marks an intent stored for a subject that has no committed snapshot yet. */
const NOTHING_COMMITTED = 'nothingCommitted';

/** A stored snapshot read as the committed state and the states failed polls may have published. */
export interface SnapshotIntent {
  readonly committed?: Snapshot;
  readonly published: Snapshot[];
}

/**
 * The stored snapshot with an intent: the committed state plus the states about to be published,
 * in order (more than one when polls in a row failed before their commit). Written before
 * publishing and replaced by the plain new snapshot after, so a poll that fails in between leaves
 * behind what consumers may have been told.
 */
export function withIntent(committed: Snapshot | undefined, states: readonly Snapshot[]): Snapshot {
  const intent = states.map((s) => ({ id: s.id, hash: s.hash, fields: s.fields, updatedAt: s.updatedAt }));
  const last = states.at(-1)!;
  return committed
    ? { ...committed, fields: { ...committed.fields, [INTENT_FIELD]: intent } }
    : {
        id: last.id,
        hash: NOTHING_COMMITTED,
        fields: { [INTENT_FIELD]: intent, [NOTHING_COMMITTED]: true },
        updatedAt: last.updatedAt,
      };
}

/** A stored snapshot split into the committed state and the intent failed polls left, if any. */
export function splitIntent(stored: Snapshot | undefined): SnapshotIntent {
  if (!stored) return { published: [] };
  const { [INTENT_FIELD]: intent, [NOTHING_COMMITTED]: nothing, ...fields } = stored.fields;
  if (intent === undefined) return { committed: stored, published: [] };
  const published = (Array.isArray(intent) ? intent : [intent]) as Snapshot[];
  return { ...(nothing ? {} : { committed: { ...stored, fields } }), published };
}
