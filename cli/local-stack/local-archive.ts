/**
 * The local stack's archive of the bus (local-aws's EventBridge keeps none): each event local-aws
 * receives, as the webhook rule's target would get it, in the webhook table (`ARCHIVE/<event
 * time>#<eventId>`), the last MAX_ARCHIVED kept. `webhooks replay` on the local stack reads a window
 * of it, as a deployed stage's replay reads the EventBridge archive.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BusEvent } from '../../lambdas/delivery/delivery-message';
import { documentClient } from './local-stack-table';

/**
 * Events kept (the oldest are dropped 500 at a time once 500 more are held): hours of a busy local
 * run, some 15 MB.
 */
export const MAX_ARCHIVED = 10_000;
const PK = 'ARCHIVE';

export class LocalArchive {
  readonly #doc: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #max: number;
  #count = 0;

  constructor(client: DynamoDBClient, tableName: string, max = MAX_ARCHIVED) {
    this.#doc = documentClient(client);
    this.#table = tableName;
    this.#max = max;
  }

  /** Archives an event (a replayed one is not archived again, as in EventBridge). */
  async add(event: BusEvent & { readonly time: string }): Promise<void> {
    if (event['replay-name'] !== undefined) return;
    await this.#doc.send(
      new PutCommand({
        TableName: this.#table,
        Item: { pk: PK, sk: `${event.time}#${String(event.detail.eventId)}`, event: JSON.stringify(event) },
      }),
    );
    this.#count++;
    if (this.#count > this.#max + 500) await this.#trim(this.#count - this.#max);
  }

  /** The archived events of [from, to), oldest first. */
  async window(fromMs: number, toMs: number): Promise<BusEvent[]> {
    const out: BusEvent[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': PK,
            ':from': new Date(fromMs).toISOString(),
            ':to': new Date(toMs).toISOString(),
          },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const event = JSON.parse(String(item.event)) as BusEvent & { time: string };
        if (Date.parse(event.time) < toMs) out.push(event);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  async #trim(excess: number): Promise<void> {
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': PK },
        Limit: excess,
        ProjectionExpression: 'pk, sk',
      }),
    );
    for (const item of page.Items ?? []) {
      await this.#doc.send(new DeleteCommand({ TableName: this.#table, Key: { pk: PK, sk: item.sk } }));
      this.#count--;
    }
  }
}
