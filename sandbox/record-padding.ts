/**
 * Larger records, as a real API may serve them: the seed lists each resource's fields but does not
 * forbid more, and a real club's records carry what its software adds (notes, custom fields,
 * external references). With `recordScale` above 1 every record a data page serves gets such
 * fields, sized so that its JSON is about `recordScale` times its own. They are fields the seed
 * does not name (`Notes`, `CustomFields`, `ExternalReferences`), so the bridge keeps them as
 * unknown extra fields and nothing it checks changes meaning; the stored records, the journal and
 * every filter are as they were. The same record always gets the same fields: their words come
 * from a stream seeded by the record's own JSON.
 */
import { stringifyWithInt64 } from './json-output';
import { SeededRandom } from './sandbox-random';

/** The most a record may be scaled by: a record stays well under the client's 128 KB per record. */
export const MAX_RECORD_SCALE = 16;

const NOTE_PHRASES = [
  'Prefers early morning sessions.',
  'Asked about the family membership at the front desk.',
  'Referred by a friend who trains on weekday evenings.',
  'Goal: build strength and improve mobility before the season.',
  'Interested in the new reformer pilates timetable.',
  'Called about a payment date change; no change made.',
  'Injury noted during induction: lower back, cleared by physio.',
  'Would like a follow-up with a personal trainer next month.',
  'Uses the pool mostly; not interested in group classes.',
  'Collected a replacement access card.',
  'Travelling for work, may suspend for two weeks.',
  'Happy with the induction; booked a program review.',
] as const;

const CUSTOM_FIELDS = [
  ['Emergency contact', ['Partner', 'Parent', 'Sibling', 'Friend']],
  ['Referral code', ['SPRING-FRIEND', 'CORP-WELLNESS', 'OPEN-DAY', 'STUDENT-WEEK']],
  ['Preferred location', ['Main floor', 'Aquatic centre', 'Studio 2', 'Outdoor deck']],
  ['Marketing segment', ['Returning member', 'New to fitness', 'Athlete', 'Senior active']],
  ['Induction trainer', ['Sam R.', 'Alex M.', 'Jordan P.', 'Casey L.']],
  ['Corporate partner', ['None', 'Health fund', 'City council', 'University']],
] as const;

/** Checks a `recordScale` setting: a finite number from 1 to MAX_RECORD_SCALE. */
export function recordScaleProblem(scale: unknown): string | undefined {
  if (typeof scale === 'number' && Number.isFinite(scale) && scale >= 1 && scale <= MAX_RECORD_SCALE)
    return undefined;
  return `recordScale must be a number from 1 to ${MAX_RECORD_SCALE}, got ${String(scale)}`;
}

/** One extra part: a note, a custom field or a reference, and the JSON it adds to the record. */
type Part =
  | { readonly kind: 'note'; readonly text: string; readonly cost: number }
  | { readonly kind: 'custom'; readonly field: { Name: string; Value: string }; readonly cost: number }
  | { readonly kind: 'reference'; readonly text: string; readonly cost: number };

interface Extra {
  readonly notes: string[];
  readonly custom: { Name: string; Value: string }[];
  readonly references: string[];
}

/** The next part: its text, its quotes and separator, and its field's name when it is the first. */
function nextPart(rng: SeededRandom, extra: Extra): Part {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    const text = rng.pick(NOTE_PHRASES);
    return { kind: 'note', text, cost: text.length + (extra.notes.length === 0 ? 11 : 1) };
  }
  if (kind === 1) {
    const [name, values] = rng.pick(CUSTOM_FIELDS);
    const field = { Name: name, Value: rng.pick(values) };
    const cost = name.length + field.Value.length + 22 + (extra.custom.length === 0 ? 18 : 1);
    return { kind: 'custom', field, cost };
  }
  const text = `CRM-${rng.int(100_000, 999_999)}-${rng.int(10, 99)}`;
  return { kind: 'reference', text, cost: text.length + 2 + (extra.references.length === 0 ? 24 : 1) };
}

/** A record with extra fields making its JSON about `scale` times as long (the same one at 1). */
export function paddedRecord(record: unknown, scale: number): unknown {
  if (scale <= 1 || typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const own = stringifyWithInt64(record);
  const wanted = Math.round(own.length * (scale - 1));
  const rng = new SeededRandom(own, 'record-padding');
  const extra: Extra = { notes: [], custom: [], references: [] };
  let added = 0;
  for (;;) {
    const part = nextPart(rng, extra);
    // Stop at the size nearest the one wanted.
    if (wanted - added < part.cost / 2) break;
    added += part.cost;
    if (part.kind === 'note') extra.notes.push(part.text);
    else if (part.kind === 'custom') extra.custom.push(part.field);
    else extra.references.push(part.text);
  }
  return {
    ...record,
    ...(extra.notes.length > 0 ? { Notes: extra.notes.join(' ') } : {}),
    ...(extra.custom.length > 0 ? { CustomFields: extra.custom } : {}),
    ...(extra.references.length > 0 ? { ExternalReferences: extra.references } : {}),
  };
}

/** A page's records scaled (the same array at 1). */
export function paddedRecords(records: unknown[], scale: number): unknown[] {
  return scale <= 1 ? records : records.map((r) => paddedRecord(r, scale));
}
