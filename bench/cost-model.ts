import type { PollWork } from './lambda-batches';

/** The fleet the cost per club is quoted for (docs/benchmarks.json `costPerClubMonthUsd`). */
export const COST_FLEET_CLUBS = 1000;

/**
 * The cost model's shapes and units: what the simulations count per club and month, what the
 * dispatcher shares out, a priced line, and the constants and number format the lines are
 * written with.
 */

/** One club, one month (30 days), steady state (after the baseline). */
export interface MonthlyClubCounts {
  readonly pollInvocations: number;
  /** Σ measured local wall time of the poll invocations, ms. */
  readonly pollLocalMs: number;
  readonly apiRequests: number;
  /** API requests a poll waits for: its first source's, then the busiest of the others' (side by side). */
  readonly criticalApiRequests: number;
  readonly tokenRequests: number;
  /** DynamoDB requests of the poll invocations (engine + club lookup). */
  readonly pollStoreRequests: number;
  readonly putEventsRequests: number;
  readonly secretsCalls: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly billedEvents: number;
  /** Bytes of the events put on the bus (what the archive stores). */
  readonly eventBytes: number;
  readonly sqsMessages: number;
  readonly emfBytes: number;
  readonly logBytes: number;
  readonly perClubMetrics: number;
  /** Items the club keeps in the table (snapshots, live seen keys, cursors), and their bytes. */
  readonly storedBytes: number;
  /**
   * Bytes the API requests send out (bench/bytes-out.ts): measured at the client's sockets, plus
   * the stated model of what a socket count cannot see. Absent in older reports: the data-transfer
   * line falls back to REQUEST_BYTES_OUT a request.
   */
  readonly bytesOut?: MonthlyBytesOut;
  /**
   * Measured polls (a seeded sample) the Lambda model draws its batches from (lambda-batches.ts):
   * an invocation lasts as long as its slowest club. Absent: the average club, waits / batch.
   */
  readonly pollWork?: readonly PollWork[];
  /**
   * The fast lane's polls (probes, and the sessions they opened), apart from the minute's polls
   * above: their invocations hold probes only (engine/schedule/fast-lane.ts). Their API requests,
   * store units, SQS messages, logs and bytes out are in the totals above.
   */
  readonly lane?: LanePolls;
}

/** The fast lane's poll invocations over the month, as the Lambda model needs them. */
export interface LanePolls {
  readonly pollInvocations: number;
  readonly pollLocalMs: number;
  readonly criticalApiRequests: number;
  readonly pollStoreRequests: number;
  readonly putEventsRequests: number;
  readonly pollWork?: readonly PollWork[];
}

/** A club-month's bytes out to the gym API, by part (bench/bytes-out.ts says how each is had). */
export interface MonthlyBytesOut {
  /** Every part below, with the stated constants at their values. */
  readonly total: number;
  /** HTTP request lines and headers as the client wrote them, credentials at their stated lengths. */
  readonly requests: number;
  /** TLS records and TCP/IPv4 headers of the requests' segments. */
  readonly framing: number;
  /** The client's ACKs of the response bytes. */
  readonly acks: number;
  /** TCP and TLS connection setup and close, per connection the polls open. */
  readonly handshakes: number;
  /** The total with every stated constant at its low and at its high bound. */
  readonly low: number;
  readonly high: number;
  /** Connections a month (a pool cold at each poll). */
  readonly connections: number;
  /** Measured per request at the socket (plaintext HTTP, before any correction). */
  readonly measured: {
    readonly dataRequestBytes: number;
    readonly tokenRequestBytes: number;
    readonly responseBytesPerDataRequest: number;
    /** Characters of the sandbox's bearer token (a JWT), as sent. */
    readonly bearerChars: number;
    /** Connections the bench's polls opened, and a pool cold at each poll would, per poll. */
    readonly openedPerPoll: number;
    readonly coldPoolPerPoll: number;
    /** The answers' JSON bytes over their bytes as sent (> 1: the API gzipped them); 1 unknown. */
    readonly answerInflation: number;
  };
}

export interface DispatchShare {
  /** Dispatch CPU per club per run, ms (measured on a whole core). */
  readonly cpuMsPerClub: number;
  /** DynamoDB requests per club per run (one BatchGetItem per 100 clubs). */
  readonly requestsPerClub: number;
  /** Log bytes the dispatcher writes per run (its summary line), shared by the fleet. */
  readonly logBytesPerRun: number;
}

export interface CostLine {
  /** Stable name of the line (docs/benchmarks.json `costPerClubMonthUsd.byLine`). */
  readonly key: string;
  readonly item: string;
  readonly formula: string;
  readonly usd: number;
  /** True for a fleet-wide cost divided over the clubs. */
  readonly fixed: boolean;
}

export interface ClubCost {
  readonly lines: CostLine[];
  /** Everything billed, per club per month. */
  readonly total: number;
  /** The lines that grow with each club (not the fleet-wide share). */
  readonly variableTotal: number;
  /** The fleet-wide fixed costs per month (not divided). */
  readonly fleetFixedUsd: number;
  readonly fleetClubs: number;
  readonly pollGbSeconds: number;
  /** Billed milliseconds of one poll invocation (a batch of clubs side by side). */
  readonly pollBilledMsPerInvocation: number;
  /** The invocation's share per club, ms. */
  readonly pollBilledMsPerClubPoll: number;
  /** Billed ms of one fast-lane invocation (a batch of probes), when the club has a lane. */
  readonly laneBilledMsPerInvocation?: number;
}

export const MONTH_MINUTES = 30 * 24 * 60;
export const GB = 1e9;
/** Memory at which a Lambda function gets one full vCPU. */
export const LAMBDA_FULL_VCPU_MB = 1769;
/** Bytes a gym API request sends out (request line, Host, bearer token, x-api-key, TLS framing). */
export const REQUEST_BYTES_OUT = 1500;
/** Bytes of the platform's START, END and REPORT lines of one invocation (Lambda writes them). */
export const PLATFORM_LOG_BYTES = 420;
/** Clubs one shared secret holds (64 KB at about 100 bytes a club, with room to spare). */
export const CLUBS_PER_SECRET = 600;
/** Lambda's SQS pollers (5 at least), each long-polling 20 s: receives a month whatever the load. */
export const IDLE_RECEIVES = 5 * 3 * MONTH_MINUTES;
export const fmt = (n: number) =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : String(Number(n.toPrecision(3)));

/** A line that grows with each club. */
export const clubLine = (key: string, item: string, formula: string, usd: number): CostLine => ({
  key,
  item,
  formula,
  usd,
  fixed: false,
});
