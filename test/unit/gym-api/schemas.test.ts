import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import { PageEnvelopeSchema, TokenResponseSchema } from '../../../lambdas/gym-api/protocol-schemas';
import {
  ClassAttendanceSchema,
  DebtCollectionSchema,
  DisbursementSchema,
  MemberPaymentHistorySchema,
  MemberPosTransactionSchema,
  MemberSchema,
  MemberVisitSchema,
  ProspectSchema,
} from '../../../lambdas/gym-api/schemas';

function pathOfFirstIssue(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return result.success ? '' : (result.error.issues[0]?.path ?? []).map(String).join('.');
}

const fullMember = {
  Number: 'M1001',
  FirstName: 'Ada',
  LastName: 'Lovelace',
  Status: 'Active',
  Barcode: 'B1',
  FitnessPassportNumber: 'FP1',
  DateOfBirth: '1990-05-01T00:00:00',
  Gender: 'F',
  LastUpdatedUtcDateTime: '2025-03-01T10:00:00.123',
  Contact: {
    Email: 'ada@example.com',
    OptOutEmail: false,
    Mobile: '0400',
    OptOutSms: true,
    Postcode: '2000',
  },
  Membership: {
    Id: 7,
    Name: 'Monthly',
    StartDate: '2025-01-01T00:00:00',
    SaleDate: '2024-12-30T12:00:00',
    Type: 'DirectDebit',
  },
};

describe('MemberSchema', () => {
  it('accepts a full member and keeps unknown fields at every level', () => {
    const parsed = MemberSchema.parse({
      ...fullMember,
      NewTopLevel: 1,
      Contact: { ...fullMember.Contact, Fax: 'x' },
      Membership: { ...fullMember.Membership, Freeze: true },
    });
    expect(parsed.NewTopLevel).toBe(1);
    expect(parsed.Contact?.Fax).toBe('x');
    expect(parsed.Membership?.Freeze).toBe(true);
  });

  it('accepts a member with every optional field absent, or null', () => {
    expect(MemberSchema.safeParse({}).success).toBe(true);
    expect(MemberSchema.safeParse({ Number: null, Contact: null, Membership: null }).success).toBe(true);
  });

  it('accepts a membership without its value-only dates (cancellation, minimum term, expiry)', () => {
    const parsed = MemberSchema.parse(fullMember);
    expect(parsed.Membership?.CancellationDate).toBeUndefined();
    expect(parsed.Membership?.ExpiryDate).toBeUndefined();
  });

  it('requires Membership Id, Name, StartDate and Type when Membership is present', () => {
    const { Type: _type, ...withoutType } = fullMember.Membership;
    expect(pathOfFirstIssue(MemberSchema, { ...fullMember, Membership: withoutType })).toBe(
      'Membership.Type',
    );
  });

  it('requires Contact.Email when Contact is present', () => {
    expect(pathOfFirstIssue(MemberSchema, { Contact: { Mobile: '1' } })).toBe('Contact.Email');
  });

  it('rejects a date-time with an offset, a Z or no time, naming the field', () => {
    for (const bad of ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00+10:00', '2025-01-01', '01/01/2025']) {
      const member = { ...fullMember, Membership: { ...fullMember.Membership, StartDate: bad } };
      expect(pathOfFirstIssue(MemberSchema, member)).toBe('Membership.StartDate');
    }
    expect(pathOfFirstIssue(MemberSchema, { LastUpdatedUtcDateTime: '2025-03-01 10:00:00' })).toBe(
      'LastUpdatedUtcDateTime',
    );
  });

  it('accepts fractional seconds', () => {
    expect(MemberSchema.safeParse({ DateOfBirth: '1990-05-01T00:00:00.1234567' }).success).toBe(true);
  });
});

