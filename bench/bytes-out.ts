/**
 * Bytes the poll's API requests send out (AWS bills data transfer out to the internet by the GB):
 * what the real client writes for each request, measured at its sockets (bench/wire-counter.ts),
 * plus a stated model of what a count of plaintext HTTP bytes cannot see: TLS records, TCP/IPv4
 * headers, the ACKs the client sends for the responses, and the connections it sets up and closes.
 * Every constant is in ASSUMPTIONS with its value, its low and high bounds and where it comes from;
 * the model is run at the values (the total) and at the bounds (low, high).
 */
import { fmt, type MonthlyBytesOut, type MonthlyClubCounts, REQUEST_BYTES_OUT } from './cost-model';
import { GRO_SEGMENTS, type WireCounts, type WireTally } from './wire-counts';

export interface Assumption {
  readonly value: number;
  /** The bound that gives fewer bytes out, and the one that gives more. */
  readonly low: number;
  readonly high: number;
  readonly source: string;
}

/** Each constant of the model, its bounds, and its source or reasoning. Bytes unless named. */
export const ASSUMPTIONS = {
  mss: {
    value: 1448,
    low: 1448,
    high: 1448,
    source:
      'TCP payload of a full segment: a 1,500 B internet MTU - 20 IPv4 - 20 TCP - 12 timestamps option (jumbo frames do not cross the internet gateway)',
  },
  packetHeader: {
    value: 52,
    low: 40,
    high: 52,
    source:
      'IPv4 20 + TCP 20 + timestamps 12 per client packet (Linux sends timestamps; 40 if the server refuses them). Lambda reaches the internet over IPv4. Whether AWS bills header bytes is not documented: counting them is the upper side',
  },
  synBytes: {
    value: 60,
    low: 60,
    high: 60,
    source: "Linux's SYN: 40 B of headers + 20 B of options (MSS, SACK permitted, timestamps, window scale)",
  },
  tlsRecordOverhead: {
    value: 29,
    low: 22,
    high: 29,
    source:
      'AES-GCM record: TLS 1.2 5 header + 8 explicit nonce + 16 tag (RFC 5288); TLS 1.3 5 + 1 type + 16 tag (RFC 8446). One record a request: undici writes a bodyless request in one socket.write (measured over TLS 1.3: 629 B of HTTP went out as 651 B)',
  },
  clientHelloBytes: {
    value: 1604,
    low: 382,
    high: 1604,
    source:
      "Node fetch's ClientHello record: 382 B measured on Node 20.20 (OpenSSL 3.0, an x25519 key share). Node >= 22.20 and >= 24.5 bundle OpenSSL 3.5, whose default groups add an X25519MLKEM768 key share: 1,184 B ML-KEM-768 key (FIPS 203) + 32 B x25519 + 4 B entry + 2 B in supported_groups = +1,222 B (reasoned, no such Node here): the deployed nodejs22.x runtime sends ~1,604 B",
  },
  sessionTicketBytes: {
    value: 303,
    low: 0,
    high: 500,
    source:
      "A resumed session's ticket in the ClientHello (undici caches TLS sessions per origin: a warm container resumes): measured +303 B against a Node server's ticket (685 B vs 382 B); another server's tickets may be larger (500: a stated guess); 0 on a fresh session",
  },
  clientFinishedBytes: {
    value: 80,
    low: 80,
    high: 93,
    source:
      "The client's second flight, measured: TLS 1.3 ChangeCipherSpec 6 + Finished 74 (sent in the first request's segment); TLS 1.2 ClientKeyExchange + ChangeCipherSpec + Finished 93",
  },
  handshakeAcks: {
    value: 3,
    low: 1,
    high: 6,
    source:
      "Pure ACKs to the server's handshake flight (a 3-5 KB certificate chain: 3-4 segments, one ACK per two) and its session tickets; 1 when resumed without a certificate, 6 when every segment is ACKed (Linux quick-ACK mode at a connection's start)",
  },
  closePackets: {
    value: 2,
    low: 2,
    high: 3,
    source:
      "FIN and the ACK of the server's FIN (undici destroys an idle socket without close_notify: measured); 3 with an ACK of the server's close_notify",
  },
  segmentsPerAck: {
    value: 2,
    low: GRO_SEGMENTS,
    high: 1,
    source:
      "Delayed ACK: one ACK per two full-size segments (RFC 1122, RFC 5681; each response rounded up). High: one per segment (Linux quick-ACK mode at a connection's start). Low: one per 64 KB aggregate, if the guest's GRO merges a response's segments before TCP sees them (Linux ACKs per received skb once more than one MSS is unacknowledged)",
  },
  coldPoolEachPoll: {
    value: 0,
    low: 0,
    high: 1,
    source:
      "0: the pool warm, as the bench's back-to-back polls found it (the sockets they opened). At 1,000 clubs the fleet's containers are busy almost without a gap: ~100 invocations a minute of ~5 s each keep about 8 containers running one after the other, and every club shares the API's origin, so a poll finds the sockets the previous invocation's clubs left (undici keeps an idle socket ~4 s). 1 (high): a club's poll opens as many connections as it has requests in flight at its busiest, the pool cold at every poll (a small fleet, whose containers wait longer than 4 s between invocations). Outside the bound: a server closing every connection (one a request)",
  },
  bearerChars: {
    value: 1200,
    low: 0,
    high: 2048,
    source:
      'The API says AccessToken is a JWT. An RS256 client-credentials JWT: a 342-char signature (RSA 2048) + header ~120 + claims 400-700 = 850-1,200 chars (reasoned); Entra ID access tokens 1,200-1,800 (openai/codex#17099); Microsoft advises handling 2 KB. The larger of the measured sandbox token and this; low: the measured token',
  },
  apiKeyChars: {
    value: 40,
    low: 0,
    high: 64,
    source:
      'x-api-key value: per club, length not stated (API gateway keys are 30-40 chars, hex subscription keys 32); the larger of measured and this; low: measured',
  },
  hostChars: {
    value: 40,
    low: 0,
    high: 64,
    source:
      "Host header: the sandbox's 127.0.0.1:port against the vendor's DNS name (not stated; 20-40 chars typical); the larger of measured and this; low: measured",
  },
  basePathExtraChars: {
    value: 16,
    low: 0,
    high: 48,
    source:
      "Request line: the real base address's path may carry more segments than the sandbox's /v1 (not stated); added to every request",
  },
  answersAsDecoded: {
    value: 0,
    low: 0,
    high: 1,
    source:
      "Whether the API compresses its answers is not stated. The client offers gzip (Node's fetch sends Accept-Encoding: gzip, deflate and decodes), and the sandbox, like most HTTP front ends, gzips a page when offered (level 1): the ACKs are of what came over the wire (0). High (1): an API that never compresses, its answers as long as their JSON (the measured ratio of JSON to bytes sent), the ACKs in proportion",
  },
} as const satisfies Record<string, Assumption>;

