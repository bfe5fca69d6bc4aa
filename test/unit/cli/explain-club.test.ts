/**
 * `explain` of a club's operational events (cli/explain/club-facts.ts), the cases a local
 * run reaches rarely, on cursors as the engine writes them (the run itself:
 * test/integration/cli/explain-operational.test.ts): a failure past the threshold whose notice is not
 * written (due at the next poll), a notice of the previous episode, a 401 whose message does not say
 * what its eventId derives from, an event owed from an earlier episode, an endpoint mark the catalog
 * would refuse. No eventId is ever shown for any of them.
 */
import { describe, expect, it } from 'vitest';
import { clubOpsFacts } from '../../../cli/explain/club-facts';
import { renderClubExplanation } from '../../../cli/explain/club-words';
import { staleEvent } from '../../../lambdas/sources/operational-events';
import { type Cursor, MemoryStateStore, newCursor, type SourceName } from '../../../lambdas/state';
import { exampleClub } from '../../support/example-club';
import { seedCursor } from '../../support/state-seeds';

const CLUB = exampleClub({ sources: ['members', 'visits', 'prospects', 'classAttendance'] });
const NOW = Date.parse('2026-06-10T12:00:00Z');
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

async function storeWith(...cursors: [SourceName, Partial<Cursor['health']>][]): Promise<MemoryStateStore> {
  const store = new MemoryStateStore();
  for (const [source, health] of cursors)
    await seedCursor(store, {
      ...newCursor(CLUB.clubId, source),
      baselineDone: true,
      health: { consecutiveFailures: 0, ...health },
    });
  return store;
}

describe("explain: the rare states of a club's operational events", () => {
  it("a failure past the threshold without its notice is due; a notice at the success is the previous episode's", async () => {
    // Prepare
    const error = { kind: 'unavailable', message: 'visits: HTTP 503', at: at(10) };
    const store = await storeWith(
      ['visits', { lastSuccessAt: at(60), consecutiveFailures: 3, lastError: error }],
      ['members', { lastSuccessAt: at(60), staleNotifiedAt: at(60) }],
    );
    // Act
    const facts = await clubOpsFacts(store, CLUB, NOW);
    // Assess
    const of = (s: SourceName) => facts.sources.find((x) => x.source === s)!.stale;
    expect(of('visits')).toMatchObject({
      episode: 'due',
      dueAt: at(30),
      notice: { announcement: 'none', eventId: null },
    });
    expect(of('members')).toMatchObject({ episode: 'waiting', notifiedAt: null });
    expect(renderClubExplanation(facts)).toContain('the next poll of the club announces it first thing');
  });

  it('a 401 whose message does not name its reason, and an event owed from an earlier episode: no eventId', async () => {
    // Prepare: the refusal said nothing the event's reason derives from; an old stale notice owed
    const odd = {
      kind: 'auth',
      message: 'token: the Authorization header would carry characters',
      at: at(2),
    };
    const old = staleEvent(
      CLUB,
      { ...newCursor(CLUB.clubId, 'visits'), health: { consecutiveFailures: 1, lastSuccessAt: at(500) } },
      NOW - 400 * 60_000,
      30 * 60_000,
    )!;
    const store = await storeWith(
      ['members', { lastSuccessAt: at(30), consecutiveFailures: 1, lastError: odd, pausedUntil: at(-3) }],
      ['visits', { lastSuccessAt: at(30), owedEvents: [old as never] }],
    );
    // Act
    const facts = await clubOpsFacts(store, CLUB, NOW);
    const text = renderClubExplanation(facts);
    // Assess
    expect(facts.pause).toMatchObject({ kind: 'auth', source: 'members' });
    expect(facts.refusals).toEqual([
      expect.objectContaining({
        kind: 'auth',
        startedAt: at(2),
        notice: { detailType: 'Club Credentials Rejected', announcement: 'published', eventId: null },
      }),
    ]);
    expect(facts.sources.find((s) => s.source === 'visits')?.owed).toEqual([
      { detailType: 'Club Data Stale', occurredAt: old.detail.occurredAt },
    ]);
    expect(text).toContain("its eventId is not shown: the refusal's message does not name the reason");
    expect(text).toContain('its cursor owes 1 operational event not delivered yet (pending, no eventId');
    expect(text).not.toMatch(/[0-9a-f]{32}/);
  });

  it('an unavailable mark the catalog would refuse (a kind of a later release): the episode, no eventId', async () => {
    // Prepare
    const mark = {
      kind: 'gone',
      reason: 'HTTP 410',
      status: 410,
      since: at(60),
      checkedAt: at(5),
      retryAt: at(-300),
    };
    const store = await storeWith(['classAttendance', { lastSuccessAt: at(90), unavailable: mark }]);
    // Act
    const facts = await clubOpsFacts(store, CLUB, NOW);
    // Assess
    expect(facts.sources.find((s) => s.source === 'classAttendance')?.unavailable).toMatchObject({
      since: at(60),
      notice: { announcement: 'published', eventId: null },
    });
    expect(renderClubExplanation(facts)).not.toMatch(/[0-9a-f]{32}/);
  });

  it('sources never polled: nothing can be due', async () => {
    const facts = await clubOpsFacts(new MemoryStateStore(), CLUB, NOW);
    expect(facts.sources.map((s) => [s.source, s.polled, s.stale.episode])).toEqual([
      ['members', false, 'never-succeeded'],
      ['prospects', false, 'never-succeeded'],
      ['visits', false, 'never-succeeded'],
      ['classAttendance', false, 'never-succeeded'],
    ]);
    expect(facts.quota).toMatchObject({ used: 0, alertAt: 800_000, notice: { announcement: 'none' } });
  });
});
