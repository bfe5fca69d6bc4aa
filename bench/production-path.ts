/**
 * The deployed path in process, on a simulated clock: what the dispatch Lambda decides
 * (`dispatchDueClubs`, the real function) and what the poll Lambda does per message (load the club
 * from the registry with its cached secret, check the message is not stale, poll), with the
 * registry, the secrets and the queue replaced by counting in-memory stand-ins.
 *
 * Each message goes through the engine's use case (`pollClubMessage`), the very path the poll
 * handler calls, with the engine on the sandbox's clock: registry get, cached secret, the stale
 * check's cursor listing, the poll and its log.
 */
import type { ClubRecord } from '../lambdas/clubs/club-record';
import type { ClubListing, ClubRegistry } from '../lambdas/clubs/club-registry';
import { SecretsManagerClubSecrets } from '../lambdas/clubs/club-secrets';
import { loadClub } from '../lambdas/clubs/load-club';
import { MemoryClubRegistry } from '../lambdas/clubs/memory-club-registry';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import type { PollQueueEntry } from '../lambdas/common/poll-queue';
import type { ClientFactory } from '../lambdas/engine/club-poll/client-factory';
import type { ClubReport } from '../lambdas/engine/club-poll/poll-club';
import { type DispatchSummary, dispatchDueClubs } from '../lambdas/engine/dispatch/dispatch-due-clubs';
import { pollClubMessage } from '../lambdas/engine/poll-message/poll-club-message';
import type { EventSink } from '../lambdas/events/event-sink';
import type { StateStore } from '../lambdas/state/state-store';
import { itemBytes, readUnits } from './dynamo-units';

/** A registry that counts its table reads as the DynamoDB adapter would make them. */
export class CountingRegistry implements ClubRegistry {
  readonly #inner: MemoryClubRegistry;
  /** GetItem (consistent) per `get`; one Query per 1 MB page of the directory per listing. */
  readRequests = 0;
  readUnits = 0;

  constructor(records: readonly ClubRecord[], now: () => number) {
    this.#inner = new MemoryClubRegistry(records, now);
  }

  async listEnabled(): Promise<ClubListing> {
    const listing = await this.#inner.listEnabled();
    let bytes = 0;
    for (const r of listing.clubs) bytes += itemBytes({ pk: 'CLUBS', sk: r.clubId, ...r });
    const pages = Math.max(1, Math.ceil(bytes / 1_048_576));
    this.readRequests += pages;
    this.readUnits += readUnits(bytes);
    return { clubs: listing.clubs, requests: pages };
  }

  listAll(): Promise<ClubListing> {
    return this.#inner.listAll();
  }

  async get(clubId: string): Promise<ClubRecord | undefined> {
    const record = await this.#inner.get(clubId);
    this.readRequests++;
    this.readUnits += record ? readUnits(itemBytes({ pk: `CLUB#${clubId}`, sk: 'CONFIG', ...record })) : 1;
    return record;
  }

  put(record: ClubRecord): Promise<void> {
    return this.#inner.put(record);
  }

  disable(clubId: string): Promise<boolean> {
    return this.#inner.disable(clubId);
  }

  take(): { readRequests: number; readUnits: number } {
    const taken = { readRequests: this.readRequests, readUnits: this.readUnits };
    this.readRequests = 0;
    this.readUnits = 0;
    return taken;
  }
}

/** Secrets Manager stand-in: answers GetSecretValue from a map and counts the calls. */
export class CountingSecretsClient {
  calls = 0;
  constructor(private readonly values: ReadonlyMap<string, string>) {}

  async send(command: { input: { SecretId?: string } }): Promise<{ SecretString?: string }> {
    this.calls++;
    const value = this.values.get(command.input.SecretId ?? '');
    if (value === undefined) {
      const err = new Error('secret not found');
      err.name = 'ResourceNotFoundException';
      throw err;
    }
    return { SecretString: value };
  }
}

/** A queue that keeps what the dispatcher sends (with each one's moment) and counts SendMessageBatch requests. */
export class CollectingQueue {
  readonly entries: PollQueueEntry[] = [];
  sendMessageBatchRequests = 0;
  async sendBatch(entries: readonly PollQueueEntry[]): Promise<void> {
    this.entries.push(...entries);
    this.sendMessageBatchRequests += Math.ceil(entries.length / 10);
  }
  /** The messages sent since the last drain. */
  drain(): PollMessage[] {
    return this.drainEntries().map((e) => e.message);
  }
  /** The same with each one's moment (`notBeforeMs`, when the period is spread). */
  drainEntries(): PollQueueEntry[] {
    return this.entries.splice(0, this.entries.length);
  }
}

export interface ProductionPathDeps {
  readonly registry: CountingRegistry;
  readonly secretsClient: CountingSecretsClient;
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly clients: ClientFactory;
  readonly simNow: () => number;
  readonly pollDeadlineMs: number;
  readonly secretPrefix: string;
  readonly owner: string;
  /** Seconds of each minute the polls are spread over, as deployed (DISPATCH_SPREAD_SECONDS). @default 0 */
  readonly spreadSeconds?: number;
}

export class ProductionPath {
  readonly queue = new CollectingQueue();
  readonly #secrets: SecretsManagerClubSecrets;

  constructor(private readonly deps: ProductionPathDeps) {
    this.#secrets = new SecretsManagerClubSecrets({
      client: deps.secretsClient as never,
      now: deps.simNow,
    });
  }

  /** The dispatcher's run at the start of a period (one shard for the whole fleet). */
  dispatch(): Promise<DispatchSummary> {
    const nowMs = this.deps.simNow();
    return dispatchDueClubs({
      registry: this.deps.registry,
      store: this.deps.store,
      queue: this.queue,
      now: nowMs,
      periodStartMs: nowMs,
      spreadSeconds: this.deps.spreadSeconds ?? 0,
    });
  }

  /** One poll message as the poll Lambda handles it (the engine's use case); undefined when it had nothing to do. */
  async poll(message: PollMessage): Promise<ClubReport | undefined> {
    const d = this.deps;
    const secrets = this.#secrets;
    const loadDeps = {
      registry: d.registry,
      secrets,
      piiPolicyDefault: 'minimal' as const,
      secretPrefix: d.secretPrefix,
    };
    const result = await pollClubMessage(
      {
        store: d.store,
        sink: d.sink,
        clients: d.clients,
        now: d.simNow,
        secrets,
        loadClub: (id) => loadClub(loadDeps, id),
      },
      message,
      { deadlineMs: Date.now() + d.pollDeadlineMs, owner: d.owner },
    );
    if (result.error !== undefined) throw result.error;
    return result.report;
  }
}
