/**
 * What the bench counts on the API client's sockets (wire-counter.ts), per kind of request and per
 * window (a poll), and how windows add up. The model that turns it into bytes out: bytes-out.ts.
 */

/** What one kind of request came to at the socket. */
export interface WireTally {
  requests: number;
  /** Request line and headers as written (plaintext HTTP; the requests have no body). */
  requestBytes: number;
  maxRequestBytes: number;
  /** Response bytes as read: status line, headers, body. */
  responseBytes: number;
  /**
   * TCP segments of the responses (segmentsOf each), and the same counted per pair and per
   * GRO_SEGMENTS, each response rounded up: the ACKs at one per segment, per two, per aggregate.
   */
  responseSegments: number;
  responseSegmentPairs: number;
  responseSegmentBatches: number;
}

/** Full segments in a 64 KB GRO aggregate (65,536 / 1,448). */
export const GRO_SEGMENTS = 45;

export interface WireCounts {
  data: WireTally;
  token: WireTally;
  /** Data requests answered 401 (the bench's tokens expire on the simulated clock): not priced. */
  reauth401: WireTally;
  /** Sockets the client opened. */
  connectionsOpened: number;
  /** Σ over the counted windows (one a poll) of the most requests in flight at once. */
  coldPoolConnections: number;
  /** Windows counted (polls). */
  windows: number;
  /** Longest values seen, in characters (the values themselves are never kept). */
  bearerChars: number;
  apiKeyChars: number;
  hostChars: number;
}

const emptyTally = (): WireTally => ({
  requests: 0,
  requestBytes: 0,
  maxRequestBytes: 0,
  responseBytes: 0,
  responseSegments: 0,
  responseSegmentPairs: 0,
  responseSegmentBatches: 0,
});

export const emptyWireCounts = (): WireCounts => ({
  data: emptyTally(),
  token: emptyTally(),
  reauth401: emptyTally(),
  connectionsOpened: 0,
  coldPoolConnections: 0,
  windows: 0,
  bearerChars: 0,
  apiKeyChars: 0,
  hostChars: 0,
});

function addTally(into: WireTally, from: WireTally): void {
  into.requests += from.requests;
  into.requestBytes += from.requestBytes;
  into.maxRequestBytes = Math.max(into.maxRequestBytes, from.maxRequestBytes);
  into.responseBytes += from.responseBytes;
  into.responseSegments += from.responseSegments;
  into.responseSegmentPairs += from.responseSegmentPairs;
  into.responseSegmentBatches += from.responseSegmentBatches;
}

export function addWireCounts(into: WireCounts, from: WireCounts): void {
  addTally(into.data, from.data);
  addTally(into.token, from.token);
  addTally(into.reauth401, from.reauth401);
  into.connectionsOpened += from.connectionsOpened;
  into.coldPoolConnections += from.coldPoolConnections;
  into.windows += from.windows;
  into.bearerChars = Math.max(into.bearerChars, from.bearerChars);
  into.apiKeyChars = Math.max(into.apiKeyChars, from.apiKeyChars);
  into.hostChars = Math.max(into.hostChars, from.hostChars);
}