export type Setting = 'value' | 'low' | 'high';
type Name = keyof typeof ASSUMPTIONS;

/** TCP segments of `bytes` of plaintext sent in TLS records (the MSS and overhead at their values). */
export function segmentsOf(bytes: number): number {
  if (bytes <= 0) return 0;
  const records = Math.ceil(bytes / 16_384);
  return Math.ceil((bytes + records * ASSUMPTIONS.tlsRecordOverhead.value) / ASSUMPTIONS.mss.value);
}

/** Client bytes of one connection: TCP setup, ClientHello, second flight, ACKs, close. */
export function handshakeBytes(setting: Setting = 'value'): number {
  const k = (name: Name) => ASSUMPTIONS[name][setting];
  const hello = k('clientHelloBytes') + k('sessionTicketBytes');
  const helloSegments = Math.ceil(hello / k('mss'));
  const pureAcks = 1 + k('handshakeAcks') + k('closePackets'); // + the SYN-ACK's ACK
  return (
    k('synBytes') +
    hello +
    helloSegments * k('packetHeader') +
    k('clientFinishedBytes') +
    pureAcks * k('packetHeader')
  );
}

interface Parts {
  readonly requests: number;
  readonly framing: number;
  readonly acks: number;
  readonly handshakes: number;
  readonly connections: number;
}

/** One kind of request at a setting: its bytes, the framing of its segments, the ACKs of its answers. */
function tallyParts(
  t: WireTally,
  extraChars: number,
  setting: Setting,
  answerInflation = 1,
): Omit<Parts, 'handshakes' | 'connections'> {
  const k = (name: Name) => ASSUMPTIONS[name][setting];
  if (t.requests === 0) return { requests: 0, framing: 0, acks: 0 };
  const largest = t.maxRequestBytes + extraChars;
  const segments = Math.ceil((largest + k('tlsRecordOverhead')) / k('mss'));
  const perAck = k('segmentsPerAck');
  const acks =
    perAck === 1 ? t.responseSegments : perAck === 2 ? t.responseSegmentPairs : t.responseSegmentBatches;
  const decoded = k('answersAsDecoded') === 1 ? Math.max(1, answerInflation) : 1;
  return {
    requests: t.requestBytes + t.requests * extraChars,
    framing: t.requests * (k('tlsRecordOverhead') + segments * k('packetHeader')),
    acks: acks * decoded * k('packetHeader'),
  };
}

