import { describe, expect, it } from 'vitest';
import { exampleEvents } from '../../../event-tooling/examples';
import {
  DETAIL_TYPES,
  type DetailType,
  EVENT_SCHEMAS,
  type EventDetail,
  validateEvent,
} from '../../../lambdas/events/catalog';
import { createEvent, type EventPayload } from '../../../lambdas/events/envelope';
import { applyPiiPolicy, isPiiPolicy } from '../../../lambdas/events/pii';
import { RECORD_KIND_OF, type RecordDetailType } from '../../../lambdas/events/pii-allow-lists';
import {
  API_SCHEMAS,
  type DocumentedKind,
  deeplyNested,
  documentedPaths,
  documentedRecord,
  leafPaths,
  withUnknownFields,
} from './pii-fixtures';

const contactKept = ['Contact.OptOutEmail', 'Contact.OptOutSms', 'Contact.State'];

/**
 * What travels under `minimal`, written out independently of the allow-lists: for the records that
 * name a person, field by field; for the others, every documented field.
 */
const EXPECTED_PATHS: Record<DocumentedKind, readonly string[]> = {
  member: [
    'Number',
    'FirstName',
    'Status',
    'Gender',
    'LastUpdatedUtcDateTime',
    ...contactKept,
    ...[
      'Id',
      'Name',
      'StartDate',
      'SaleDate',
      'CancellationDate',
      'MinimumTermDate',
      'ExpiryDate',
      'Type',
    ].map((f) => `Membership.${f}`),
  ],
  prospect: [
    'Number',
    'FirstName',
    'Status',
    'Gender',
    'TrialStartDate',
    'TrialEndDate',
    'CreatedDateUtc',
    'ContactMethod.Id',
    'ContactMethod.Name',
    'Source.Id',
    'Source.Name',
    'SourcePage',
    'SalesPerson.Id',
    'SalesPerson.FirstName',
    ...contactKept,
  ],
  visit: documentedPaths(API_SCHEMAS.visit),
  paymentHistory: documentedPaths(API_SCHEMAS.paymentHistory),
  posTransaction: documentedPaths(API_SCHEMAS.posTransaction),
  disbursement: documentedPaths(API_SCHEMAS.disbursement),
  debtCollection: ['Amount', 'DebtCollectionDate', 'MemberNumber', 'FirstName'],
};

/** Every detail-type whose `data` is a documented API record, with its kind. */
const DOCUMENTED_DETAIL_TYPES = (Object.entries(RECORD_KIND_OF) as [RecordDetailType, string][]).filter(
  (entry): entry is [RecordDetailType, DocumentedKind] => entry[1] in API_SCHEMAS,
);

/** The example event's payload with `data` replaced, built again under `policy`. */
function eventWith<T extends DetailType>(
  detailType: T,
  data: unknown,
  policy: 'minimal' | 'full' = 'minimal',
) {
  const {
    eventId,
    eventVersion,
    clubId,
    source,
    occurredAt,
    occurredAtLocal,
    observedAt,
    subject,
    ...payload
  } = exampleEvents()[detailType].detail as EventDetail;
  return createEvent(
    detailType,
    { clubId, identity: [eventId], occurredAt, observedAt, subject, piiPolicy: policy },
    { ...payload, data } as unknown as EventPayload<T>,
  );
}

const sorted = (paths: readonly string[]) => [...paths].sort();

