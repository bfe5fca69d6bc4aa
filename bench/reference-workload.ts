/**
 * The reference workload: a fixed amount of the poll's own work, to measure how fast a machine runs
 * it (bench/cpu-calibration.ts maps a CPU-second of the bench machine to Lambda's arm64 through it).
 *
 * Seeded pages of API JSON (visits and members, the busiest append and state sources), each round:
 * the page's envelope parsed (int64-safe JSON) and its records validated with the project's zod
 * schemas (`parseEnvelope`, `readPage`), every visit identified, fingerprinted and turned into its
 * event (`visitsSource`: `createEvent` validates against the catalog), every member snapshotted and
 * diffed against the previous round's snapshot (`membersSource`: status changes, contact opt-outs),
 * and the club state item's cursors gzipped and read back (`encodeCursors`, `decodeCursors`).
 *
 * It runs for a fixed amount of work (REFERENCE_WORK), never for a fixed time, and ends in a digest
 * of everything it produced: the same on every machine and Node version (compressed bytes are left
 * out of it: zlib builds differ), checked by test/unit/bench/cpu-calibration.test.ts. When the
 * poll's code changes what these functions produce, the digest changes: pin it again, and run
 * `npx tsx bench/cpu-calibrate.ts --anchors` to pin the reference time in cpu-anchors.ts.
 */
import { createHash } from 'node:crypto';
import { mulberry32 } from '../lambdas/common/seeded-random';
import type { Snapshot } from '../lambdas/common/subject-snapshot';
import { fingerprint } from '../lambdas/engine/scan/fingerprint';
import { OPERATIONS } from '../lambdas/gym-api/operations';
import { parseEnvelope, readPage } from '../lambdas/gym-api/page-reader';
import { visitsSource } from '../lambdas/sources/append-sources';
import { SOURCE_ORDER } from '../lambdas/sources/index';
import type { ClubContext } from '../lambdas/sources/source';
import { membersSource } from '../lambdas/sources/state-sources';
import { decodeCursors, encodeCursors } from '../lambdas/state/club-state';
import type { Cursor } from '../lambdas/state/store';

/** How much work one run does: rounds over a page of each kind. */
export interface ReferenceWork {
  readonly rounds: number;
  readonly visitsPerPage: number;
  readonly membersPerPage: number;
  readonly seed: number;
}

/** The pinned amount of work (about 0.5 s on the reference core): change it and pin again. */
export const REFERENCE_WORK: ReferenceWork = {
  rounds: 24,
  visitsPerPage: 250,
  membersPerPage: 150,
  seed: 37,
};

const CLUB_ID = 'reference-club';
const CONTEXT: ClubContext = {
  clubId: CLUB_ID,
  timeZone: 'Australia/Sydney',
  unstatedZone: 'local',
  piiPolicy: 'minimal',
  observedAtMs: Date.UTC(2026, 10, 2, 3, 4, 5),
};
const STATUSES = ['Active', 'Suspended', 'PaymentIssue', 'Cancelled', 'Expired'] as const;
const DOORS = ['Front', 'Pool', 'Studio', 'Side'] as const;

/** The seeded inputs: page texts as the API answers them (one members page per round). */
export interface ReferenceInputs {
  readonly visitPages: readonly string[];
  readonly memberPages: readonly string[];
}

const pad = (n: number) => String(n).padStart(2, '0');
const localTime = (day: number, minute: number) =>
  `2026-11-${pad(day)}T${pad(Math.floor(minute / 60) % 24)}:${pad(minute % 60)}:${pad((minute * 7) % 60)}`;

function visitPage(random: () => number, round: number, size: number): string {
  const data = Array.from({ length: size }, (_, i) => ({
    MemberNumber: `M${100000 + Math.floor(random() * 5000)}`,
    Door: DOORS[Math.floor(random() * DOORS.length)],
    ScanSource: random() < 0.8 ? 'Barcode' : 'App',
    VisitDateTime: localTime(2 + (round % 20), 360 + ((i * 3 + Math.floor(random() * 3)) % 960)),
  }));
  return JSON.stringify({ href: `/members/attendance/visits?offset=${round * size}`, data });
}

