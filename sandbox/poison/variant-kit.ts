/** The parts every stored poison variant is made of (the variants: *-variants.ts). */
import type { PoisonExpectation } from './poison-log';
import type { StoredPoisonKind } from './settings';
import { getPath, type PoisonSeed, type RecordShape, setPath } from './shape-common';

export interface SpoiltRecord {
  /** The poisoned field (dotted path), `*` when the whole record is. */
  readonly field: string;
  readonly expect: PoisonExpectation;
  /** Set when the marker moved out of the number field (because that is what is spoilt). */
  readonly markerField?: string;
  /** Served this many times in a row. @default 1 */
  readonly copies?: number;
}

export interface StoredVariant {
  readonly kind: StoredPoisonKind;
  readonly name: string;
  /** `kind/name`, as `poison.variants` and the log name it. */
  readonly id: string;
  fits(shape: RecordShape): boolean;
  /** Spoils `record` (the shape's base record, marker in the number field) in place. */
  spoil(record: Record<string, unknown>, shape: RecordShape, seed: PoisonSeed): SpoiltRecord;
}

export type Spoil = StoredVariant['spoil'];

export const variant = (
  kind: StoredPoisonKind,
  name: string,
  fits: (s: RecordShape) => boolean,
  spoil: Spoil,
): StoredVariant => ({ kind, name, id: `${kind}/${name}`, fits, spoil });

/** A breach of what the document says about the field: quarantine when it identifies or dates. */
export const breach = (shape: RecordShape, identifiesOrDates: boolean): PoisonExpectation =>
  shape.documented && identifiesOrDates ? 'quarantine' : 'either';

/** Puts `value` in the number field and the marker in the fallback field. */
export function spoilNumber(
  record: Record<string, unknown>,
  shape: RecordShape,
  seed: PoisonSeed,
  value: unknown,
) {
  setPath(record, shape.numberField, value);
  const fallback = shape.fallbackMarkerField;
  setPath(record, fallback, `${String(getPath(record, fallback) ?? '')} ${seed.marker}`.trimStart());
  return { field: shape.numberField, markerField: fallback };
}
