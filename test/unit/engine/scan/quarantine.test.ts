import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../../lambdas/engine/scan/fingerprint';
import {
  eventErrorReason,
  quarantineEntry,
  quarantineKey,
  quarantineOnce,
} from '../../../../lambdas/engine/scan/quarantine';
import { MemoryStateStore } from '../../../../lambdas/state';
import { openSession } from '../../../support/state-seeds';

// The store lists only quarantined records not yet expired (30 days from the poll): a poll now.
const START = Date.now();
const where = { clubId: 'club-1', source: 'visits', startMs: START } as const;

describe('the quarantine key', () => {
  it('is one hash of the raw record, whatever the reason', () => {
    // Act
    const a = quarantineEntry({ Id: 1 }, 'no identity');
    const b = quarantineEntry({ Id: 1 }, 'too large');
    // Assess
    expect(a.key).toBe(b.key);
    expect(a.key).toBe(fingerprint('Q|{"Id":1}'));
    expect(quarantineKey(undefined)).toBe(fingerprint('Q|'));
  });

  it('names why an event could not be built, cut to 1000 characters', () => {
    expect(eventErrorReason(new Error('bad date'))).toBe('event could not be built: bad date');
    expect(eventErrorReason('x'.repeat(2000))).toHaveLength(1000);
  });
});

describe('quarantineOnce', () => {
  it('stores each record once, with its reason, and counts only the new ones', async () => {
    // Prepare
    const store = new MemoryStateStore();
    const session = await openSession(store, 'club-1');
    const entries = [
      quarantineEntry({ Id: 1 }, 'no identity'),
      quarantineEntry({ Id: 1 }, 'no identity'),
      quarantineEntry({ Id: 2 }, 'bad'),
    ];
    // Act
    const first = await quarantineOnce(session, where, entries);
    const again = await quarantineOnce(session, where, entries);
    // Assess
    expect(first).toBe(2);
    expect(again).toBe(0);
    const stored = await store.parts.quarantine.listQuarantined('club-1', 'visits');
    expect(stored.map((r) => r.reason).sort()).toEqual(['bad', 'no identity']);
    expect(stored.every((r) => r.at === new Date(START).toISOString())).toBe(true);
  });

  it('does nothing for no records', async () => {
    expect(await quarantineOnce(await openSession(new MemoryStateStore(), 'club-1'), where, [])).toBe(0);
  });
});
