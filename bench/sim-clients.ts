/**
 * The API client factory of the simulations: the engine's own GymApiClientFactory (one token
 * provider per integrator login, as in production), with every request counted on the way.
 *
 * Tokens are cached on the real clock while the sandbox expires them on its simulated clock, so
 * about once per simulated hour a data request meets a 401 and the client re-authenticates once
 * (exactly what a token expiring in production looks like, minus the proactive refresh). Those
 * 401s are counted apart and left out of the data-request figures: the sandbox does not count them
 * against the quota either.
 *
 * Given the API's origin, it also counts the bytes each request puts on the wire (wire-counter.ts).
 */

import type { ClubConfig } from '../lambdas/clubs/club-config';
import { type ClientFactory, GymApiClientFactory } from '../lambdas/engine/club-poll/client-factory';
import type { GymApiClient, RequestObserver } from '../lambdas/gym-api';
import { SOURCE_ORDER, SOURCES } from '../lambdas/sources';
import { WireCounter } from './wire-counter';
import { emptyWireCounts, type WireCounts } from './wire-counts';

/** Each source reads one operation: a request's operation names the source it was made for. */
const SOURCE_OF_OPERATION: ReadonlyMap<string, string> = new Map(
  SOURCE_ORDER.map((name) => [SOURCES[name].operation, name]),
);

export interface RequestCounts {
  /** Data requests answered with anything but 401. */
  data: number;
  /** Data requests answered 401 (expired token, re-authenticated once). */
  reauth401: number;
  token: number;
  /** Wall time of data requests (request + response body), ms. */
  dataWallMs: number;
  /** Data requests per source, by the operation each source reads ('' for any other operation). */
  bySource: Record<string, number>;
  /** Of those, the pages asked for ahead: side by side with the page before, off the critical path. */
  aheadBySource: Record<string, number>;
  /** Bytes on the client's sockets (counted when the factory was given the API's origin). */
  wire?: WireCounts;
}

export const emptyRequestCounts = (): RequestCounts & { wire: WireCounts } => ({
  data: 0,
  reauth401: 0,
  token: 0,
  dataWallMs: 0,
  bySource: {},
  aheadBySource: {},
  wire: emptyWireCounts(),
});

export class CountingClientFactory implements ClientFactory {
  readonly #inner = new GymApiClientFactory();
  readonly #wire: WireCounter | undefined;
  counts: RequestCounts = emptyRequestCounts();

  /** @param wireOrigin the API's origin (`http://host:port`): count its requests' bytes on the wire. */
  constructor(wireOrigin?: string) {
    this.#wire = wireOrigin === undefined ? undefined : new WireCounter(wireOrigin);
  }

  take(): RequestCounts {
    const taken = this.counts;
    if (this.#wire) taken.wire = this.#wire.take();
    this.counts = emptyRequestCounts();
    return taken;
  }

  /** Stops counting bytes on the wire. */
  close(): void {
    this.#wire?.close();
  }

  forClub(club: ClubConfig, onRequest: RequestObserver): GymApiClient {
    return this.#inner.forClub(club, (event) => {
      if (event.kind === 'token') this.counts.token++;
      else if (event.status === 401) this.counts.reauth401++;
      else {
        this.counts.data++;
        this.counts.dataWallMs += event.durationMs;
        const source = SOURCE_OF_OPERATION.get(event.operation) ?? '';
        this.counts.bySource[source] = (this.counts.bySource[source] ?? 0) + 1;
        if (event.ahead) this.counts.aheadBySource[source] = (this.counts.aheadBySource[source] ?? 0) + 1;
      }
      onRequest(event);
    });
  }
}
