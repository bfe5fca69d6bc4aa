/**
 * The deployed path in process, on a simulated clock: what the dispatch Lambda decides
 * (`dispatchDueClubs`, the real function) and what the poll Lambda does per message (load the club
 * from the registry with its cached secret, check the message is not stale, `pollClub`), with the
 * registry, the secrets and the queue replaced by counting in-memory stand-ins.
 *
 * The poll handler itself (`createPollHandler`) is not called: it runs the engine on the wall clock,
 * and a simulation needs the engine on the sandbox's clock. Its per-message reads are mirrored
 * here instead (registry get, cursor listing for the stale check).
 */
import type { ClubRecord } from '../lambdas/clubs/club-record';
import type { ClubListing, ClubRegistry } from '../lambdas/clubs/club-registry';
import { SecretsManagerClubSecrets } from '../lambdas/clubs/club-secrets';
import { loadClub } from '../lambdas/clubs/load-club';
import { MemoryClubRegistry } from '../lambdas/clubs/memory-club-registry';
import type { PollMessage } from '../lambdas/common/deployment-contract';
import type { ClientFactory } from '../lambdas/engine/client-factory';
import { type ClubReport, pollClub } from '../lambdas/engine/poll-club';
import type { EventSink } from '../lambdas/events/event-sink';
import { type DispatchSummary, dispatchDueClubs } from '../lambdas/handlers/dispatch-due-clubs';
import type { StateStore } from '../lambdas/state/store';
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

/** A queue that keeps what the dispatcher sends and counts SendMessageBatch requests. */
export class CollectingQueue {
  readonly messages: PollMessage[] = [];
  sendMessageBatchRequests = 0;
  async sendBatch(messages: readonly PollMessage[]): Promise<void> {
    this.messages.push(...messages);
    this.sendMessageBatchRequests += Math.ceil(messages.length / 10);
  }
  drain(): PollMessage[] {
    return this.messages.splice(0, this.messages.length);
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

  dispatch(): Promise<DispatchSummary> {
    return dispatchDueClubs({
      registry: this.deps.registry,
      store: this.deps.store,
      queue: this.queue,
      now: this.deps.simNow,
    });
  }

  /** One poll message as the poll Lambda handles it; undefined when it has nothing to do. */
  async poll(message: PollMessage): Promise<ClubReport | undefined> {
    const d = this.deps;
    const loaded = await loadClub(
      {
        registry: d.registry,
        secrets: this.#secrets,
        piiPolicyDefault: 'minimal',
        secretPrefix: d.secretPrefix,
      },
      message.clubId,
    );
    if (loaded.status !== 'ready') return undefined;
    // The poll handler's stale-message check: sources polled successfully since the dispatch are skipped.
    const dispatchedMs = Date.parse(message.dispatchedAt);
    const cursors = await d.store.listCursors(message.clubId);
    const done = new Set(
      cursors
        .filter((c) => c.health.lastSuccessAt && Date.parse(c.health.lastSuccessAt) > dispatchedMs)
        .map((c) => c.source),
    );
    const sources = message.sources.filter((s) => !done.has(s));
    if (sources.length === 0) return undefined;
    return pollClub(
      { store: d.store, sink: d.sink, clients: d.clients, owner: d.owner, now: d.simNow },
      loaded.config,
      { deadlineMs: Date.now() + d.pollDeadlineMs, sources },
    );
  }
}
