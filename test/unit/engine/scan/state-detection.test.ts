import { describe, expect, it } from 'vitest';
import { splitIntent } from '../../../../lambdas/common/snapshot-intent';
import { publishPageEvents } from '../../../../lambdas/engine/scan/publish-commit';
import { publishedOf } from '../../../../lambdas/engine/scan/published-log';
import { RowMarks } from '../../../../lambdas/engine/scan/row-marks';
import type { EngineScan, ScanMode } from '../../../../lambdas/engine/scan/scan-types';
import { StateDetection } from '../../../../lambdas/engine/scan/state-detection';
import { MemorySink } from '../../../../lambdas/events/publisher';
import { SOURCES } from '../../../../lambdas/sources';
import type { StateSource } from '../../../../lambdas/sources/source';
import { MemoryStateStore } from '../../../../lambdas/state';
import { decorateStore } from '../../../../lambdas/state/state-store';
import { openSession } from '../../../support/state-seeds';
import { member, sydney } from '../../sources/fixtures';

const members = SOURCES.members as StateSource;
const scanOf = (mode: ScanMode): EngineScan => ({
  mode,
  fromdate: '',
  nextOffset: 0,
  startedAt: new Date(sydney.observedAtMs).toISOString(),
  pages: 0,
  records: 0,
});
const rec = (status: string) => [{ id: 'M1', item: member({ Number: 'M1', Status: status }) }];

async function setup() {
  const store = new MemoryStateStore();
  const session = await openSession(store, sydney.clubId);
  const sink = new MemorySink();
  let failNext = false;
  const detection = new StateDetection(session, sydney, members, async (page, quarantine) => {
    if (failNext && page.events.length > 0) {
      failNext = false;
      throw new Error('EventBridge down');
    }
    await publishPageEvents(sink, page, quarantine);
  });
  const failNextPublish = () => {
    failNext = true;
  };
  return { store, sink, detection, failNextPublish };
}

describe('StateDetection', () => {
  it('a baseline stores snapshots and publishes nothing; a change after it is published once', async () => {
    // Prepare
    const { sink, detection } = await setup();
    await detection.detect(rec('Active'), scanOf('baseline'), []);
    // Act
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    const afterChange = sink.events.length;
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    // Assess
    expect(afterChange).toBeGreaterThan(0);
    expect(sink.events).toHaveLength(afterChange);
  });

  it('a publish that fails leaves an intent; the next poll publishes the same events and commits', async () => {
    // Prepare
    const { store, sink, detection, failNextPublish } = await setup();
    await detection.detect(rec('Active'), scanOf('baseline'), []);
    failNextPublish();
    // Act
    await expect(detection.detect(rec('PaymentIssue'), scanOf('tail'), [])).rejects.toThrow(
      'EventBridge down',
    );
    const stored = (await store.parts.snapshots.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    const after = (await store.parts.snapshots.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    // Assess
    expect(splitIntent(stored).published).toHaveLength(1);
    expect(sink.events.length).toBeGreaterThan(0);
    expect(splitIntent(after).published).toHaveLength(0);
  });

  it('a Joined published again from an intent carries the state it announces, not the record moved on since', async () => {
    // Prepare: first seen Active with e-mail opted out, and the publish fails after the intent.
    const { sink, detection, failNextPublish } = await setup();
    const contact = { Email: 'alex@example.com', OptOutEmail: true, OptOutSms: false };
    const first = member({ Number: 'M1', Status: 'Active', Contact: contact });
    const moved = member({ Number: 'M1', Status: 'PaymentIssue', Contact: { ...contact, OptOutSms: true } });
    failNextPublish();
    await expect(detection.detect([{ id: 'M1', item: first }], scanOf('tail'), [])).rejects.toThrow();
    // Act: the next poll reads the record after it moved on (status and SMS preference).
    await detection.detect([{ id: 'M1', item: moved }], scanOf('tail'), []);
    // Assess
    type Detail = { status?: string; previous?: unknown; data: { Status?: string; Contact?: object } };
    const byType = (t: string) => sink.events.find((e) => e.detailType === t)?.detail as unknown as Detail;
    const joined = byType('Member Joined');
    expect(joined.status).toBe('Active');
    expect(joined.data.Status).toBe('Active');
    expect(joined.data.Contact).toMatchObject({ OptOutEmail: true, OptOutSms: false });
    const prefs = byType('Member Contact Preferences Changed');
    expect(prefs.previous).toEqual({ optOutEmail: true, optOutSms: false });
    expect(prefs.data.Contact).toMatchObject({ OptOutEmail: true, OptOutSms: true });
    expect(byType('Member Status Changed').data.Status).toBe('PaymentIssue');
  });

  it('the snapshot keeps the events last published for the subject, once each, newest first, three at most', async () => {
    // Prepare
    const { store, sink, detection, failNextPublish } = await setup();
    await detection.detect(rec('Active'), scanOf('baseline'), []);
    failNextPublish();
    await expect(detection.detect(rec('PaymentIssue'), scanOf('tail'), [])).rejects.toThrow();
    // Act: the failed poll's event again (from its intent), then six more transitions.
    await detection.detect(rec('PaymentIssue'), scanOf('tail'), []);
    const once = (await store.parts.snapshots.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    for (const status of ['Active', 'Frozen', 'Active', 'Frozen', 'Active', 'Cancelled'])
      await detection.detect(rec(status), scanOf('tail'), []);
    const after = (await store.parts.snapshots.getSnapshots(sydney.clubId, 'MEMBER', ['M1'])).get('M1');
    // Assess
    expect(publishedOf(once)).toEqual([
      {
        eventId: sink.events[0]!.detail.eventId,
        detailType: 'Member Status Changed',
        observedAt: sink.events[0]!.detail.observedAt,
      },
    ]);
    const ids = sink.events.map((e) => e.detail.eventId);
    expect(publishedOf(after).map((e) => e.eventId)).toEqual(ids.slice(-3).reverse());
  });

  it('with row marks, a row committed and seen again the same is not read; a change, and a change back, are', async () => {
    // Prepare: a store that counts the ids whose snapshots are read
    const reads: string[] = [];
    const store = decorateStore(new MemoryStateStore(), (method, args, call) => {
      if (method === 'getSnapshots') reads.push(...(args[2] as string[]));
      return call();
    });
    const session = await openSession(store, sydney.clubId);
    const sink = new MemorySink();
    const marks = new RowMarks(undefined);
    const detection = new StateDetection(
      session,
      sydney,
      members,
      async (page, q) => {
        await publishPageEvents(sink, page, q);
      },
      marks,
    );
    const two = (status: string) => [
      ...rec(status),
      { id: 'M2', item: member({ Number: 'M2', Status: 'Active' }) },
    ];
    await detection.detect(two('Active'), scanOf('tail'), []);
    reads.length = 0;
    const joined = sink.events.length;
    // Act
    await detection.detect(two('Active'), scanOf('tail'), []);
    const unchangedReads = [...reads];
    await detection.detect(two('Frozen'), scanOf('tail'), []);
    await detection.detect(two('Active'), scanOf('tail'), []);
    // Assess: nothing read while unchanged; M1 read at each change, both changes published
    expect(joined).toBe(2);
    expect(unchangedReads).toEqual([]);
    expect(reads).toEqual(['M1', 'M1']);
    expect(sink.events.slice(joined).map((e) => (e.detail as unknown as { status: string }).status)).toEqual([
      'Frozen',
      'Active',
    ]);
  });
});