describe('ProspectSchema', () => {
  it('accepts nested IdName and SalesPerson objects and unknown fields', () => {
    const parsed = ProspectSchema.parse({
      Number: 'P1',
      Status: 'OnTrial',
      TrialStartDate: '2025-03-01T09:00:00',
      CreatedDateUtc: '2025-02-28T23:00:00',
      ContactMethod: { Id: 1, Name: 'Phone' },
      Source: { Id: 2, Name: 'Web', Extra: 'kept' },
      SalesPerson: { Id: 3, FirstName: 'Sam', Email: 'not-an-email' },
      Contact: { Email: 'p@example.com', OptOutSms: false },
      Campaign: 'spring',
    });
    expect(parsed.Source?.Extra).toBe('kept');
    expect(parsed.Campaign).toBe('spring');
    expect(parsed.SalesPerson?.Email).toBe('not-an-email');
  });

  it('accepts an empty prospect and an unknown status value', () => {
    expect(ProspectSchema.safeParse({}).success).toBe(true);
    expect(ProspectSchema.safeParse({ Status: 'SomethingNew' }).success).toBe(true);
  });

  it('rejects a bad TrialEndDate with its path', () => {
    expect(pathOfFirstIssue(ProspectSchema, { TrialEndDate: '2025-13' })).toBe('TrialEndDate');
  });
});

describe('MemberVisitSchema', () => {
  it('accepts a visit, an empty one and keeps unknown fields', () => {
    const parsed = MemberVisitSchema.parse({
      MemberNumber: 'M1',
      Door: 'Front',
      ScanSource: 'Kiosk',
      VisitDateTime: '2025-03-01T06:01:02',
      Zone: 'Gym floor',
    });
    expect(parsed.Zone).toBe('Gym floor');
    expect(MemberVisitSchema.safeParse({}).success).toBe(true);
  });

  it('rejects a bad VisitDateTime with its path', () => {
    expect(pathOfFirstIssue(MemberVisitSchema, { VisitDateTime: 1740800000 })).toBe('VisitDateTime');
  });
});

describe('MemberPaymentHistorySchema', () => {
  it('carries the int64 Id and RefundedPaymentId as exact decimal strings from JSON numbers', () => {
    const raw = parseJsonPreservingInt64(
      '{"Id":9007199254740993,"Number":"M1","PaymentDate":"2025-03-01T00:00:00","PaymentType":"DD",' +
        '"Response":"Approved","FeeBreakdown":[{"SubscriptionFee":19.95,"DishonourFee":0}],' +
        '"Refund":{"IsRefunded":true,"RefundedPaymentId":9223372036854775807}}',
    );
    const parsed = MemberPaymentHistorySchema.parse(raw);
    expect(parsed.Id).toBe('9007199254740993');
    expect(parsed.Refund?.RefundedPaymentId).toBe('9223372036854775807');
    expect(parsed.FeeBreakdown?.[0]?.SubscriptionFee).toBe(19.95);
  });

  it('accepts a small int64 as a number or a string, always giving a string', () => {
    expect(MemberPaymentHistorySchema.parse({ Id: 42 }).Id).toBe('42');
    expect(MemberPaymentHistorySchema.parse({ Id: '42' }).Id).toBe('42');
  });

  it('rejects an int64 that is not an integer, naming the field', () => {
    expect(pathOfFirstIssue(MemberPaymentHistorySchema, { Id: 1.5 })).toBe('Id');
    expect(pathOfFirstIssue(MemberPaymentHistorySchema, { Id: '12ab' })).toBe('Id');
  });

  it('rejects a non-numeric fee with the path into the breakdown array', () => {
    expect(pathOfFirstIssue(MemberPaymentHistorySchema, { FeeBreakdown: [{}, { JoiningFee: '10' }] })).toBe(
      'FeeBreakdown.1.JoiningFee',
    );
  });

  it('keeps unknown fee fields', () => {
    const parsed = MemberPaymentHistorySchema.parse({ FeeBreakdown: [{ NewFee: 3 }] });
    expect(parsed.FeeBreakdown?.[0]?.NewFee).toBe(3);
  });
});

