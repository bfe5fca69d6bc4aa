/**
 * The bytes-out model (bench/bytes-out.ts): the parts a socket count cannot see, each from its
 * stated constants, the corrections that never shrink a measured value, the bounds, and the data
 * transfer line's bytes with and without measured figures.
 */
import { describe, expect, it } from 'vitest';
import {
  ASSUMPTIONS,
  bytesOutParts,
  dataTransferOut,
  handshakeBytes,
  monthlyBytesOut,
  segmentsOf,
} from '../../../bench/bytes-out';
import { type MonthlyClubCounts, REQUEST_BYTES_OUT } from '../../../bench/cost-model';
import { addWireCounts, emptyWireCounts, type WireCounts } from '../../../bench/wire-counts';

/** 10 polls, 80 data requests of ≤ 500 B, 2 token requests; the sandbox's short credentials. */
function sampleWire(overrides: Partial<WireCounts> = {}): WireCounts {
  const w = emptyWireCounts();
  Object.assign(w.data, {
    requests: 80,
    requestBytes: 80 * 480,
    maxRequestBytes: 500,
    responseBytes: 80 * 10_000,
    responseSegments: 80 * 7,
    responseSegmentPairs: 80 * 4,
    responseSegmentBatches: 80,
  });
  Object.assign(w.token, {
    requests: 2,
    requestBytes: 2 * 290,
    maxRequestBytes: 290,
    responseBytes: 2 * 450,
    responseSegments: 2,
    responseSegmentPairs: 2,
    responseSegmentBatches: 2,
  });
  return Object.assign(w, {
    connectionsOpened: 3,
    coldPoolConnections: 60,
    windows: 10,
    bearerChars: 200,
    apiKeyChars: 32,
    hostChars: 15,
    ...overrides,
  });
}

describe('bytes out: the modelled parts', () => {
  it('cuts plaintext into TLS records and 1,448-byte segments', () => {
    expect(segmentsOf(0)).toBe(0);
    expect(segmentsOf(1448 - 29)).toBe(1);
    expect(segmentsOf(1448 - 28)).toBe(2);
    // A second record (16 KB of plaintext each) adds its overhead.
    expect(segmentsOf(16_384 + 1)).toBe(Math.ceil((16_385 + 2 * 29) / 1448));
  });

  it('prices a connection as TCP setup, a ClientHello in two segments, the second flight, ACKs and close', () => {
    // 60 SYN + 1,907 hello (ML-KEM share + ticket) in 2 segments + 80 finished + (1 + 3 + 2) pure packets
    expect(handshakeBytes('value')).toBe(60 + 1907 + 2 * 52 + 80 + 6 * 52);
    // Node 20's fresh ClientHello fits a segment; one ACK to a resumed server flight
    expect(handshakeBytes('low')).toBe(60 + 382 + 40 + 80 + 4 * 40);
    expect(handshakeBytes('high')).toBe(60 + 2104 + 2 * 52 + 93 + 10 * 52);
  });

  it('adds the characters a real JWT, key, host and base path carry beyond the sandbox', () => {
    // Prepare
    const w = sampleWire();
    // Act
    const p = bytesOutParts(w, 'value');
    // Assess: host 40-15, path +16, JWT 1,200-200, key 40-32; the token request: host and path only
    const dataExtra = 25 + 16 + 1000 + 8;
    expect(p.requests).toBe(80 * 480 + 80 * dataExtra + 2 * 290 + 2 * (25 + 16));
    // The largest data request with a 1,200-char JWT needs two segments; a token request one
    expect(p.framing).toBe(80 * (29 + 2 * 52) + 2 * (29 + 52));
    expect(p.acks).toBe((80 * 4 + 2) * 52);
    // At the value the pool is warm: the connections the sampled polls opened
    expect(p.connections).toBe(w.connectionsOpened);
    expect(bytesOutParts(w, 'high').connections).toBe(w.coldPoolConnections);
    expect(p.handshakes).toBe(w.connectionsOpened * handshakeBytes('value'));
  });

  it('never shrinks a measured credential: a longer measured JWT is kept as it is', () => {
    const longer = bytesOutParts(sampleWire({ bearerChars: 1500, apiKeyChars: 64, hostChars: 80 }), 'value');
    expect(longer.requests).toBe(80 * 480 + 80 * 16 + 2 * 290 + 2 * 16);
  });

  it('takes the measured request, the warm pool and GRO ACKs at the low bound, quick ACKs at the high', () => {
    const w = sampleWire();
    const low = bytesOutParts(w, 'low');
    expect(low.requests).toBe(80 * 480 + 2 * 290);
    expect(low.connections).toBe(3);
    expect(low.acks).toBe((80 + 2) * 40);
    const high = bytesOutParts(w, 'high');
    expect(high.acks).toBe((80 * 7 + 2) * 52);
    const total = (p: typeof low) => p.requests + p.framing + p.acks + p.handshakes;
    expect(total(low)).toBeLessThan(total(bytesOutParts(w, 'value')));
    expect(total(bytesOutParts(w, 'value'))).toBeLessThan(total(high));
  });

  it('states every constant with low <= value <= high in bytes, and a source', () => {
    for (const [name, a] of Object.entries(ASSUMPTIONS)) {
      expect(a.source.length, name).toBeGreaterThan(40);
      // segmentsPerAck runs the other way: more segments per ACK is fewer bytes.
      const [lo, hi] = name === 'segmentsPerAck' ? [a.high, a.low] : [a.low, a.high];
      expect(lo, name).toBeLessThanOrEqual(a.value);
      expect(a.value, name).toBeLessThanOrEqual(hi);
    }
  });
});

