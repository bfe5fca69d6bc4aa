/** Poison base records of the people-side operations: members, prospects, visits, classes. */

import { floorToSecond, formatNaive } from '../naive-time';
import { INSTRUCTORS } from '../vocabulary';
import { ambiguousKey, localKey, person, poisonNumber, type RecordShape } from './shape-common';

export const members: RecordShape = {
  operation: 'members',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: ['LastUpdatedUtcDateTime', 'Membership.StartDate'],
  timeIsIdentity: false,
  dateFields: ['DateOfBirth', 'Membership.SaleDate'],
  idFields: ['Membership.Id'],
  idIsIdentity: false,
  stringField: 'Contact.Address',
  booleanField: 'Contact.OptOutEmail',
  objectField: 'Contact',
  requiredField: 'Membership.Type',
  emailField: 'Contact.Email',
  enums: [
    ['Status', ['Frozen', 'Lapsed']],
    ['Gender', ['X', 'Prefer not to say']],
  ],
  keys: (store, atMs) => ({
    key: store.profile.timeZone.localDayStart(atMs),
    updatedKey: floorToSecond(atMs),
  }),
  base: (s, k) => {
    const p = person(s);
    return {
      Number: `${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Status: 'Active',
      Barcode: `29${String(s.n).padStart(8, '0')}`,
      FitnessPassportNumber: null,
      DateOfBirth: '1990-05-17T00:00:00',
      Gender: 'Female',
      LastUpdatedUtcDateTime: formatNaive(k.updatedKey ?? k.key, true),
      Contact: p.contact,
      Membership: {
        Id: 990000 + s.n,
        Name: 'Direct Debit Monthly',
        StartDate: formatNaive(k.key),
        SaleDate: formatNaive(k.key),
        Type: 'Direct Debit',
      },
    };
  },
};

export const prospects: RecordShape = {
  operation: 'prospects',
  documented: true,
  numberField: 'Number',
  numberIsIdentity: true,
  fallbackMarkerField: 'FirstName',
  timeFields: [],
  timeIsIdentity: false,
  dateFields: ['CreatedDateUtc', 'DateOfBirth'],
  idFields: ['SalesPerson.Id'],
  idIsIdentity: false,
  stringField: 'SourcePage',
  booleanField: 'Contact.OptOutSms',
  objectField: 'SalesPerson',
  requiredField: 'Contact.Email',
  emailField: 'Contact.Email',
  enums: [['Status', ['Lead', 'Converted']]],
  keys: ambiguousKey,
  base: (s) => {
    const p = person(s);
    return {
      Number: `P${poisonNumber(s.n)}${s.marker}`,
      FirstName: p.firstName,
      LastName: p.lastName,
      Status: 'Enquiry',
      Barcode: null,
      DateOfBirth: '1994-11-02T00:00:00',
      Gender: 'Male',
      TrialStartDate: null,
      TrialEndDate: null,
      CreatedDateUtc: formatNaive(floorToSecond(s.atMs), true),
      ContactMethod: { Id: 1, Name: 'Phone' },
      Source: { Id: 1, Name: 'Google' },
      SourcePage: '/join',
      SalesPerson: { Id: 900, FirstName: 'Robin', LastName: 'Hale', Email: 'robin.h@example.com' },
      Contact: p.contact,
    };
  },
};

export const visits: RecordShape = {
  operation: 'visits',
  documented: true,
  numberField: 'MemberNumber',
  numberIsIdentity: true,
  fallbackMarkerField: 'Door',
  timeFields: ['VisitDateTime'],
  timeIsIdentity: true,
  dateFields: [],
  idFields: [],
  idIsIdentity: false,
  stringField: 'ScanSource',
  enums: [],
  keys: localKey,
  base: (s, k) => ({
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    Door: 'Main Entrance',
    ScanSource: 'Turnstile',
    VisitDateTime: formatNaive(k.key),
  }),
};

export const classAttendance: RecordShape = {
  operation: 'classAttendance',
  documented: false,
  numberField: 'MemberNumber',
  numberIsIdentity: false,
  fallbackMarkerField: 'ClassName',
  timeFields: ['ClassDateTime'],
  timeIsIdentity: false,
  dateFields: [],
  idFields: ['AttendanceId', 'ClassId'],
  idIsIdentity: false,
  amountField: 'DurationMinutes',
  stringField: 'Instructor',
  booleanField: 'Booked',
  enums: [['Status', ['Cancelled', 'LateCancel']]],
  keys: localKey,
  base: (s, k) => ({
    AttendanceId: 900000 + s.n,
    ClassId: 12,
    ClassName: 'Spin',
    ClassDateTime: formatNaive(k.key),
    DurationMinutes: 45,
    Instructor: INSTRUCTORS[s.n % INSTRUCTORS.length] ?? 'Staff',
    MemberNumber: `${poisonNumber(s.n)}${s.marker}`,
    ProspectNumber: null,
    Booked: true,
    Attended: true,
    Status: 'Attended',
  }),
};
