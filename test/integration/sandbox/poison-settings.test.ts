/**
 * Poison mode's settings on a running sandbox: off by default, all on with true, only what is named
 * with an object, frozen once resolved; bad values refused with a message naming the field, at
 * start and at run time, keeping the old value. Resolving them without sockets:
 * `test/unit/sandbox/poison-settings.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import {
  InvalidFaultSettingError,
  POISON_OFF,
  POISON_ON,
  STORED_POISON_KINDS,
  startSandbox,
} from '../../../sandbox';

const START = '2025-03-10T00:00:00Z';
const MiB = 1024 * 1024;

describe('sandbox poison settings', () => {
  it('are off by default, all on with true, and only what is named with an object', async () => {
    const sandbox = await startSandbox({ seed: 2, clubs: 1, members: 5, historyDays: 0, startTime: START });
    try {
      expect(sandbox.faults.poison).toBe(POISON_OFF);
      sandbox.faults.poison = true;
      expect(sandbox.faults.poison).toEqual(POISON_ON);
      for (const kind of STORED_POISON_KINDS) expect(sandbox.faults.poison.stored[kind]).toBeGreaterThan(0);
      sandbox.faults.poison = { stored: 2, hugePage: 0.5 };
      expect(sandbox.faults.poison.stored.identity).toBe(2);
      expect(sandbox.faults.poison.hugePage).toBe(0.5);
      expect(sandbox.faults.poison.echoCredentials).toBe(0);
      expect(sandbox.faults.poison.hugePageBytes).toBe(100 * MiB);
      sandbox.faults.poison = {
        stored: { int64: 1 },
        operations: ['paymentHistory'],
        variants: ['int64/overflow'],
      };
      expect(sandbox.faults.poison.stored).toMatchObject({ int64: 1, identity: 0 });
      Object.assign(sandbox.faults, { poison: false, errorRate5xx: 0 });
      expect(sandbox.faults.poison).toBe(POISON_OFF);
      // Resolved settings are frozen: a field cannot be changed in place and silently ignored.
      expect(() => {
        (sandbox.faults.poison as { hugePage: number }).hugePage = 1;
      }).toThrow(TypeError);
      expect(JSON.parse(JSON.stringify(sandbox.faults)).poison.hugePage).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('refuse bad values with a message naming the field, at start and at run time, keeping the old value', async () => {
    const bad: [unknown, RegExp][] = [
      [{ hugePage: 5 }, /faults\.poison\.hugePage must be within 0\.\.1, got 5/],
      [{ hugepage: 0.1 }, /faults\.poison has an unknown setting 'hugepage'/],
      [{ stored: -1 }, /faults\.poison\.stored must be a finite number >= 0/],
      [{ stored: { identities: 1 } }, /faults\.poison\.stored has an unknown class 'identities'/],
      [{ operations: ['payments'] }, /faults\.poison\.operations has an unknown entry "payments"/],
      [{ variants: ['identity/blank'] }, /faults\.poison\.variants has an unknown entry "identity\/blank"/],
      [{ hugePageBytes: 0 }, /faults\.poison\.hugePageBytes must be an integer from 1/],
      [{ episodeRequests: 1.5 }, /faults\.poison\.episodeRequests must be an integer from 1/],
      ['yes', /faults\.poison must be true, false or an object of settings, got "yes"/],
    ];
    for (const [value, message] of bad) {
      await expect(
        startSandbox({ clubs: 1, members: 1, historyDays: 0, faults: { poison: value as never } }),
      ).rejects.toThrow(message);
    }
    const sandbox = await startSandbox({ seed: 2, clubs: 1, members: 5, historyDays: 0, startTime: START });
    try {
      sandbox.faults.poison = { nextStuck: 0.2 };
      for (const [value, message] of bad) {
        expect(() => {
          sandbox.faults.poison = value as never;
        }).toThrow(InvalidFaultSettingError);
        expect(() => {
          sandbox.faults.poison = value as never;
        }).toThrow(message);
        expect(sandbox.faults.poison.nextStuck).toBe(0.2);
      }
    } finally {
      await sandbox.close();
    }
  });
});
