/**
 * The webhook table: endpoints, their health and their dead letters, in a DynamoDB table of the
 * state table's shape (pk, sk, expiresAt TTL) but of its own (docs/webhooks.md, "Why a table of its
 * own"): the delivery Lambdas, which talk to URLs anyone with the CLI can add, get no access to the
 * clubs' state; webhook traffic never throttles the polls; the table is on demand while the state
 * table may be provisioned for the fleet.
 *
 * | item | pk | sk |
 * |---|---|---|
 * | endpoint config | `ENDPOINT` | `<endpointId>` |
 * | registry version (bumped by every endpoint write) | `REGISTRY` | `VERSION` |
 * | health: failures in a row, circuit, last success and failure | `EP#<endpointId>` | `HEALTH` |
 * | dead letter | `EP#<endpointId>#DEAD` | `<webhookId>` |
 *
 * Every endpoint in one partition: the fan-out reads them all with one Query when the registry
 * version changes, never per event. Writes of an endpoint are conditional on its `version`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { logger } from '../common/logger';
import { DAY_MS, SECOND_MS } from '../common/time-units';
import { type Endpoint, EndpointSchema } from './endpoint';

export interface HealthSuccess {
  readonly at: number;
  readonly status: number;
  readonly webhookId: string;
  /** Publish (or first queue) to 2xx, ms. */
  readonly latencyMs?: number;
}

export interface HealthFailure {
  readonly at: number;
  readonly status?: number;
  readonly error: string;
  readonly excerpt?: string;
  readonly webhookId: string;
  readonly attempt: number;
  readonly clubId?: string;
}

/** An endpoint's health: what the circuit decides on, and what `webhooks status` shows. */
export interface EndpointHealth {
  /** Failed attempts in a row (0: the last attempt succeeded). */
  readonly failures: number;
  readonly failingSince?: number;
  /** No attempt before this (the circuit is open, or a Retry-After asked for it). */
  readonly retryAt?: number;
  /** A probe is in flight until then. */
  readonly probeUntil?: number;
  /**
   * Until then the fan-out makes no first attempt itself: the endpoint's deliveries go through the
   * delivery queue (an inline attempt was handed off, or it answers slower than the inline budget).
   */
  readonly queueOnlyUntil?: number;
  readonly lastSuccess?: HealthSuccess;
  readonly lastFailure?: HealthFailure;
  /** Write counter: conditional writes check it. */
  readonly rev: number;
}

export const EMPTY_HEALTH: EndpointHealth = { failures: 0, rev: 0 };

export interface DeadLetter {
  readonly webhookId: string;
  /** The delivery message as queued (./delivery-message.ts). */
  readonly message: string;
  readonly reason: string;
  readonly deadLetteredAt: number;
  readonly attempts: number;
  readonly lastStatus?: number;
  readonly lastError?: string;
}

/** Dead letters are kept this long (a TTL; `redrive` before then). */
export const DEAD_LETTER_DAYS = 30;

export class WebhookStoreError extends Error {
  override readonly name: string = 'WebhookStoreError';
}

/** An endpoint write lost a race (someone else wrote it in between): read it again and retry. */
export class EndpointConflictError extends WebhookStoreError {
  override readonly name = 'EndpointConflictError';
}

const ENDPOINT_PK = 'ENDPOINT';
const REGISTRY_KEY = { pk: 'REGISTRY', sk: 'VERSION' };
const healthKey = (id: string) => ({ pk: `EP#${id}`, sk: 'HEALTH' });
const deadPk = (id: string) => `EP#${id}#DEAD`;

const isConditionFailure = (err: unknown) =>
  err instanceof Error && err.name === 'ConditionalCheckFailedException';

export interface WebhookStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

export class WebhookStore {
  readonly #doc: DynamoDBDocumentClient;
  readonly tableName: string;

  constructor(options: WebhookStoreOptions) {
    this.#doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.tableName = options.tableName;
  }

  // -------------------------------------------------------------------------------------------
  // Endpoints

