/**
 * `explain` of a member whose club's lifecycle base this release cannot read (a later release's, a
 * damaged item): said so, with nothing of it claimed, instead of failing the command.
 */
import { describe, expect, it } from 'vitest';
import { lifecycleFacts } from '../../../cli/explain/lifecycle-facts';
import { subjectFacts } from '../../../cli/explain/subject-facts';
import { subjectWords } from '../../../cli/explain/subject-words';
import { MemoryStateStore } from '../../../lambdas/state';
import { exampleClub } from '../../support/example-club';

const CLUB = exampleClub();
const NOW = Date.parse('2026-06-10T12:00:00Z');

describe('explain: a lifecycle base this release cannot read', () => {
  it('is said to be unreadable, and nothing of it is shown', async () => {
    // Prepare: a base of a later release (version 2 of the document)
    const store = new MemoryStateStore();
    await store.parts.lifecycle.putLifecycle(
      CLUB.clubId,
      { version: 2, members: { '1': { firstVisitOf: 'x' } } },
      0,
      'base',
    );
    // Act
    const facts = await lifecycleFacts(store, CLUB, { kind: 'member', id: '1' }, undefined, NOW);
    const words = subjectWords(await subjectFacts(store, CLUB, { kind: 'member', id: '1' }, NOW));
    // Assess
    expect(facts).toMatchObject({ baseUnreadable: true, trackedSince: null, kept: null, recorded: [] });
    expect(words.join('\n')).toContain("The club's lifecycle base cannot be read by this release");
  });
});
