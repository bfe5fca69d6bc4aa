/**
 * Output-side schemas of the API records carried in an event's `data`.
 *
 * They are the resource schemas of ../gym-api/schemas.ts with two differences:
 * - int64 ids are decimal strings only. The API schemas accept a number or a string and transform
 *   it to a string; a transform has no JSON Schema, and an event always carries the string.
 * - Fields the `minimal` PII policy removes are optional, even where the API requires them
 *   (`Contact.Email`), so a minimised record still validates.
 *
 * Unknown extra fields are accepted (loose objects), exactly as the API schemas do: the `full` policy
 * carries them; `minimal` carries only the fields of its allow-lists (./pii-allow-lists.ts), each a
 * documented field of the API schemas these extend (a test checks it), and every field it drops is
 * optional here, so a minimised record validates.
 */
import { z } from 'zod';
import {
  ContactSchema,
  DebtCollectionSchema,
  DisbursementSchema,
  MemberPaymentHistorySchema,
  MemberPosTransactionSchema,
  MemberSchema,
  MemberVisitSchema,
  PosTransactionItemSchema,
  ProspectSchema,
  RefundSchema,
} from '../gym-api/schemas';

/** An int64 id as carried in events: a decimal string, so ids above 2^53 keep every digit. */
export const Int64String = z
  .string()
  .regex(/^-?\d{1,19}$/, 'int64 ids are decimal strings')
  .describe('64-bit integer id as a decimal string');

const nullableId = Int64String.nullish();

export const ContactData = ContactSchema.extend({ Email: z.string().nullish() });

export const MemberData = MemberSchema.extend({ Contact: ContactData.nullish() });
export type MemberData = z.infer<typeof MemberData>;

export const ProspectData = ProspectSchema.extend({ Contact: ContactData.nullish() });
export type ProspectData = z.infer<typeof ProspectData>;

export const MemberVisitData = MemberVisitSchema;
export type MemberVisitData = z.infer<typeof MemberVisitData>;

export const PaymentData = MemberPaymentHistorySchema.extend({
  Id: nullableId,
  Refund: RefundSchema.extend({ RefundedPaymentId: nullableId }).nullish(),
});
export type PaymentData = z.infer<typeof PaymentData>;

export const PosTransactionItemData = PosTransactionItemSchema.extend({
  ItemId: nullableId,
  ProductId: nullableId,
  CategoryId: nullableId,
  SubCategoryId: nullableId,
});

export const PosTransactionData = MemberPosTransactionSchema.extend({
  PosTransactionId: nullableId,
  Items: z.array(PosTransactionItemData).nullish(),
});
export type PosTransactionData = z.infer<typeof PosTransactionData>;

export const DisbursementData = DisbursementSchema;
export type DisbursementData = z.infer<typeof DisbursementData>;

export const DebtCollectionData = DebtCollectionSchema;
export type DebtCollectionData = z.infer<typeof DebtCollectionData>;

/**
 * GET /members/attendance/classes: shape not shown by the API document. Carried as the API gave it
 * under the `full` PII policy; under `minimal` only the fields of a list of non-person names
 * (./pii-allow-lists.ts), so it may be empty.
 */
export const ClassAttendanceData = z.looseObject({});
export type ClassAttendanceData = z.infer<typeof ClassAttendanceData>;
