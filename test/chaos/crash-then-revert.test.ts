/**
 * The case chaos seed 581 found, pinned down: a poll publishes a member's change (SMS opt-out
 * switched on), crashes before writing the snapshot, and by the next poll the member has switched
 * it back. A consumer that received the first event must also receive the way back, or it keeps
 * an opt-out (or, the other way round, a consent) that no longer exists.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClubConfig, parseClubsFile } from '../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../lambdas/engine/club-poll/poll-club';
import { MemorySink } from '../../lambdas/events/publisher';
import { DynamoDbStateStore } from '../../lambdas/state';
import { type Sandbox, startSandbox } from '../../sandbox';
import { createTestTable, type Dynalite, startDynalite } from '../support/dynalite';
import { FaultInjector, NO_FAULT_RATES } from '../support/fault-injector';
import { FaultySink } from '../support/fault-sink';

describe('a change published by a poll that crashed, then undone before the next poll', () => {
  let db: Dynalite;
  let sandbox: Sandbox;
  let store: DynamoDbStateStore;
  let club: ClubConfig;

  beforeAll(async () => {
    db = await startDynalite();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    sandbox = await startSandbox({
      seed: 41,
      clubs: 1,
      members: 30,
      historyDays: 1,
      startTime: '2026-08-03T02:00:00Z',
    });
    store = new DynamoDbStateStore({
      client: db.client,
      tableName: await createTestTable(db.client, 'revert'),
    });
    club = { ...parseClubsFile(sandbox.clubsFile())[0]!, sources: ['members'] };
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('publishes the way back too, so the consumer ends in the member’s real state', async () => {
    // Prepare: a baseline, and a member whose SMS opt-out is off.
    const clients = new GymApiClientFactory();
    const sink = new MemorySink();
    const now = () => sandbox.clock.now().getTime();
    const poll = (eventSink: MemorySink | FaultySink) =>
      pollClub({ store, sink: eventSink, clients, owner: 'revert', now }, club, {
        deadlineMs: Date.now() + 20_000,
      });
    await poll(sink);
    const member = sandbox
      .records(club.clubId, 'members')
      .find((m) => (m.Contact as { OptOutSms?: boolean } | undefined)?.OptOutSms === false)!;
    const contact = member.Contact as Record<string, unknown>;
    const serve = (optOutSms: boolean, updated: string) => {
      const record = {
        ...member,
        LastUpdatedUtcDateTime: updated,
        Contact: { ...contact, OptOutSms: optOutSms },
      };
      const body = JSON.stringify({ href: `${sandbox.url}/members`, data: [record] });
      sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: '/members' });
    };
    // Act: poll 1 sees the opt-out and crashes right after publishing it (before the snapshot).
    const injector = new FaultInjector(1, NO_FAULT_RATES, [
      { target: 'publish', phase: 'after', mode: 'exception', nth: 1 },
    ]);
    injector.active = true;
    serve(true, '2026-08-03T02:00:30.000');
    const crashed = await poll(new FaultySink(sink, injector.newProcess('crashing')));
    // The member switches it back before poll 2.
    serve(false, '2026-08-03T02:00:45.000');
    const recovered = await poll(sink);
    // Assess
    expect(crashed.failures).toEqual([expect.objectContaining({ source: 'members', kind: 'internal' })]);
    expect(recovered.failures).toEqual([]);
    const changes = sink.ofType('Member Contact Preferences Changed').map((e) => ({
      id: e.detail.eventId,
      from: e.detail.previous.optOutSms,
      to: e.detail.current.optOutSms,
    }));
    // The first change (again, under its id: consumers de-duplicate), then the way back.
    expect(changes.map(({ from, to }) => `${from}->${to}`)).toEqual([
      'false->true',
      'false->true',
      'true->false',
    ]);
    expect(changes[1]!.id).toBe(changes[0]!.id);
    expect(changes[2]!.id).not.toBe(changes[0]!.id);
  });

  it('after two failed polls in a row, every change still reaches the consumer in order', async () => {
    // Prepare
    const clients = new GymApiClientFactory();
    const sink = new MemorySink();
    const now = () => sandbox.clock.now().getTime();
    const poll = (eventSink: MemorySink | FaultySink) =>
      pollClub({ store, sink: eventSink, clients, owner: 'revert', now }, club, {
        deadlineMs: Date.now() + 20_000,
      });
    await poll(sink);
    const member = sandbox
      .records(club.clubId, 'members')
      .find(
        (m) =>
          (m.Contact as { OptOutSms?: boolean; OptOutEmail?: boolean } | undefined)?.OptOutEmail === false,
      )!;
    const contact = member.Contact as Record<string, unknown>;
    const serve = (prefs: { OptOutEmail: boolean; OptOutSms: boolean }, updated: string) => {
      const record = { ...member, LastUpdatedUtcDateTime: updated, Contact: { ...contact, ...prefs } };
      const body = JSON.stringify({ href: `${sandbox.url}/members`, data: [record] });
      sandbox.failNext(1, 200, { body, contentType: 'application/json', pathPrefix: '/members' });
    };
    const crashing = () => {
      const injector = new FaultInjector(1, NO_FAULT_RATES, [
        { target: 'publish', phase: 'after', mode: 'exception', nth: 1 },
      ]);
      injector.active = true;
      return new FaultySink(sink, injector.newProcess('crashing'));
    };
    const start = contact.OptOutSms as boolean;
    // Act: two polls publish a change each and crash before committing; then the member is back.
    serve({ OptOutEmail: true, OptOutSms: start }, '2026-08-03T02:00:30.000');
    await poll(crashing());
    serve({ OptOutEmail: true, OptOutSms: !start }, '2026-08-03T02:00:40.000');
    await poll(crashing());
    serve({ OptOutEmail: false, OptOutSms: start }, '2026-08-03T02:00:50.000');
    const recovered = await poll(sink);
    // Assess: the distinct events (by eventId) chain from the first state back to it.
    expect(recovered.failures).toEqual([]);
    const distinct = new Map(
      sink
        .ofType('Member Contact Preferences Changed')
        .map((e) => [
          e.detail.eventId,
          `${e.detail.previous.optOutEmail},${e.detail.previous.optOutSms}>${e.detail.current.optOutEmail},${e.detail.current.optOutSms}`,
        ]),
    );
    expect([...distinct.values()]).toEqual([
      `false,${start}>true,${start}`,
      `true,${start}>true,${!start}`,
      `true,${!start}>false,${start}`,
    ]);
  });
});