describe('minimal PII policy: an allow-list per detail-type', () => {
  it('covers every detail-type that carries a record', () => {
    const withData = Object.entries(EVENT_SCHEMAS)
      .filter(([, schema]) => 'data' in schema.shape)
      .map(([detailType]) => detailType);
    expect(sorted(Object.keys(RECORD_KIND_OF))).toEqual(sorted(withData));
    expect(DOCUMENTED_DETAIL_TYPES).toHaveLength(withData.length - 1); // all but class attendance
  });

  it.each(DOCUMENTED_DETAIL_TYPES)(
    '%s (%s): only the allowed documented fields survive; FullName, DOB, Cell and unknown objects at any level do not',
    (detailType, kind) => {
      const record = withUnknownFields(documentedRecord(kind));
      // The fixture is what it claims: every documented field, and unknown fields at every level.
      expect(sorted(leafPaths(documentedRecord(kind)))).toEqual(sorted(documentedPaths(API_SCHEMAS[kind])));
      expect(JSON.stringify(record)).toContain('Pat Privateson');

      const minimal = applyPiiPolicy(record, 'minimal', detailType);

      expect(sorted(leafPaths(minimal))).toEqual(sorted(EXPECTED_PATHS[kind]));
      const text = JSON.stringify(minimal);
      for (const unknown of ['FullName', 'DOB', 'Cell', 'EmergencyContact', 'Aliases', 'Privateson', '0411'])
        expect(text).not.toContain(unknown);
    },
  );

  it.each(DOCUMENTED_DETAIL_TYPES)(
    '%s: the minimised record validates, and so does the full one',
    (detailType, kind) => {
      const record = withUnknownFields(documentedRecord(kind));
      const minimal = eventWith(detailType, record);
      expect(() => validateEvent(minimal)).not.toThrow();
      expect(sorted(leafPaths(minimal.detail.data))).toEqual(sorted(EXPECTED_PATHS[kind]));
      expect(eventWith(detailType, record, 'full').detail.data).toEqual(record);
    },
  );

  it('a known field in an unexpected form is dropped: an object where a value belongs, a value where an object does', () => {
    const member = {
      Number: 'M77',
      Gender: null, // null stays null: no value carries no personal data
      FirstName: { First: 'Pat', Last: 'Privateson' },
      Status: ['Active', 'pat@example.org'],
      Contact: 'pat@example.org, 0411 222 333',
      Membership: { Id: 1, Name: { Holder: 'Pat Privateson' } },
    };
    expect(applyPiiPolicy(member, 'minimal', DETAIL_TYPES.MemberJoined)).toEqual({
      Number: 'M77',
      Gender: null,
      Membership: { Id: 1 },
    });
    const payment = { Id: '1', FeeBreakdown: [{ DishonourFee: 5, Payer: 'Pat' }, 'Pat Privateson', null] };
    expect(applyPiiPolicy(payment, 'minimal', DETAIL_TYPES.PaymentFailed)).toEqual({
      Id: '1',
      FeeBreakdown: [{ DishonourFee: 5 }],
    });
  });
});

describe("minimal PII policy: URL fields (a prospect's SourcePage)", () => {
  const sourcePage = (SourcePage: unknown) =>
    applyPiiPolicy({ Number: 'P1', SourcePage }, 'minimal', DETAIL_TYPES.ProspectCreated).SourcePage;

  it.each([
    ['https://gym.example/join?email=pat%40example.org&name=Pat+Privateson#form', 'https://gym.example/join'],
    ['https://pat:hunter2@gym.example/free-trial?utm_source=mail', 'https://gym.example/free-trial'],
    ['https://gym.example?ref=pat@example.org', 'https://gym.example'],
    ['/join?first=Pat&last=Privateson', '/join'],
    ['/classes#pat@example.org', '/classes'],
    ['gym.example/join;jsessionid=F00D?x=1', 'gym.example/join'],
    ['/join', '/join'],
    ['', ''],
  ])('%s travels as %s: no userinfo, parameters, query or fragment', (value, expected) => {
    expect(sourcePage(value)).toBe(expected);
  });

  it.each([['/thanks/pat@example.org'], ['/thanks/pat%40example.org?x=1'], ['mailto:pat@example.org']])(
    '%s still holds an address in its path: the field is dropped',
    (value) => {
      const minimal = applyPiiPolicy(
        { Number: 'P1', SourcePage: value },
        'minimal',
        DETAIL_TYPES.ProspectCreated,
      );
      expect(minimal).toEqual({ Number: 'P1' });
    },
  );

  it('null stays null, and an object or a list is dropped as for any value field', () => {
    expect(sourcePage(null)).toBeNull();
    expect(sourcePage({ url: 'https://gym.example/join?email=pat@example.org' })).toBeUndefined();
    expect(sourcePage(['https://gym.example/join?email=pat@example.org'])).toBeUndefined();
  });

  it('full keeps the URL whole', () => {
    const url = 'https://gym.example/join?email=pat%40example.org';
    expect(applyPiiPolicy({ SourcePage: url }, 'full', DETAIL_TYPES.ProspectCreated).SourcePage).toBe(url);
  });
});

