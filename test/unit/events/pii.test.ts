import { describe, expect, it } from 'vitest';
import { DETAIL_TYPES, validateEvent } from '../../../lambdas/events/catalog';
import { createEvent } from '../../../lambdas/events/envelope';
import { applyPiiPolicy, isPiiPolicy } from '../../../lambdas/events/pii';

const EMAIL = 'pat.private@example.org';
const PHONES = ['0411 222 333', '02 9999 1111', '02 8888 2222'];
const ADDRESS = '99 Hidden Lane';
const DOB = '1985-12-01T00:00:00';

const member = {
  Number: 'M77',
  FirstName: 'Pat',
  LastName: 'Privateson',
  Status: 'Active',
  Barcode: 'BC-998877',
  FitnessPassportNumber: 'FP-123456',
  DateOfBirth: DOB,
  Gender: 'Male',
  Contact: {
    Email: EMAIL,
    OptOutEmail: true,
    Mobile: PHONES[0],
    OptOutSms: false,
    Home: PHONES[1],
    Work: PHONES[2],
    Address: ADDRESS,
    Suburb: 'Secretville',
    State: 'NSW',
    Postcode: '2999',
    SecondaryEmail: 'alt@example.org',
  },
  Membership: {
    Id: 1,
    Name: 'Paid in Full 12 Months',
    StartDate: '2025-01-01T00:00:00',
    Type: 'Paid in Full',
  },
  EmergencyContactPhone: '0499 000 111',
};

const prospect = {
  Number: 'P9',
  FirstName: 'Pat',
  LastName: 'Privateson',
  DateOfBirth: DOB,
  Barcode: 'BC-1',
  SalesPerson: { Id: 4, FirstName: 'Jo', LastName: 'Seller', Email: 'jo.seller@example.org' },
  Contact: { Email: EMAIL, Mobile: PHONES[0], OptOutEmail: false, OptOutSms: true, Address: ADDRESS },
};

const debt = {
  Amount: 120,
  MemberNumber: 'M77',
  FirstName: 'Pat',
  LastName: 'Privateson',
  Email: EMAIL,
  Mobile: PHONES[0],
  Address: `${ADDRESS}, Secretville NSW 2999`,
};

const SECRETS = [EMAIL, 'alt@example.org', ...PHONES, '0499 000 111', ADDRESS, 'Secretville', '2999', DOB];
const SECRETS_WITH_IDS = [
  ...SECRETS,
  'Privateson',
  'BC-998877',
  'FP-123456',
  'jo.seller@example.org',
  'Seller',
];

describe('PII policy', () => {
  it('minimal: no email, phone, address, postcode, date of birth, barcode or last name survives', () => {
    for (const record of [member, prospect, debt]) {
      const text = JSON.stringify(applyPiiPolicy(record, 'minimal'));
      for (const secret of SECRETS_WITH_IDS) expect(text).not.toContain(secret);
    }
  });

  it('minimal keeps what automation needs: numbers, first name, status, membership, opt-outs, state', () => {
    const minimal = applyPiiPolicy(member, 'minimal');
    expect(minimal).toEqual({
      Number: 'M77',
      FirstName: 'Pat',
      Status: 'Active',
      Gender: 'Male',
      Contact: { OptOutEmail: true, OptOutSms: false, State: 'NSW' },
      Membership: member.Membership,
    });
    expect(applyPiiPolicy(prospect, 'minimal')).toMatchObject({
      SalesPerson: { Id: 4, FirstName: 'Jo' },
      Contact: { OptOutEmail: false, OptOutSms: true },
    });
    expect(applyPiiPolicy(debt, 'minimal')).toEqual({ Amount: 120, MemberNumber: 'M77', FirstName: 'Pat' });
  });

  it('minimal does not modify the input; full passes the record through unchanged', () => {
    const before = structuredClone(member);
    applyPiiPolicy(member, 'minimal');
    expect(member).toEqual(before);
    expect(applyPiiPolicy(member, 'full')).toBe(member);
  });

  it('minimal removes personal-looking fields inside arrays and raw (undocumented) records', () => {
    const raw = { Attendees: [{ MemberNumber: 'M1', HomePhone: '1', EmailAddress: 'a@b.c', Zip: '2000' }] };
    expect(applyPiiPolicy(raw, 'minimal')).toEqual({ Attendees: [{ MemberNumber: 'M1' }] });
  });

  it('a minimised record still validates as event data', () => {
    const event = createEvent(
      DETAIL_TYPES.MemberStatusChanged,
      { clubId: 'c1', identity: ['M77', 'Active'], occurredAt: '2025-01-01T00:00:00Z', piiPolicy: 'minimal' },
      { data: member, previousStatus: null, status: 'Active' },
    );
    expect(() => validateEvent(event)).not.toThrow();
    const text = JSON.stringify(event);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('knows its policies', () => {
    expect(isPiiPolicy('minimal')).toBe(true);
    expect(isPiiPolicy('none')).toBe(false);
  });
});
