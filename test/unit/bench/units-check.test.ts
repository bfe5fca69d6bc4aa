/** The unit model's check (bench/units-check.ts): the error it states and what the cost then claims. */
import { describe, expect, it } from 'vitest';
import { relativeError, type UnitsCheck, unitsSource } from '../../../bench/units-check';

const check = (read: number, write: number): UnitsCheck => ({
  simulatedHours: 1,
  model: { readUnits: 100 * (1 + read), writeUnits: 50 * (1 + write), byMethod: {} },
  server: { readUnits: 100, writeUnits: 50, byCommand: {}, unreported: 0 },
  error: { read, write, priced: 0 },
});

describe('the unit model check', () => {
  it('states the model error against the server, signed', () => {
    expect(relativeError(98, 100)).toBeCloseTo(-0.02);
    expect(relativeError(0, 0)).toBe(0);
    expect(relativeError(1, 0)).toBe(Number.POSITIVE_INFINITY);
  });

  it('calls the units model-checked only when each side is within 2% of the server', () => {
    expect(unitsSource(check(0.019, -0.005))).toEqual({
      unitsSource: 'model-checked',
      unitsCheckedError: 0.019,
    });
    expect(unitsSource(check(-0.1, 0))).toEqual({ unitsSource: 'model', unitsCheckedError: 0.1 });
    expect(unitsSource(check(0, 0.02))).toEqual({ unitsSource: 'model', unitsCheckedError: 0.02 });
    expect(unitsSource(undefined)).toEqual({ unitsSource: 'model' });
  });
});
