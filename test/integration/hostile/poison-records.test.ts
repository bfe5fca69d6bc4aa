/**
 * Poison records and paging habits through the whole engine (pollClub against the sandbox,
 * dynalite and a local EventBridge endpoint, over real sockets): a record the store cannot key as it
 * is, one nested thousands of levels deep, an int64 written in a form that would round, and an
 * upstream that does not honour `offset`. None of them may stop the source for good: the bad record
 * is quarantined with its reason, the rest of the page is published, the watermark moves, and the
 * next poll is clean. Paging that makes no progress stops within a few requests and is a failure.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import type { DynamoDbStateStore, SourceName } from '../../../lambdas/state';
import { MINUTE, useHostileApi, VISITS } from './hostile-api-rig';

const MEMBERS = '/members';
const PAYMENTS = '/members/payment/history';
const PROSPECTS = '/prospects';

describe('poison records and paging habits', () => {
  const hostile = useHostileApi({ seed: 17, members: 40, name: 'poison' });
  const { rig, poll, delivered, envelope } = hostile;
  let store: DynamoDbStateStore;
  let club: ClubConfig;
  beforeEach(() => {
    ({ store, club } = hostile);
  });

  const serve = (count: number, path: string, body: string) =>
    rig.sandbox.failNext(count, 200, { body, contentType: 'application/json', pathPrefix: path });
  const cursor = (source: SourceName) => store.view(club.clubId).getCursor(source);

  it('members whose numbers the store cannot key as they are: blank ones quarantined, odd ones published, the source moves on', async () => {
    // Prepare: a baseline of members, then a page of the real members plus poison ones.
    const baseline = await poll(['members']);
    expect(baseline.failures).toEqual([]);
    const template = rig.sandbox.records(club.clubId, 'members')[0]!;
    const member = (n: string) => ({
      ...template,
      Number: n,
      Status: 'Active',
      LastUpdatedUtcDateTime: '2026-05-04T08:10:00',
    });
    const odd = ['7\u0000x', 'lone-\ud800', '#123#CLUB#club-2', '~h~abc', 'n'.repeat(600), ' 42 '];
    const blank = ['', '   ', 'x'.repeat(1100), 'é'.repeat(600)];
    const real = rig.sandbox.records(club.clubId, 'members');
    const page = envelope(MEMBERS, [...real, ...[...odd, ...blank].map(member)]);
    serve(2, MEMBERS, page);
    rig.sandbox.advance(15 * MINUTE);
    const before = (await cursor('members')).watermark;
    // Act
    const first = await poll(['members']);
    const second = await poll(['members']);
    // Assess: no failure; each unusable identity quarantined once, with its reason
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: blank.length });
    expect(second.failures).toEqual([]);
    expect(second.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 0 });
    const reasons = (await store.parts.quarantine.listQuarantined(club.clubId, 'members'))
      .map((q) => q.reason)
      .sort();
    expect(reasons).toHaveLength(blank.length);
    expect(reasons.join('\n')).toMatch(/identity is empty/);
    expect(reasons.join('\n')).toMatch(/blank \(whitespace only\)/);
    expect(reasons.join('\n')).toMatch(/over 1024 bytes/);
    // the odd but usable numbers are members like any other: joined once, not again
    const joined = delivered()
      .filter((e) => e.detailType === 'Member Joined')
      .map((e) => (e.detail as { subject: { memberNumber: string } }).subject.memberNumber);
    expect(joined.sort()).toEqual([...odd].sort());
    // and their snapshots were stored under keys the table accepts: the second poll saw no change
    const snapshots = await store.parts.snapshots.getSnapshots(club.clubId, 'MEMBER', odd);
    expect([...snapshots.keys()].sort()).toEqual([...odd].sort());
    expect((await cursor('members')).watermark! > before!).toBe(true);
  });

  it('a record nested 6,000 levels deep is quarantined with a cut copy; the rest of the page is published', async () => {
    // Prepare
    await poll(['visits']);
    rig.sandbox.advance(30 * MINUTE);
    // The JSON text is built as text: JSON.stringify itself cannot write a value this deep.
    const deep = `${'{"n":['.repeat(3000)}"bottom"${']}'.repeat(3000)}`;
    const real = rig.sandbox.records(club.clubId, 'visits', { fromdate: '2026-05-04T17:00:00' });
    const poison = {
      MemberNumber: '100099',
      Door: 'Main Entrance',
      ScanSource: 'Kiosk',
      VisitDateTime: '2026-05-04T18:20:00',
      Extra: '__DEEP__',
    };
    serve(2, VISITS, envelope(VISITS, [...real, poison]).replace('"__DEEP__"', deep));
    // Act
    const first = await poll(['visits']);
    const second = await poll(['visits']);
    // Assess
    expect(first.failures).toEqual([]);
    expect(first.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 1 });
    expect(second.failures).toEqual([]);
    const [q] = await store.parts.quarantine.listQuarantined(club.clubId, 'visits');
    expect(q!.reason).toMatch(/nested deeper than 32 levels/);
    expect(JSON.stringify(q!.raw).length).toBeLessThan(40_000);
    const visits = delivered().filter((e) => e.detailType === 'Member Visit Recorded');
    expect(visits.length).toBe(real.filter((v) => (v.VisitDateTime as string) > '2026-05-04T18:00').length);
    expect(
      visits.some(
        (e) => (e.detail as { subject: { memberNumber: string } }).subject.memberNumber === '100099',
      ),
    ).toBe(false);
  });

  it('an int64 id written as 9007199254740993.0 or 9.007199254740993e15 is quarantined, never published rounded', async () => {
    // Prepare
    await poll(['paymentHistory']);
    const template = rig.sandbox.records(club.clubId, 'paymentHistory').at(-1)!;
    const payment = (marker: string) => ({
      ...template,
      Id: marker,
      PaymentDate: '2026-05-04T18:00:00',
      PaymentDescription: marker, // two records, though both ids parse to the same double
    });
    const body = envelope(PAYMENTS, [payment('__A__'), payment('__B__'), payment('__C__')])
      .replace('"__A__"', '9007199254740993.0')
      .replace('"__B__"', '9.007199254740993e15')
      .replace('"__C__"', '9007199254740993');
    serve(1, PAYMENTS, body);
    rig.sandbox.advance(30 * MINUTE);
    // Act
    const report = await poll(['paymentHistory']);
    // Assess: the plain literal is carried exactly; the two others are refused, not rounded
    expect(report.failures).toEqual([]);
    expect(report.sources[0]).toMatchObject({ quarantined: 2 });
    const ids = delivered().map((e) => (e.detail as { paymentId?: string }).paymentId);
    expect(ids).toContain('9007199254740993');
    expect(ids).not.toContain('9007199254740992');
    const reasons = (await store.parts.quarantine.listQuarantined(club.clubId, 'paymentHistory')).map(
      (q) => q.reason,
    );
    expect(reasons.every((r) => /would lose digits/.test(r))).toBe(true);
  });

  it('a bad record that drift serves on two pages does not hide the record it pushed out', async () => {
    // Prepare: a baseline of prospects, then a scan of pages of 2 where a bad record (a time as a
    // number) moves down a place between the first and the second page: B is never on a page.
    await poll(['prospects']);
    rig.sandbox.advance(15 * MINUTE);
    const template = rig.sandbox.records(club.clubId, 'prospects')[0]!;
    const prospect = (n: string) => ({ ...template, Number: n, Status: 'Enquiry' });
    const [a, b, c, d] = ['P900001', 'P900002', 'P900003', 'P900004'].map(prospect);
    const bad = { ...prospect('P900099'), CreatedDateUtc: 1762068817000 };
    const pages = [
      [bad, a],
      [bad, c], // drift: bad moved down a place, B pushed to offset 2 was read as offset 1
      [d],
      [bad, a, b, c], // the proof: one response over the bad record's positions holds it once
      [bad, a], // the re-read
      [b, c],
      [d],
    ];
    for (const data of pages) serve(1, PROSPECTS, envelope(PROSPECTS, data));
    // Act
    const report = await poll(['prospects'], { pageSize: 2 });
    // Assess: B was published; the bad record counted as a row like any other
    expect(report.failures).toEqual([]);
    expect(report.sources[0]).toMatchObject({ outcome: 'completed', quarantined: 1 });
    const created = delivered()
      .filter((e) => e.detailType === 'Prospect Created')
      .map((e) => (e.detail as { subject: { prospectNumber: string } }).subject.prospectNumber)
      .filter((n) => n.startsWith('P9'));
    expect(created.sort()).toEqual(['P900001', 'P900002', 'P900003', 'P900004']);
  });

  it('an upstream that ignores offset: paging stops after 2 requests, the source fails with the reason, and it is not a success', async () => {
    // Prepare: a baseline, then every visits request answered with the same full page of 10
    await poll(['visits']);
    const successBefore = (await cursor('visits')).health.lastSuccessAt;
    rig.sandbox.advance(5 * MINUTE);
    const rows = Array.from({ length: 10 }, (_, i) => ({
      MemberNumber: String(100100 + i),
      Door: 'Main Entrance',
      ScanSource: 'Kiosk',
      VisitDateTime: `2026-05-04T18:0${i}:00`,
    }));
    // No `next`: the client raises the offset itself, and the upstream answers the same page.
    serve(Number.POSITIVE_INFINITY, VISITS, envelope(VISITS, rows));
    // Act
    const started = Date.now();
    const report = await poll(['visits'], { pageSize: 10, deadlineMs: Date.now() + 10_000 });
    // Assess
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(report.outcome).toBe('failed');
    expect(report.failures[0]).toMatchObject({ source: 'visits', kind: 'invalid-response' });
    expect(report.failures[0]!.message).toMatch(/does not honour offset/);
    expect(report.requests).toBeLessThanOrEqual(3);
    const after = await cursor('visits');
    expect(after.health.lastSuccessAt).toBe(successBefore);
    expect(after.health.lastError?.message).toMatch(/does not honour offset/);
    expect(after.health.consecutiveFailures).toBe(1);
  });

  it('an upstream that ignores offset while records arrive: the scan stops within a few pages, not at the deadline', async () => {
    // Prepare: each request serves the first page shifted by one newer visit
    await poll(['visits']);
    rig.sandbox.advance(5 * MINUTE);
    let served = 0;
    const pageAt = (shift: number) =>
      Array.from({ length: 10 }, (_, i) => ({
        MemberNumber: String(100200 + shift + i),
        Door: 'Main Entrance',
        ScanSource: 'Kiosk',
        VisitDateTime: `2026-05-04T18:${String(10 + ((shift + i) % 49)).padStart(2, '0')}:00`,
      }));
    for (let i = 0; i < 40; i++) serve(1, VISITS, envelope(VISITS, pageAt(served++)));
    // Act
    const report = await poll(['visits'], { pageSize: 10, deadlineMs: Date.now() + 15_000 });
    // Assess
    expect(report.outcome).toBe('failed');
    expect(report.failures[0]!.message).toMatch(/same records at every offset|already read/);
    expect(report.requests).toBeLessThanOrEqual(6);
  });
});