  /** Every endpoint (items that do not parse are logged, by id, and left out). */
  async listEndpoints(): Promise<Endpoint[]> {
    const out: Endpoint[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': ENDPOINT_PK },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const parsed = EndpointSchema.safeParse(item);
        if (parsed.success) out.push(parsed.data);
        else
          logger.error('webhook endpoint item unreadable, left out', {
            endpointId: item.sk,
            reason: parsed.error.message.slice(0, 300),
          });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  async getEndpoint(endpointId: string): Promise<Endpoint | undefined> {
    const out = await this.#doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: ENDPOINT_PK, sk: endpointId },
        ConsistentRead: true,
      }),
    );
    return out.Item ? EndpointSchema.parse(out.Item) : undefined;
  }

  /**
   * Writes an endpoint: a new one (`expectedVersion` undefined: it must not exist) or the next
   * version of one (its stored version must be `expectedVersion`). Bumps the registry version.
   */
  async putEndpoint(endpoint: Endpoint, expectedVersion?: number): Promise<void> {
    const condition =
      expectedVersion === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': expectedVersion } };
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { pk: ENDPOINT_PK, sk: endpoint.endpointId, ...EndpointSchema.parse(endpoint) },
          ...condition,
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) {
        throw new EndpointConflictError(
          expectedVersion === undefined
            ? `endpoint ${endpoint.endpointId} exists already`
            : `endpoint ${endpoint.endpointId} changed meanwhile (not version ${expectedVersion}): read it again`,
          { cause: err },
        );
      }
      throw err;
    }
    await this.bumpRegistry();
  }

  /** Deletes an endpoint, its health and its dead letters. */
  async deleteEndpoint(endpointId: string): Promise<void> {
    await this.#doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: { pk: ENDPOINT_PK, sk: endpointId } }),
    );
    await this.#doc.send(new DeleteCommand({ TableName: this.tableName, Key: healthKey(endpointId) }));
    for (;;) {
      const page = await this.listDeadLetters(endpointId, 100);
      if (page.length === 0) break;
      for (const dead of page) await this.deleteDeadLetter(endpointId, dead.webhookId);
    }
    await this.bumpRegistry();
  }

  /** The registry version: changes whenever an endpoint is written (readers reload then). */
  async registryVersion(): Promise<number> {
    const out = await this.#doc.send(new GetCommand({ TableName: this.tableName, Key: REGISTRY_KEY }));
    return typeof out.Item?.v === 'number' ? out.Item.v : 0;
  }

  async bumpRegistry(): Promise<void> {
    await this.#doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: REGISTRY_KEY,
        UpdateExpression: 'ADD v :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Health

  /** The health of each endpoint (EMPTY_HEALTH for one never attempted), one BatchGetItem per 100. */
  async getHealth(endpointIds: readonly string[]): Promise<Map<string, EndpointHealth>> {
    const out = new Map<string, EndpointHealth>();
    const ids = [...new Set(endpointIds)];
    for (let i = 0; i < ids.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map(healthKey);
      for (let round = 0; keys && keys.length > 0 && round < 5; round++) {
        const page = await this.#doc.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys } } }),
        );
        for (const item of page.Responses?.[this.tableName] ?? []) {
          out.set(String(item.pk).slice(3), healthOf(item));
        }
        keys = page.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined;
      }
      if (keys && keys.length > 0)
        throw new WebhookStoreError(`health of ${keys.length} endpoints unread (throttled)`);
    }
    for (const id of ids) if (!out.has(id)) out.set(id, EMPTY_HEALTH);
    return out;
  }

  /**
   * Writes an endpoint's health if nobody wrote it since `expectedRev` was read; false when
   * someone did (read it again and decide again).
   */
  async writeHealth(endpointId: string, health: EndpointHealth, expectedRev: number): Promise<boolean> {
    try {
      await this.#doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...healthKey(endpointId), ...health, rev: expectedRev + 1 },
          ConditionExpression: expectedRev === 0 ? 'attribute_not_exists(pk) OR rev = :r' : 'rev = :r',
          ExpressionAttributeValues: { ':r': expectedRev },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Dead letters

  /** Stores a dead letter (idempotent: the same delivery dead-lettered twice is one item). */
  async putDeadLetter(endpointId: string, dead: DeadLetter): Promise<void> {
    await this.#doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: deadPk(endpointId),
          sk: dead.webhookId,
          ...dead,
          expiresAt: Math.floor((dead.deadLetteredAt + DEAD_LETTER_DAYS * DAY_MS) / SECOND_MS),
        },
      }),
    );
  }

  async listDeadLetters(endpointId: string, limit: number): Promise<DeadLetter[]> {
    const page = await this.#doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': deadPk(endpointId) },
        Limit: limit,
      }),
    );
    return (page.Items ?? []).map((item) => ({
      webhookId: String(item.webhookId),
      message: String(item.message),
      reason: String(item.reason),
      deadLetteredAt: Number(item.deadLetteredAt),
      attempts: Number(item.attempts ?? 0),
      ...(typeof item.lastStatus === 'number' ? { lastStatus: item.lastStatus } : {}),
      ...(typeof item.lastError === 'string' ? { lastError: item.lastError } : {}),
    }));
  }

  async countDeadLetters(endpointId: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.#doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': deadPk(endpointId) },
          Select: 'COUNT',
          ExclusiveStartKey: start,
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }

  async deleteDeadLetter(endpointId: string, webhookId: string): Promise<void> {
    await this.#doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: { pk: deadPk(endpointId), sk: webhookId } }),
    );
  }
}

function healthOf(item: Record<string, unknown>): EndpointHealth {
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
  return {
    failures: num(item.failures) ?? 0,
    rev: num(item.rev) ?? 0,
    ...optional('failingSince', num(item.failingSince)),
    ...optional('retryAt', num(item.retryAt)),
    ...optional('probeUntil', num(item.probeUntil)),
    ...optional('queueOnlyUntil', num(item.queueOnlyUntil)),
    ...optional('lastSuccess', item.lastSuccess as HealthSuccess | undefined),
    ...optional('lastFailure', item.lastFailure as HealthFailure | undefined),
  };
}
