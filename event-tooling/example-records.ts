/**
 * The fictitious records and envelope options behind the example events (./examples.ts): one
 * member, one prospect, one payment, with every field a record can carry (`full` PII policy).
 */
import type { EnvelopeOptions } from '../lambdas/events/envelope';

const clubId = 'club-1';
const observedAt = '2025-03-04T22:15:07.000Z';
export const base = (
  identity: string[],
  occurredAt: string,
  extra: Partial<EnvelopeOptions> = {},
): EnvelopeOptions => ({
  clubId,
  identity,
  occurredAt,
  observedAt,
  piiPolicy: 'full',
  ...extra,
});

export const member = {
  Number: 'M10042',
  FirstName: 'Alex',
  LastName: 'Example',
  Status: 'PaymentIssue',
  Barcode: '200010042',
  DateOfBirth: '1990-05-17T00:00:00',
  Gender: 'Female',
  LastUpdatedUtcDateTime: '2025-03-04T22:10:00',
  Contact: {
    Email: 'alex@example.com',
    OptOutEmail: false,
    Mobile: '0400 000 000',
    OptOutSms: true,
    Address: '1 Example Street',
    Suburb: 'Surry Hills',
    State: 'NSW',
    Postcode: '2010',
  },
  Membership: {
    Id: 7,
    Name: 'Direct Debit Fortnightly',
    StartDate: '2024-01-15T00:00:00',
    SaleDate: '2024-01-12T00:00:00',
    Type: 'Direct Debit',
  },
};

export const prospect = {
  Number: 'P2001',
  FirstName: 'Sam',
  LastName: 'Sample',
  Status: 'OnTrial',
  TrialStartDate: '2025-03-04T00:00:00',
  TrialEndDate: '2025-03-11T00:00:00',
  CreatedDateUtc: '2025-03-01T04:30:00',
  ContactMethod: { Id: 2, Name: 'Web form' },
  Source: { Id: 5, Name: 'Instagram' },
  SourcePage: '/free-trial',
  SalesPerson: { Id: 31, FirstName: 'Jo', LastName: 'Staff', Email: 'jo@example.com' },
  Contact: { Email: 'sam@example.com', OptOutEmail: false, OptOutSms: false, State: 'NSW' },
};

export const payment = {
  Id: '9007199254740993',
  Number: 'M10042',
  PaymentDate: '2025-03-03T02:00:00',
  PaymentType: 'DD',
  Response: 'Dishonoured - Account Closed',
  PaymentDescription: 'Fortnightly membership',
  PaymentForReference: { Id: 7, Name: 'Direct Debit Fortnightly' },
  FeeBreakdown: [{ SubscriptionFee: 39.9, TransactionFee: 0.5 }],
  Refund: { IsRefunded: false },
};
