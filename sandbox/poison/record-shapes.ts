/** Every operation's poison base record and field roles (shape-common.ts), by operation. */
import type { OperationName } from '../../lambdas/gym-api/operations';
import { debtCollection, disbursements, paymentHistory, posTransactions } from './money-shapes';
import { classAttendance, members, prospects, visits } from './people-shapes';
import type { RecordShape } from './shape-common';

export {
  getPath,
  POISON_PAYMENT_ID_BASE,
  POISON_POS_ID_BASE,
  POISON_POS_ITEM_ID_BASE,
  type PoisonKeys,
  type PoisonSeed,
  poisonNumber,
  type RecordShape,
  setPath,
} from './shape-common';

export const RECORD_SHAPES: Readonly<Record<OperationName, RecordShape>> = {
  members,
  prospects,
  visits,
  paymentHistory,
  posTransactions,
  disbursements,
  debtCollection,
  classAttendance,
};