describe('minimal PII policy: class attendance (shape unknown)', () => {
  it('keeps only fields named in the non-person list, with scalar values', () => {
    const sandboxRecord = {
      AttendanceId: 88231,
      ClassId: 12,
      ClassName: 'Spin 45',
      ClassDateTime: '2025-03-04T18:00:00',
      DurationMinutes: 45,
      Instructor: 'Alex Rivera',
      MemberNumber: 'M10042',
      ProspectNumber: null,
      Booked: true,
      Attended: true,
      Status: 'Attended',
    };
    const record = {
      ...sandboxRecord,
      AttendeeName: 'Pat Privateson',
      FullName: 'Pat Privateson',
      DOB: '1985-12-01',
      Cell: '0411 222 333',
      Notes: 'Pat has a knee injury',
      Member: { Number: 'M10042', FirstName: 'Pat', Email: 'pat@example.org' },
      Attendees: [{ MemberNumber: 'M1', Name: 'Pat Privateson' }],
      BookingStatus: { Name: 'Booked', By: 'Pat Privateson' },
    };
    const { Instructor: _instructor, ...expected } = sandboxRecord;
    expect(applyPiiPolicy(record, 'minimal', DETAIL_TYPES.ClassAttendanceRecorded)).toEqual(expected);
    const event = eventWith(DETAIL_TYPES.ClassAttendanceRecorded, record);
    expect(event.detail.data).toEqual(expected);
    expect(JSON.stringify(event)).not.toMatch(/Privateson|Rivera|knee|pat@/);
  });

  it('a record with no allowed field travels as an empty object, which still validates', () => {
    const event = eventWith(DETAIL_TYPES.ClassAttendanceRecorded, {
      Who: 'Pat Privateson',
      Where: 'Studio 2',
    });
    expect(event.detail.data).toEqual({});
  });
});

describe('minimal PII policy: records of any depth', () => {
  it.each(Object.keys(RECORD_KIND_OF) as RecordDetailType[])(
    '%s: a 10,000-deep unknown field, alone or inside a known object, is dropped without throwing',
    (detailType) => {
      const record = {
        Unknown: deeplyNested(10_000),
        Contact: { OptOutSms: true, Unknown: deeplyNested(10_000) },
        Items: [{ ItemId: '1', Unknown: deeplyNested(10_000) }],
        FeeBreakdown: [{ DishonourFee: 1, Unknown: deeplyNested(10_000) }],
      };
      let minimal: Record<string, unknown> = {};
      expect(() => {
        minimal = applyPiiPolicy(record, 'minimal', detailType);
      }).not.toThrow();
      expect(JSON.stringify(minimal)).not.toContain('Unknown');
    },
  );

  it('a 10,000-deep chain of known field names is cut at the allow-list depth', () => {
    let chain: Record<string, unknown> = { OptOutSms: true };
    for (let i = 0; i < 10_000; i++) chain = { Contact: chain, Membership: chain };
    const minimal = applyPiiPolicy(chain, 'minimal', DETAIL_TYPES.MemberStatusChanged);
    expect(minimal).toEqual({ Contact: {}, Membership: {} });
  });
});

describe('PII policies', () => {
  it('minimal does not modify the input; full passes the record through unchanged', () => {
    const record = withUnknownFields(documentedRecord('member'));
    const before = structuredClone(record);
    applyPiiPolicy(record, 'minimal', DETAIL_TYPES.MemberJoined);
    expect(record).toEqual(before);
    expect(applyPiiPolicy(record, 'full', DETAIL_TYPES.MemberJoined)).toBe(record);
  });

  it('a detail-type that carries no record keeps nothing under minimal', () => {
    expect(
      applyPiiPolicy({ Status: 'Active', Email: 'a@b.c' }, 'minimal', DETAIL_TYPES.ClubQuotaLow),
    ).toEqual({});
  });

  it('knows its policies', () => {
    expect(isPiiPolicy('minimal')).toBe(true);
    expect(isPiiPolicy('full')).toBe(true);
    expect(isPiiPolicy('none')).toBe(false);
  });
});
