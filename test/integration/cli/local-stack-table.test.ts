/**
 * What the local stack keeps in its webhook table instead of AWS's other services, against dynalite
 * with the real SDK: key documents written by racing writers lose nobody's endpoint (the
 * compare-and-swap); the delivery queue hands out what is due, in order, hides what it hands out,
 * and a stale receipt handle changes nothing (as in SQS); the archive keeps its last events and
 * reads a window; the mark is read only over a DynamoDB on this machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalArchive } from '../../../cli/local-stack/local-archive';
import { isLocalStack, markLocalStack } from '../../../cli/local-stack/local-stack-table';
import { TableDeliveryQueue } from '../../../cli/local-stack/table-delivery-queue';
import { TableSigningKeys } from '../../../cli/local-stack/table-signing-keys';
import { type DeliveryMessage, newDeliveryMessage } from '../../../lambdas/delivery/delivery-message';
import { generateWebhookSecret } from '../../../lambdas/delivery/webhook-signature';
import { createTestTable, type Dynalite, startDynalite } from '../../support/dynalite';

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(() => db.close());

const message = (id: string): DeliveryMessage =>
  newDeliveryMessage({ 'detail-type': 'Member Joined', detail: { eventId: id } }, 'ep-0123456789abcdef', 0);

describe('the local stack in its webhook table', () => {
  it('key documents: twenty endpoints added at once by four writers, none lost', async () => {
    const table = await createTestTable(db.client, 'local-keys');
    const writers = Array.from({ length: 4 }, () => new TableSigningKeys(db.client, table));
    const secrets = Array.from({ length: 20 }, () => generateWebhookSecret());
    await Promise.all(
      secrets.map((key, i) =>
        writers[i % 4]!.update('local/webhooks/keys-0', `ep-${String(i).padStart(16, '0')}`, () => ({
          keyVersion: 1,
          key,
        })),
      ),
    );
    for (const [i, key] of secrets.entries())
      expect(
        (await writers[0]!.entry('local/webhooks/keys-0', `ep-${String(i).padStart(16, '0')}`, 1))?.key,
      ).toBe(key);
    // An older copy is not what a newer key version asks for.
    expect(await writers[1]!.entry('local/webhooks/keys-0', 'ep-0000000000000000', 2)).toBeUndefined();
  });

  it('the delivery queue: due messages in order, hidden once taken, stale handles ignored', async () => {
    const table = await createTestTable(db.client, 'local-queue');
    let now = 1_000_000;
    const queue = new TableDeliveryQueue(db.client, table, { now: () => now, visibilityMs: 60_000 });
    await queue.send([
      { message: message('later'), delaySeconds: 30 },
      { message: message('first'), delaySeconds: 0 },
    ]);
    const [taken, ...rest] = await queue.receive(10);
    expect(rest).toEqual([]);
    expect(JSON.parse(taken!.body).id).toBe('first');
    expect(await queue.receive(10)).toEqual([]); // hidden while it is handled
    now += 31_000;
    const [later] = await queue.receive(10);
    expect(JSON.parse(later!.body).id).toBe('later');
    await queue.hide([{ receiptHandle: later!.receiptHandle, seconds: 5 }]);
    await queue.delete(later!.receiptHandle); // the handle of before the hide: nothing happens
    expect(await queue.size()).toBe(2);
    now += 5_000;
    const [again] = await queue.receive(10);
    expect(again!.messageId).toBe(later!.messageId);
    await queue.delete(again!.receiptHandle);
    now += 60_000;
    const [back] = await queue.receive(10); // never deleted: visible again after its timeout
    expect(JSON.parse(back!.body).id).toBe('first');
    await queue.delete(back!.receiptHandle);
    expect(await queue.size()).toBe(0);
  });

  it('the archive keeps its last events and reads a window; replays are not archived again', async () => {
    const table = await createTestTable(db.client, 'local-archive');
    const archive = new LocalArchive(db.client, table, 10);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    for (let i = 0; i < 520; i++)
      await archive.add({ 'detail-type': 'Member Joined', time: at(i), detail: { eventId: `e${i}` } });
    await archive.add({
      'detail-type': 'Member Joined',
      time: at(600),
      detail: { eventId: 'r' },
      'replay-name': 'x',
    });
    // It drops the oldest 500 at a time once it holds 500 more than it keeps: at the 511th, 501 went.
    const all = await archive.window(0, Date.parse(at(700)));
    expect(all.map((e) => e.detail.eventId)).toEqual(Array.from({ length: 19 }, (_, i) => `e${501 + i}`));
    const some = await archive.window(Date.parse(at(515)), Date.parse(at(518)));
    expect(some.map((e) => e.detail.eventId)).toEqual(['e515', 'e516', 'e517']);
  }, 60_000);

  it('is the local stack only when marked and DynamoDB is on this machine', async () => {
    const table = await createTestTable(db.client, 'local-mark');
    expect(await isLocalStack(db.client, table, db.endpoint)).toBe(false);
    await markLocalStack(db.client, table);
    expect(await isLocalStack(db.client, table, db.endpoint)).toBe(true);
    expect(await isLocalStack(db.client, table, undefined)).toBe(false);
    expect(await isLocalStack(db.client, table, 'https://dynamodb.us-east-1.amazonaws.com')).toBe(false);
  });
});