/** The characters a real request carries beyond the measured one (never fewer: the larger wins). */
function extraChars(w: WireCounts, setting: Setting): { data: number; token: number } {
  const over = (name: Name, measured: number) => Math.max(0, ASSUMPTIONS[name][setting] - measured);
  const both = over('hostChars', w.hostChars) + ASSUMPTIONS.basePathExtraChars[setting];
  return {
    data: both + over('bearerChars', w.bearerChars) + over('apiKeyChars', w.apiKeyChars),
    token: both,
  };
}

/** Every part at one setting, for the counted span (not scaled). */
export function bytesOutParts(w: WireCounts, setting: Setting = 'value', answerInflation = 1): Parts {
  const extra = extraChars(w, setting);
  const data = tallyParts(w.data, extra.data, setting, answerInflation);
  const token = tallyParts(w.token, extra.token, setting);
  const connections =
    ASSUMPTIONS.coldPoolEachPoll[setting] === 1 ? w.coldPoolConnections : w.connectionsOpened;
  return {
    requests: data.requests + token.requests,
    framing: data.framing + token.framing,
    acks: data.acks + token.acks,
    handshakes: connections * handshakeBytes(setting),
    connections,
  };
}

const totalOf = (p: Parts) => p.requests + p.framing + p.acks + p.handshakes;
const perRequest = (bytes: number, t: WireTally) => (t.requests ? bytes / t.requests : 0);

/**
 * The month's bytes out from the counted span, scaled by `scale` (a month over the span);
 * `answerInflation`: the answers' JSON bytes over their bytes as sent (the high bound's answers).
 */
export function monthlyBytesOut(w: WireCounts, scale: number, answerInflation = 1): MonthlyBytesOut {
  const p = bytesOutParts(w, 'value');
  return {
    total: totalOf(p) * scale,
    requests: p.requests * scale,
    framing: p.framing * scale,
    acks: p.acks * scale,
    handshakes: p.handshakes * scale,
    low: totalOf(bytesOutParts(w, 'low')) * scale,
    high: totalOf(bytesOutParts(w, 'high', answerInflation)) * scale,
    connections: p.connections * scale,
    measured: {
      dataRequestBytes: perRequest(w.data.requestBytes, w.data),
      tokenRequestBytes: perRequest(w.token.requestBytes, w.token),
      responseBytesPerDataRequest: perRequest(w.data.responseBytes, w.data),
      bearerChars: w.bearerChars,
      openedPerPoll: w.windows ? w.connectionsOpened / w.windows : 0,
      coldPoolPerPoll: w.windows ? w.coldPoolConnections / w.windows : 0,
      answerInflation,
    },
  };
}

/**
 * The data-transfer line's bytes and its formula's text: the measured bytes out when the report has
 * them, the old assumption (REQUEST_BYTES_OUT a request) when it does not.
 */
export function dataTransferOut(c: MonthlyClubCounts): { bytes: number; detail: string } {
  const requests = c.apiRequests + c.tokenRequests;
  const b = c.bytesOut;
  if (!b) {
    const bytes = requests * REQUEST_BYTES_OUT;
    return { bytes, detail: `${fmt(requests)} requests × ${REQUEST_BYTES_OUT} B = ${fmt(bytes / 1e6)} MB` };
  }
  const mb = (n: number) => `${fmt(n / 1e6)} MB`;
  return {
    bytes: b.total,
    detail:
      `${fmt(requests)} requests: ${mb(b.requests)} HTTP (measured at the client's sockets, ${fmt(b.measured.dataRequestBytes)} B a data request; a ${ASSUMPTIONS.bearerChars.value}-char JWT) + ` +
      `${mb(b.framing)} TLS/TCP framing + ${mb(b.acks)} ACKs (${fmt(b.measured.responseBytesPerDataRequest)} B answers${(b.measured.answerInflation ?? 1) > 1 ? `, gzipped: ${fmt(b.measured.answerInflation)}x smaller than their JSON` : ''}) + ` +
      `${mb(b.handshakes)} for ${fmt(b.connections)} connections (${fmt(handshakeBytes())} B each) = ${mb(b.total)} ` +
      `(bounds ${mb(b.low)} to ${mb(b.high)}, bench/bytes-out.ts)`,
  };
}