function member(random: () => number, i: number, round: number) {
  const churn = round > 0 && random() < 0.15;
  const status = STATUSES[churn ? Math.floor(random() * STATUSES.length) : i % 2];
  return {
    Number: `M${100000 + i}`,
    FirstName: `First${i}`,
    LastName: `Last${(i * 31) % 997}`,
    Status: status,
    Barcode: String(900000000 + i),
    DateOfBirth: `19${60 + (i % 40)}-0${1 + (i % 9)}-1${i % 10}T00:00:00`,
    Gender: i % 2 === 0 ? 'Female' : 'Male',
    LastUpdatedUtcDateTime: localTime(2 + (round % 20), (i * 5) % 1440),
    Contact: {
      Email: `member${i}@example.com`,
      OptOutEmail: churn && random() < 0.5,
      Mobile: `04${String(10000000 + i * 7).slice(0, 8)}`,
      OptOutSms: i % 7 === 0,
      Address: `${i} Example Street`,
      Suburb: 'Newtown',
      State: 'NSW',
      Postcode: '2042',
    },
    Membership: {
      Id: 5000 + i,
      Name: i % 3 === 0 ? 'Flexi' : 'Annual',
      StartDate: `2025-0${1 + (i % 9)}-01T00:00:00`,
      SaleDate: `2025-0${1 + (i % 9)}-01T00:00:00`,
      Type: i % 3 === 0 ? 'Direct Debit' : 'Paid in Full',
    },
  };
}

/** The same inputs for the same work, whatever the machine. */
export function referenceInputs(work: ReferenceWork = REFERENCE_WORK): ReferenceInputs {
  const random = mulberry32(work.seed);
  const visitPages: string[] = [];
  const memberPages: string[] = [];
  for (let round = 0; round < work.rounds; round++) {
    visitPages.push(visitPage(random, round, work.visitsPerPage));
    const data = Array.from({ length: work.membersPerPage }, (_, i) => member(random, i, round));
    memberPages.push(JSON.stringify({ href: `/members?offset=0&round=${round}`, data }));
  }
  return { visitPages, memberPages };
}

/** Runs the work on the inputs; returns its digest (hex SHA-256 of everything it produced). */
export function runReferenceWorkload(inputs: ReferenceInputs): string {
  const digest = createHash('sha256');
  const snapshots = new Map<string, Snapshot>();
  inputs.visitPages.forEach((text, round) => {
    const visits = readPage<'visits'>(OPERATIONS.visits, envelopeOf('visits', text), 0, 500);
    for (const visit of visits.items) {
      const id = visitsSource.identity(visit);
      if (id === undefined) continue;
      for (const facet of visitsSource.facets(visit, id)) {
        digest.update(fingerprint(facet.key));
        for (const event of facet.events(CONTEXT)) digest.update(event.detail.eventId);
      }
    }
    const memberText = inputs.memberPages[round] ?? '';
    const members = readPage<'members'>(OPERATIONS.members, envelopeOf('members', memberText), 0, 500);
    for (const item of members.items) {
      const id = membersSource.identity(item);
      if (id === undefined) continue;
      const previous = snapshots.get(id);
      const next = membersSource.snapshot(item, id, previous, CONTEXT);
      for (const event of membersSource.diff(previous, item, next, CONTEXT))
        digest.update(`${event.detailType}|${event.detail.eventId}`);
      snapshots.set(id, next);
      digest.update(next.hash);
    }
    digest.update(JSON.stringify(decodeCursors(CLUB_ID, encodeCursors(cursorsOf(round, snapshots.size)))));
  });
  return digest.digest('hex');
}

const envelopeOf = (operation: string, text: string) =>
  parseEnvelope(operation, text, 'application/json', 200);

/** The club state item's cursors after a round (one per source, with its stats and watermark). */
function cursorsOf(round: number, snapshots: number): Cursor[] {
  return SOURCE_ORDER.map((source, i) => ({
    clubId: CLUB_ID,
    source,
    version: round + i,
    watermark: new Date(CONTEXT.observedAtMs - (round * 60 + i) * 1000).toISOString(),
    baselineDone: true,
    health: { consecutiveFailures: 0 },
    stats: { rows: snapshots + i, pages: round + 1, events: round * i },
  }));
}
