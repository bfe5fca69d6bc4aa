/** Club contexts and API records shared by the source tests (fictitious data). */
import type { ItemOf } from '../../../lambdas/gym-api/operations';
import type { ClubContext } from '../../../lambdas/sources/source';

/** A Sydney club (AEST +10 in June, AEDT +11 in January), unstated zones read as local. */
export const sydney: ClubContext = {
  clubId: 'club-syd',
  timeZone: 'Australia/Sydney',
  unstatedZone: 'local',
  piiPolicy: 'minimal',
  observedAtMs: Date.parse('2025-06-02T00:00:00Z'),
};

export const sydneyUtc: ClubContext = { ...sydney, unstatedZone: 'utc' };

export const member = (overrides: Partial<ItemOf<'members'>> = {}): ItemOf<'members'> => ({
  Number: 'M100',
  FirstName: 'Alex',
  LastName: 'Example',
  Status: 'Active',
  Barcode: '2000100',
  DateOfBirth: '1990-05-17T00:00:00',
  LastUpdatedUtcDateTime: '2025-06-01T06:00:00',
  Contact: {
    Email: 'alex@example.com',
    Mobile: '0400 000 000',
    OptOutEmail: false,
    OptOutSms: false,
    State: 'NSW',
  },
  Membership: {
    Id: 7,
    Name: 'Gold 12 Month',
    StartDate: '2025-05-01T00:00:00',
    Type: 'Contract',
  },
  ...overrides,
});

export const prospect = (overrides: Partial<ItemOf<'prospects'>> = {}): ItemOf<'prospects'> => ({
  Number: 'P200',
  FirstName: 'Sam',
  LastName: 'Sample',
  Status: 'Enquiry',
  CreatedDateUtc: '2025-06-01T06:00:00',
  Contact: { Email: 'sam@example.com', OptOutEmail: false },
  ...overrides,
});

export const visit = (overrides: Partial<ItemOf<'visits'>> = {}): ItemOf<'visits'> => ({
  MemberNumber: 'M100',
  Door: 'Front',
  ScanSource: 'Gate',
  VisitDateTime: '2025-06-01T06:00:00',
  ...overrides,
});

export const payment = (overrides: Partial<ItemOf<'paymentHistory'>> = {}): ItemOf<'paymentHistory'> => ({
  Id: '9007199254740993',
  Number: 'M100',
  PaymentDate: '2025-06-01T06:00:00',
  PaymentType: 'DD',
  Response: 'Approved',
  PaymentDescription: 'Fortnightly direct debit',
  FeeBreakdown: [{ SubscriptionFee: 29.95, TransactionFee: 0.5 }],
  ...overrides,
});

export const posTransaction = (
  overrides: Partial<ItemOf<'posTransactions'>> = {},
): ItemOf<'posTransactions'> => ({
  PosTransactionId: '4001',
  TransactionDate: '2025-06-01T06:00:00',
  TransactionType: 'Sale',
  TotalExTax: 10,
  TotalIncTax: 11,
  Till: 'Front desk',
  MemberNumber: 'M100',
  ...overrides,
});

export const disbursement = (overrides: Partial<ItemOf<'disbursements'>> = {}): ItemOf<'disbursements'> => ({
  DisbursementDate: '2025-06-03T00:00:00',
  TransactionDate: '2025-06-01T06:00:00',
  Amount: 29.95,
  MemberNumber: 'M100',
  Department: 'Memberships',
  PaymentType: 'DD',
  ...overrides,
});

export const debtCollection = (
  overrides: Partial<ItemOf<'debtCollection'>> = {},
): ItemOf<'debtCollection'> => ({
  Amount: 120,
  DebtCollectionDate: '2025-06-01T06:00:00',
  MemberNumber: 'M100',
  FirstName: 'Alex',
  LastName: 'Example',
  Email: 'alex@example.com',
  Mobile: '0400 000 000',
  Address: '1 Example Street',
  ...overrides,
});

export const classAttendance = (overrides: Record<string, unknown> = {}): ItemOf<'classAttendance'> => ({
  ClassName: 'Spin',
  ClassDateTime: '2025-06-01T06:00:00',
  MemberNumber: 'M100',
  ...overrides,
});

/** UTC instant of an ISO string with Z. */
export const utc = (iso: string) => Date.parse(iso);
