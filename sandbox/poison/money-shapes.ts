/** Poison base records of the money-side operations: payments, POS, disbursements, debt collection. */

import { FEE_BREAKDOWN_FIELDS as FEE_FIELDS } from '../../lambdas/gym-api/schemas';
import { formatNaive } from '../naive-time';
import { oneLineAddress } from '../people';
import { zeroDisbursementBreakdown } from '../records';
import {
  ambiguousKey,
  POISON_PAYMENT_ID_BASE,
  POISON_POS_ID_BASE,
  POISON_POS_ITEM_ID_BASE,
  person,
  poisonNumber,
  type RecordShape,
} from './shape-common';

const fees = (subscription: number) => ({
  ...(Object.fromEntries(FEE_FIELDS.map((f) => [f, 0])) as Record<(typeof FEE_FIELDS)[number], number>),
  SubscriptionFee: subscription,
});

export const paymentHistory: RecordShape = {
  operation: 'paymentHistory',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: false,
  fallbackMarkerField: 'PaymentDescription',
  timeFields: ['PaymentDate'],
  timeIsIdentity: false,
  dateFields: [],
  idFields: ['Id', 'Refund.RefundedPaymentId'],
  idIsIdentity: true,
  amountField: 'FeeBreakdown.0.SubscriptionFee',
  stringField: 'PaymentDescription',
  booleanField: 'Refund.IsRefunded',
  objectField: 'PaymentForReference',
  arrayField: 'FeeBreakdown',
  enums: [
    ['PaymentType', ['BPAY', 'EFT']],
    ['Response', ['Pending - Awaiting Bank', 'Processing']],
  ],
  keys: ambiguousKey,
  base: (s, k) => ({
    Id: POISON_PAYMENT_ID_BASE + BigInt(s.n),
    Number: `${poisonNumber(s.n)}${s.marker}`,
    PaymentDate: formatNaive(k.key),
    PaymentType: 'CC',
    Response: 'Approved',
    PaymentDescription: 'Guest pass',
    PaymentForReference: { Id: 4, Name: 'Casual Visit' },
    FeeBreakdown: [fees(25)],
    Refund: { IsRefunded: false, RefundedPaymentId: null },
  }),
};

export const posTransactions: RecordShape = {
  operation: 'posTransactions',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'Till',
  timeFields: ['TransactionDate'],
  timeIsIdentity: false,
  dateFields: [],
  idFields: ['PosTransactionId', 'Items.0.ItemId'],
  idIsIdentity: true,
  amountField: 'TotalIncTax',
  stringField: 'Items.0.Description',
  booleanField: 'Items.0.IsVoided',
  objectField: 'Items.0',
  arrayField: 'Items',
  enums: [['TransactionType', ['Exchange', 'Void']]],
  keys: ambiguousKey,
  base: (s, k) => ({
    PosTransactionId: POISON_POS_ID_BASE + BigInt(s.n),
    TransactionDate: formatNaive(k.key),
    TransactionType: 'Sale',
    TotalExTax: 4.09,
    TotalIncTax: 4.5,
    Till: 'Front Desk 1',
    Items: [
      {
        ItemId: POISON_POS_ITEM_ID_BASE + BigInt(s.n),
        ProductId: 1001n,
        ProductName: 'Water 600ml',
        Description: 'Water 600ml',
        PriceExTax: 4.09,
        PriceIncTax: 4.5,
        Quantity: 1,
        Tax: 0.41,
        Discount: 0,
        CategoryId: 10n,
        CategoryName: 'Drinks',
        SubCategoryId: 101n,
        SubCategoryName: 'Water',
        IsRefunded: false,
        IsVoided: false,
      },
    ],
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
  }),
};

export const disbursements: RecordShape = {
  operation: 'disbursements',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'Department',
  timeFields: ['TransactionDate'],
  timeIsIdentity: false,
  dateFields: ['DisbursementDate'],
  idFields: [],
  idIsIdentity: false,
  amountField: 'Amount',
  stringField: 'Department',
  objectField: 'Breakdown',
  enums: [
    ['PaymentType', ['EFT', 'BPAY']],
    ['Department', ['Kids Club']],
  ],
  keys: ambiguousKey,
  base: (s, k) => ({
    DisbursementDate: formatNaive(s.store.profile.timeZone.localDayStart(s.atMs)),
    TransactionDate: formatNaive(k.key),
    Amount: 25,
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    Department: 'Membership',
    PaymentType: 'CC',
    Breakdown: { ...zeroDisbursementBreakdown(), Membership: 25 },
  }),
};

export const debtCollection: RecordShape = {
  operation: 'debtCollection',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: ['DebtCollectionDate'],
  timeIsIdentity: true,
  dateFields: [],
  idFields: [],
  idIsIdentity: false,
  amountField: 'Amount',
  stringField: 'Address',
  emailField: 'Email',
  enums: [],
  keys: ambiguousKey,
  base: (s, k) => {
    const p = person(s);
    return {
      Amount: 129.5,
      DebtCollectionDate: formatNaive(k.key),
      MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Email: p.contact.Email,
      Mobile: p.contact.Mobile,
      Address: oneLineAddress(p.contact),
    };
  },
};
