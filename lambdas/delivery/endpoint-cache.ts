/**
 * What a delivery Lambda keeps in memory between invocations, so that the happy path reads almost
 * nothing: every endpoint with its compiled filter, read again only when the registry version (one
 * small item, checked every REGISTRY_CHECK_MS) has changed; and each endpoint's health, kept
 * HEALTH_TTL_MS and read for a batch's endpoints in one BatchGetItem.
 */

import { MINUTE_MS } from '../common/time-units';
import { compileFilter, type Endpoint, type EndpointFilter } from './endpoint';
import { EMPTY_HEALTH, type EndpointHealth, type WebhookStore } from './webhook-store';

export const REGISTRY_CHECK_MS = 10_000;
export const HEALTH_TTL_MS = 10_000;
/**
 * The fan-out's: it reads health only to choose between a first attempt and the queue, and learns
 * at once from its own attempts (a failure or a hand-off it writes). What another process wrote
 * reaches it within 5 minutes: an endpoint that began failing elsewhere may get one first attempt
 * from each fan-out meanwhile (then it knows), and one that recovered is served through the queue
 * a few minutes more. A fan-out that drains the ingest queue lives long and sees every endpoint
 * every half minute or so: its batches then rarely need a read at all.
 */
export const FAN_OUT_HEALTH_TTL_MS = 5 * MINUTE_MS;

export interface CachedEndpoint {
  readonly endpoint: Endpoint;
  readonly matches: EndpointFilter;
}

export class EndpointRegistry {
  readonly #store: Pick<WebhookStore, 'listEndpoints' | 'registryVersion'>;
  readonly #now: () => number;
  readonly #checkMs: number;
  #version = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #byId = new Map<string, CachedEndpoint>();
  #loading: Promise<void> | undefined;

  constructor(options: {
    readonly store: Pick<WebhookStore, 'listEndpoints' | 'registryVersion'>;
    readonly now?: () => number;
    readonly checkEveryMs?: number;
  }) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#checkMs = options.checkEveryMs ?? REGISTRY_CHECK_MS;
  }

  /** Every endpoint (enabled or not). */
  async all(): Promise<CachedEndpoint[]> {
    await this.#fresh();
    return [...this.#byId.values()];
  }

  async get(endpointId: string): Promise<CachedEndpoint | undefined> {
    await this.#fresh();
    return this.#byId.get(endpointId);
  }

  /** Forget what was read: the next call reads the registry (after this process wrote it). */
  invalidate(): void {
    this.#checkedAt = Number.NEGATIVE_INFINITY;
    this.#version = -1;
  }

  async #fresh(): Promise<void> {
    if (this.#now() - this.#checkedAt < this.#checkMs) return;
    this.#loading ??= this.#load().finally(() => {
      this.#loading = undefined;
    });
    await this.#loading;
  }

  async #load(): Promise<void> {
    const version = await this.#store.registryVersion();
    if (version !== this.#version || this.#version < 0) {
      const endpoints = await this.#store.listEndpoints();
      const previous = this.#byId;
      this.#byId = new Map(
        endpoints.map((endpoint) => {
          const old = previous.get(endpoint.endpointId);
          const same = old && old.endpoint.version === endpoint.version;
          return [endpoint.endpointId, same ? old : { endpoint, matches: compileFilter(endpoint) }];
        }),
      );
      this.#version = version;
    }
    this.#checkedAt = this.#now();
  }
}

export class HealthCache {
  readonly #store: Pick<WebhookStore, 'getHealth'>;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { readonly health: EndpointHealth; readonly at: number }>();

  constructor(options: {
    readonly store: Pick<WebhookStore, 'getHealth'>;
    readonly now?: () => number;
    readonly ttlMs?: number;
  }) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#ttlMs = options.ttlMs ?? HEALTH_TTL_MS;
  }

  /** The health of each endpoint, reading those not fresh in one call. */
  async get(endpointIds: readonly string[]): Promise<Map<string, EndpointHealth>> {
    const now = this.#now();
    // Several callers at once (a fan-out's receives): what is fresh is taken before the read, and a
    // health set or forgotten meanwhile by another caller neither goes missing nor goes back.
    const known = new Map<string, EndpointHealth>();
    const stale: string[] = [];
    for (const id of endpointIds) {
      const entry = this.#entries.get(id);
      if (entry && now - entry.at < this.#ttlMs) known.set(id, entry.health);
      else stale.push(id);
    }
    if (stale.length > 0) {
      const read = await this.#store.getHealth(stale);
      for (const [id, health] of read) {
        const newer = this.#entries.get(id);
        if (newer && newer.health.rev > health.rev) known.set(id, newer.health);
        else {
          this.#entries.set(id, { health, at: now });
          known.set(id, health);
        }
      }
    }
    return new Map(endpointIds.map((id) => [id, known.get(id) ?? EMPTY_HEALTH]));
  }

  /** What this process just wrote (or read fresh). */
  set(endpointId: string, health: EndpointHealth): void {
    this.#entries.set(endpointId, { health, at: this.#now() });
  }

  forget(endpointId: string): void {
    this.#entries.delete(endpointId);
  }
}
