/** Poison mode's settings, log and catalogue, without sockets. */
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../../lambdas/gym-api/operations';
import { PoisonLog } from '../../../sandbox/poison/poison-log';
import { RECORD_SHAPES } from '../../../sandbox/poison/record-shapes';
import {
  InvalidPoisonSettingError,
  misbehaves,
  POISON_OFF,
  POISON_ON,
  resolvePoison,
  STORED_POISON_KINDS,
  storesPoison,
} from '../../../sandbox/poison/settings';
import { STORED_VARIANT_IDS, STORED_VARIANTS } from '../../../sandbox/poison/stored-variants';

describe('poison settings', () => {
  it('resolve a switch or an object, everything not named off', () => {
    expect(resolvePoison(false)).toBe(POISON_OFF);
    expect(resolvePoison(true)).toBe(POISON_ON);
    expect([storesPoison(POISON_OFF), misbehaves(POISON_OFF)]).toEqual([false, false]);
    expect([storesPoison(POISON_ON), misbehaves(POISON_ON)]).toEqual([true, true]);
    const some = resolvePoison({ stored: { oversized: 2 }, nextStuck: 0.1 });
    expect(some.stored).toEqual({ ...POISON_OFF.stored, oversized: 2 });
    expect(some.nextStuck).toBe(0.1);
    expect(some.hugePage).toBe(0);
    expect(some.operations).toEqual(OPERATION_NAMES);
    expect(Object.isFrozen(some) && Object.isFrozen(some.stored)).toBe(true);
    expect([storesPoison(resolvePoison({ nextStuck: 1 })), misbehaves(resolvePoison({ stored: 1 }))]).toEqual(
      [false, false],
    );
  });

  it('name the field of a bad value', () => {
    expect(() => resolvePoison({ tokenControlChar: 1.5 })).toThrow(
      new InvalidPoisonSettingError('faults.poison.tokenControlChar must be within 0..1, got 1.5'),
    );
    expect(() => resolvePoison({ stored: { null: Number.NaN } })).toThrow(
      /faults\.poison\.stored\.null must be/,
    );
    expect(() => resolvePoison({ variants: ['x/y'] }, STORED_VARIANT_IDS)).toThrow(/unknown entry "x\/y"/);
  });
});

describe('poison catalogue', () => {
  it('has several variants for every stored class, each fitting at least one operation', () => {
    for (const kind of STORED_POISON_KINDS) {
      const variants = STORED_VARIANTS.filter((v) => v.kind === kind);
      expect(variants.length, kind).toBeGreaterThanOrEqual(2);
      for (const v of variants)
        expect(
          OPERATION_NAMES.some((op) => v.fits(RECORD_SHAPES[op])),
          v.id,
        ).toBe(true);
    }
    expect(new Set(STORED_VARIANT_IDS).size).toBe(STORED_VARIANT_IDS.length);
  });
});

describe('poison log', () => {
  const entry = {
    where: 'stored',
    operation: 'members',
    kind: 'identity',
    variant: 'long-1500',
    expect: 'either',
    at: '',
  } as const;

  it('finds entries by marker (not by a marker that merely starts the same) and by poison int64 id', () => {
    const log = new PoisonLog();
    const first = log.record(entry, '~poison-1');
    const twelfth = log.record(entry, '~poison-12');
    const payment = log.record(
      { ...entry, operation: 'paymentHistory', identity: '9200000000000000003' },
      '~poison-3',
    );
    expect(log.find('{"Number":"800012~poison-12"}')).toEqual([twelfth]);
    expect(log.find('a~poison-1|b~poison-12')).toEqual([first, twelfth]);
    expect(log.find('{"paymentId":"9200000000000000003"}')).toEqual([payment]);
    expect(log.find('{"Number":"100012"}')).toEqual([]);
    expect(log.entries(1)).toEqual([twelfth, payment]);
  });

  it('finds markers in a 6,000-deep value, where JSON.stringify throws', () => {
    const log = new PoisonLog();
    const e = log.record(entry, '~poison-1');
    let deep: unknown = { Number: 'x~poison-1' };
    for (let i = 0; i < 6000; i++) deep = { N: [deep] };
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(log.findIn(deep)).toEqual([e]);
    expect(log.findIn({ '~poison-1': 1 })).toEqual([e]);
  });

  it('counts stored and response markers apart', () => {
    const log = new PoisonLog();
    expect(log.nextResponseMarker()).toBe('~poison-r1');
    expect(log.nextStoredNumber()).toBe(1);
    expect(log.nextStoredNumber()).toBe(2);
    expect(log.nextResponseMarker()).toBe('~poison-r2');
  });
});
