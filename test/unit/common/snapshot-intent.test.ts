import { describe, expect, it } from 'vitest';
import { splitIntent, withIntent } from '../../../lambdas/common/snapshot-intent';
import type { Snapshot } from '../../../lambdas/state/store';

const snap = (hash: string, fields: Record<string, unknown> = { Status: hash }): Snapshot => ({
  id: 'M1',
  hash,
  fields,
  updatedAt: `2026-03-10T0${hash.length}:00:00.000Z`,
});

describe('snapshot intents', () => {
  it.each([
    { name: 'no stored snapshot', stored: undefined, committed: undefined, published: [] as Snapshot[] },
    { name: 'a plain snapshot', stored: snap('a'), committed: snap('a'), published: [] },
    {
      name: 'an intent over a committed snapshot',
      stored: withIntent(snap('a'), [snap('b'), snap('cc')]),
      committed: snap('a'),
      published: [snap('b'), snap('cc')],
    },
    {
      name: 'an intent with nothing committed',
      stored: withIntent(undefined, [snap('b')]),
      committed: undefined,
      published: [snap('b')],
    },
  ])('splits $name', ({ stored, committed, published }) => {
    // Act
    const split = splitIntent(stored);
    // Assess
    expect(split.committed).toEqual(committed);
    expect(split.published).toEqual(published);
  });

  it('keeps the stored format: `publishing` in fields; `nothingCommitted` as hash and flag', () => {
    // Act
    const over = withIntent(snap('a'), [snap('b')]);
    const fresh = withIntent(undefined, [snap('b')]);
    // Assess
    expect(over).toEqual({ ...snap('a'), fields: { Status: 'a', publishing: [snap('b')] } });
    expect(fresh).toEqual({
      id: 'M1',
      hash: 'nothingCommitted',
      fields: { publishing: [snap('b')], nothingCommitted: true },
      updatedAt: snap('b').updatedAt,
    });
  });

  it('reads items written by older versions: a single intent object instead of an array', () => {
    // Prepare
    const stored: Snapshot = { ...snap('a'), fields: { Status: 'a', publishing: snap('b') } };
    // Act
    const split = splitIntent(stored);
    // Assess
    expect(split).toEqual({ committed: snap('a'), published: [snap('b')] });
  });
});