describe('bytes out: a month', () => {
  it('scales the span to a month, part by part, with the measured figures per request and poll', () => {
    const w = sampleWire();
    const m = monthlyBytesOut(w, 3);
    const p = bytesOutParts(w, 'value');
    expect(m.total).toBe((p.requests + p.framing + p.acks + p.handshakes) * 3);
    expect(m.handshakes).toBe(p.handshakes * 3);
    expect(m.low).toBeLessThan(m.total);
    expect(m.high).toBeGreaterThan(m.total);
    expect(m.measured).toEqual({
      dataRequestBytes: 480,
      tokenRequestBytes: 290,
      responseBytesPerDataRequest: 10_000,
      bearerChars: 200,
      openedPerPoll: 0.3,
      coldPoolPerPoll: 6,
      answerInflation: 1,
    });
  });

  it('prices gzipped answers as sent, and at the high bound as long as their JSON', () => {
    const w = sampleWire();
    const asSent = monthlyBytesOut(w, 1);
    const gzipped = monthlyBytesOut(w, 1, 6);
    // The answers as they came: the same ACKs whatever their JSON was.
    expect(gzipped.total).toBe(asSent.total);
    expect(gzipped.measured.answerInflation).toBe(6);
    const high = bytesOutParts(w, 'high');
    const highDecoded = bytesOutParts(w, 'high', 6);
    // High: an ACK a segment, each data answer's segments 6 times as many (token answers as they are).
    expect(highDecoded.acks - high.acks).toBe(5 * 80 * 7 * ASSUMPTIONS.packetHeader.high);
    expect(gzipped.high - asSent.high).toBeCloseTo(highDecoded.acks - high.acks, 6);
  });

  it('adds windows: sums, and the longest value seen', () => {
    const into = sampleWire();
    addWireCounts(into, sampleWire({ bearerChars: 300 }));
    expect(into.data.requests).toBe(160);
    expect(into.data.maxRequestBytes).toBe(500);
    expect(into.coldPoolConnections).toBe(120);
    expect(into.windows).toBe(20);
    expect(into.bearerChars).toBe(300);
  });

  it('gives the data-transfer line the measured bytes, or the old assumption for an older report', () => {
    const counts = { apiRequests: 1000, tokenRequests: 20 } as MonthlyClubCounts;
    expect(dataTransferOut(counts).bytes).toBe(1020 * REQUEST_BYTES_OUT);
    expect(dataTransferOut(counts).detail).toBe('1,020 requests × 1500 B = 1.53 MB');
    const w100 = sampleWire();
    const bytesOut = monthlyBytesOut(w100, 100);
    const measured = dataTransferOut({ ...counts, bytesOut });
    expect(measured.bytes).toBe(bytesOut.total);
    expect(measured.detail).toContain('measured at the client');
    expect(measured.detail).toContain(
      `${(bytesOut.handshakes / 1e6).toPrecision(3)} MB for ${(w100.connectionsOpened * 100).toLocaleString('en-US')} connections`,
    );
  });
});
