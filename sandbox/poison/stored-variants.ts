/**
 * The catalogue of stored poison: each variant spoils one field (or adds one) of a valid base
 * record (record-shapes.ts), and says what a bridge should do with the result. A variant that
 * does not fit an operation (no int64 in a visit) is never drawn for it.
 */
import { IDENTITY, INT64 } from './key-variants';
import { NULLS, WRONG_TYPES } from './type-variants';
import { DATE_VARIANTS, DEEP, OVERSIZED, REPEATED, UNKNOWN_ENUMS } from './value-variants';
import type { StoredVariant } from './variant-kit';

export type { SpoiltRecord, StoredVariant } from './variant-kit';

export const STORED_VARIANTS: readonly StoredVariant[] = [
  ...IDENTITY,
  ...INT64,
  ...NULLS,
  ...WRONG_TYPES,
  ...UNKNOWN_ENUMS,
  ...DATE_VARIANTS,
  ...DEEP,
  ...OVERSIZED,
  ...REPEATED,
];

export const STORED_VARIANT_IDS: readonly string[] = STORED_VARIANTS.map((v) => v.id);