describe('MemberPosTransactionSchema', () => {
  it('carries every int64 of a transaction and its items as strings', () => {
    const raw = parseJsonPreservingInt64(
      '{"PosTransactionId":12345678901234567,"TransactionDate":"2025-03-01T12:00:00","TotalExTax":10,' +
        '"TotalIncTax":11,"Items":[{"ItemId":9007199254740995,"ProductId":5,"CategoryId":"6",' +
        '"SubCategoryId":9007199254740999,"Quantity":2,"IsVoided":false,"Colour":"red"}]}',
    );
    const parsed = MemberPosTransactionSchema.parse(raw);
    expect(parsed.PosTransactionId).toBe('12345678901234567');
    expect(parsed.Items?.[0]).toMatchObject({
      ItemId: '9007199254740995',
      ProductId: '5',
      CategoryId: '6',
      SubCategoryId: '9007199254740999',
      Colour: 'red',
    });
  });

  it('accepts an empty transaction and rejects a bad item date path', () => {
    expect(MemberPosTransactionSchema.safeParse({}).success).toBe(true);
    expect(pathOfFirstIssue(MemberPosTransactionSchema, { Items: [{ PriceExTax: 'x' }] })).toBe(
      'Items.0.PriceExTax',
    );
    expect(pathOfFirstIssue(MemberPosTransactionSchema, { TransactionDate: '2025-03-01T12:00' })).toBe(
      'TransactionDate',
    );
  });
});

describe('DisbursementSchema', () => {
  it('accepts a disbursement with a breakdown and unknown fields', () => {
    const parsed = DisbursementSchema.parse({
      DisbursementDate: '2025-03-03T00:00:00',
      TransactionDate: '2025-03-01T00:00:00',
      Amount: 49.9,
      MemberNumber: 'M1',
      Breakdown: { Membership: 40, Pos: 9.9, Other: 0 },
    });
    expect(parsed.Breakdown?.Pos).toBe(9.9);
    expect(parsed.Breakdown?.Other).toBe(0);
    expect(DisbursementSchema.safeParse({}).success).toBe(true);
  });

  it('rejects a bad DisbursementDate and a string amount with their paths', () => {
    expect(pathOfFirstIssue(DisbursementSchema, { DisbursementDate: '2025-03-03T00:00:00Z' })).toBe(
      'DisbursementDate',
    );
    expect(pathOfFirstIssue(DisbursementSchema, { Breakdown: { Arrears: '1' } })).toBe('Breakdown.Arrears');
  });
});

describe('DebtCollectionSchema', () => {
  it('accepts a record, an empty one, and keeps unknown fields', () => {
    const parsed = DebtCollectionSchema.parse({
      Amount: 120,
      DebtCollectionDate: '2025-03-01T00:00:00',
      MemberNumber: 'M9',
      Email: 'x@example.com',
      Agency: 'A1',
    });
    expect(parsed.Agency).toBe('A1');
    expect(DebtCollectionSchema.safeParse({}).success).toBe(true);
  });

  it('rejects a bad DebtCollectionDate with its path', () => {
    expect(pathOfFirstIssue(DebtCollectionSchema, { DebtCollectionDate: 'yesterday' })).toBe(
      'DebtCollectionDate',
    );
  });
});

describe('ClassAttendanceSchema', () => {
  it('keeps any object raw and rejects non-objects', () => {
    expect(ClassAttendanceSchema.parse({ ClassName: 'Yoga', When: 'x' })).toEqual({
      ClassName: 'Yoga',
      When: 'x',
    });
    expect(ClassAttendanceSchema.safeParse('Yoga').success).toBe(false);
  });
});

describe('TokenResponseSchema', () => {
  it('accepts a token response and rejects a missing or empty AccessToken', () => {
    expect(
      TokenResponseSchema.safeParse({ AccessToken: 'a.b.c', ExpiresIn: 3600, TokenType: 'Bearer' }).success,
    ).toBe(true);
    expect(
      pathOfFirstIssue(TokenResponseSchema, { AccessToken: '', ExpiresIn: 3600, TokenType: 'Bearer' }),
    ).toBe('AccessToken');
    expect(
      pathOfFirstIssue(TokenResponseSchema, { AccessToken: 'a', ExpiresIn: '3600', TokenType: 'Bearer' }),
    ).toBe('ExpiresIn');
  });
});

describe('PageEnvelopeSchema', () => {
  it('requires data to be an array; href and next are optional', () => {
    expect(PageEnvelopeSchema.safeParse({ data: [] }).success).toBe(true);
    expect(PageEnvelopeSchema.safeParse({ href: 'h', next: null, data: [{}] }).success).toBe(true);
    expect(pathOfFirstIssue(PageEnvelopeSchema, { data: {} })).toBe('data');
    expect(pathOfFirstIssue(PageEnvelopeSchema, [])).toBe('');
  });
});
