/**
 * The delivery queue of the local stack, in its webhook table (local-aws serves no SQS): what the
 * SQS delivery queue does for a deployed stage, for one consumer (local-aws's delivery loop) and any
 * number of senders (its fan-out; `webhooks redrive` and `webhooks replay` in another process).
 *
 * A message is the item `QUEUE/<visible at, ms>#<id>`: a Query up to now finds what is due, in
 * order; taking one or hiding it moves it to a later sort key, and that key is its receipt handle
 * (a handle of an older position no longer exists: a late delete or hide is a no-op, as in SQS).
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type {
  DeliveryQueue,
  Hide,
  QueuedDelivery,
  ReceivedDelivery,
} from '../../lambdas/delivery/delivery-queue';
import { documentClient } from './local-stack-table';

const PK = 'QUEUE';
const sortKey = (visibleAt: number, id: string) =>
  `${String(Math.max(0, visibleAt)).padStart(15, '0')}#${id}`;
const idOf = (sk: string) => sk.slice(sk.indexOf('#') + 1);

export interface TableDeliveryQueueOptions {
  /** How long a received message stays hidden unless deleted or hidden again. @default 60 s */
  readonly visibilityMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export class TableDeliveryQueue implements DeliveryQueue {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #visibilityMs: number;
  readonly #now: () => number;

  constructor(client: DynamoDBClient, tableName: string, options: TableDeliveryQueueOptions = {}) {
    this.#doc = documentClient(client);
    this.#table = tableName;
    this.#visibilityMs = options.visibilityMs ?? 60_000;
    this.#now = options.now ?? Date.now;
  }

  async send(items: readonly QueuedDelivery[]): Promise<void> {
    const now = this.#now();
    for (const item of items) {
      await this.#put(sortKey(now + item.delaySeconds * 1000, randomUUID()), JSON.stringify(item.message));
    }
  }

  async hide(items: readonly Hide[]): Promise<void> {
    const now = this.#now();
    for (const item of items) await this.#move(item.receiptHandle, now + item.seconds * 1000);
  }

  /** Up to `max` messages due now, each hidden for the visibility timeout. */
  async receive(max = 10): Promise<ReceivedDelivery[]> {
    const now = this.#now();
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: 'pk = :pk AND sk <= :due',
        ExpressionAttributeValues: { ':pk': PK, ':due': sortKey(now, '\uffff') },
        Limit: max,
        ConsistentRead: true,
      }),
    );
    const out: ReceivedDelivery[] = [];
    for (const item of page.Items ?? []) {
      const handle = await this.#move(String(item.sk), now + this.#visibilityMs);
      if (handle) out.push({ messageId: idOf(handle), receiptHandle: handle, body: String(item.body) });
    }
    return out;
  }

  async delete(receiptHandle: string): Promise<void> {
    await this.#doc.send(new DeleteCommand({ TableName: this.#table, Key: { pk: PK, sk: receiptHandle } }));
  }

  /** Messages queued (due or not). */
  async size(): Promise<number> {
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': PK },
        Select: 'COUNT',
      }),
    );
    return page.Count ?? 0;
  }

  async #put(sk: string, body: string): Promise<void> {
    await this.#doc.send(new PutCommand({ TableName: this.#table, Item: { pk: PK, sk, body } }));
  }

  /** Moves a message to `visibleAt`; its new receipt handle, or undefined when it is gone. */
  async #move(handle: string, visibleAt: number): Promise<string | undefined> {
    const out = await this.#doc.send(
      new DeleteCommand({ TableName: this.#table, Key: { pk: PK, sk: handle }, ReturnValues: 'ALL_OLD' }),
    );
    if (!out.Attributes) return undefined;
    const next = sortKey(visibleAt, idOf(handle));
    await this.#put(next, String(out.Attributes.body));
    return next;
  }
}
