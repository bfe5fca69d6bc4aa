/** The one seeded random module: the first values of each generator, taken from the copies it replaces. */
import { describe, expect, it } from 'vitest';
import { cyrb128, mulberry32, sfc32 } from '../../../lambdas/common/seeded-random';
import { SeededRandom } from '../../../sandbox/sandbox-random';

const draw = <T>(next: () => T, count: number): T[] => Array.from({ length: count }, next);

describe('mulberry32', () => {
  it('gives the same first values as the copies it replaces', () => {
    // Prepare
    const one = mulberry32(1);
    const fortyTwo = mulberry32(42);

    // Act
    const fromOne = draw(one, 4);
    const fromFortyTwo = draw(fortyTwo, 4);

    // Assess
    expect(fromOne).toEqual([
      0.6270739405881613, 0.002735721180215478, 0.5274470399599522, 0.9810509674716741,
    ]);
    expect(fromFortyTwo).toEqual([
      0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693,
    ]);
  });

  it('replays the same stream for the same seed and stays in [0, 1)', () => {
    // Prepare
    const first = mulberry32(7);
    const second = mulberry32(7);

    // Act
    const a = draw(first, 1000);
    const b = draw(second, 1000);

    // Assess
    expect(a).toEqual(b);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('sfc32 seeded by cyrb128', () => {
  it('gives the sandbox the same first values as before (seed 1, no label; seed 42, label members)', () => {
    // Prepare
    const plain = new SeededRandom(1);
    const labelled = new SeededRandom(42, 'members');

    // Act
    const fromPlain = [plain.nextUint32(), plain.nextUint32(), plain.nextUint32(), plain.next()];
    const fromLabelled = [
      labelled.nextUint32(),
      labelled.nextUint32(),
      labelled.nextUint32(),
      labelled.next(),
    ];

    // Assess
    expect(fromPlain).toEqual([1027310709, 2758549367, 4126151588, 0.2242201140616089]);
    expect(fromLabelled).toEqual([1260939858, 1418261587, 859154327, 0.08097317139618099]);
  });

  it('is the stream SeededRandom draws from (after its 12 warm-up draws)', () => {
    // Prepare
    const raw = sfc32(...cyrb128('5\u0000visits'));
    draw(raw, 12);
    const wrapped = new SeededRandom(5, 'visits');

    // Act
    const fromRaw = draw(raw, 50);
    const fromWrapped = draw(() => wrapped.nextUint32(), 50);

    // Assess
    expect(fromRaw).toEqual(fromWrapped);
  });
});
