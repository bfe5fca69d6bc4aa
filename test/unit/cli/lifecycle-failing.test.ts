/**
 * `status` and `explain` say since when a club's lifecycle evaluations fail and why (issue 33),
 * from the note the failing evaluation leaves on the club state item; nothing once one succeeds.
 */
import { describe, expect, it } from 'vitest';
import { clubStatus, renderStatus } from '../../../cli/commands/status';
import { failingWords, lifecycleFacts } from '../../../cli/explain/lifecycle-facts';
import { MemoryStateStore } from '../../../lambdas/state';
import { exampleClub } from '../../support/example-club';

const CLUB = exampleClub();
const NOW = Date.parse('2026-06-10T12:00:00Z');
const failed = {
  sinceMs: Date.parse('2026-06-10T08:14:00Z'),
  lastMs: Date.parse('2026-06-10T11:14:00Z'),
  attempts: 5,
  error: 'StoreError: lifecycle delta of club-1 is over 33554432 bytes of JSON',
};

async function storeWith(note: boolean): Promise<MemoryStateStore> {
  const store = new MemoryStateStore();
  const session = await store.openClub(CLUB.clubId, 'poller', 60_000, NOW - 60_000);
  if (note) session!.noteLifecycle({ failed });
  session!.markLifecycleHour(493_000);
  await session!.close();
  return store;
}

describe('a club whose lifecycle evaluations fail', () => {
  it('status says since when, how often and why; nothing once they work', async () => {
    // Act
    const [failing] = await clubStatus(await storeWith(true), [CLUB], NOW);
    const [working] = await clubStatus(await storeWith(false), [CLUB], NOW);
    const table = renderStatus([failing!], NOW, 'state');
    // Assess
    expect(failing!.lifecycle.failing).toEqual({
      since: '2026-06-10T08:14:00.000Z',
      lastAt: '2026-06-10T11:14:00.000Z',
      attempts: 5,
      reason: failed.error,
    });
    expect(table).toContain(
      `club-1: lifecycle: failing since 2026-06-10T08:14:00.000Z (5 attempts, the last at 2026-06-10T11:14:00.000Z): ${failed.error}`,
    );
    expect(working!.lifecycle.failing).toBeNull();
    expect(renderStatus([working!], NOW, 'state')).not.toContain('lifecycle');
  });

  it('explain says it for any member of the club', async () => {
    // Act
    const facts = await lifecycleFacts(
      await storeWith(true),
      CLUB,
      { kind: 'member', id: '100042' },
      undefined,
      NOW,
    );
    // Assess
    expect(facts?.failing).toEqual({ since: '2026-06-10T08:14:00.000Z', attempts: 5, reason: failed.error });
    expect(failingWords(facts!)).toEqual([
      `The club's lifecycle evaluations fail since 2026-06-10T08:14:00.000Z (5 in a row): ${failed.error}. Its lifecycle events are published once one succeeds (docs/deploy.md#lifecyclefailing).`,
    ]);
  });
});
