/**
 * The bench's count of bytes on the wire, against the sandbox over a real socket: the real API
 * client (the bench's CountingClientFactory, Node's fetch) talks to the sandbox through a TCP relay
 * that counts every byte each way and every connection; the WireCounter, which reads the client's
 * own sockets, must agree with the relay to the byte.
 */
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CountingClientFactory } from '../../../bench/sim-clients';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { type Sandbox, startSandbox } from '../../../sandbox';

interface Relay {
  readonly origin: string;
  readonly totals: { up: number; down: number; connections: number; bearerChars: number };
  close(): Promise<void>;
}

/** A TCP relay to `target` that counts the bytes each way, the connections and the bearer's length. */
async function startRelay(target: URL): Promise<Relay> {
  const totals = { up: 0, down: 0, connections: 0, bearerChars: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    totals.connections++;
    const upstream = netConnect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => (s === client ? upstream : client).destroy());
    }
    client.on('data', (chunk: Buffer) => {
      totals.up += chunk.length;
      const bearer = /\r\nauthorization: Bearer (\S+)\r\n/i.exec(chunk.toString('latin1'));
      if (bearer?.[1]) totals.bearerChars = Math.max(totals.bearerChars, bearer[1].length);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      totals.down += chunk.length;
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    totals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('bench wire counter', () => {
  let sandbox: Sandbox;
  let relay: Relay;
  let club: ClubConfig;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 11, members: 60, startTime: '2025-03-10T00:00:00Z' });
    relay = await startRelay(new URL(sandbox.url));
    const parsed = parseClubsFile(sandbox.clubsFile(), 'wire-counter test')[0]!;
    club = { ...parsed, baseUrl: `${relay.origin}${new URL(sandbox.url).pathname}` };
  });
  afterAll(async () => {
    await relay.close();
    await sandbox.close();
  });

  it('counts what the real client wrote and read on its sockets, to the byte, by kind of request', async () => {
    // Prepare
    const factory = new CountingClientFactory(relay.origin);
    const client = factory.forClub(club, () => {});
    const before = { ...relay.totals };
    // Act: a token request, then pages of members and of visits
    const members = await client.fetchAll('members', {}, { pageSize: 25 });
    const visits = await client.fetchAll('visits', {}, { pageSize: 500 });
    const counts = factory.take();
    factory.close();
    // Assess: the socket's counts are the relay's
    const w = counts.wire!;
    expect(w.token.requests).toBe(1);
    expect(w.data.requests).toBe(members.pageCount + visits.pageCount);
    expect(w.data.requests).toBe(counts.data);
    expect(w.data.requestBytes + w.token.requestBytes).toBe(relay.totals.up - before.up);
    expect(w.data.responseBytes + w.token.responseBytes).toBe(relay.totals.down - before.down);
    expect(w.connectionsOpened).toBe(relay.totals.connections - before.connections);
    expect(w.bearerChars).toBe(relay.totals.bearerChars);
    expect(w.apiKeyChars).toBe(club.credentials.apiKey.length);
    expect(w.hostChars).toBe(new URL(relay.origin).host.length);
    // A request line and headers: more than the credentials alone, less than a segment.
    expect(w.data.maxRequestBytes).toBeGreaterThan(w.bearerChars + w.apiKeyChars);
    expect(w.data.maxRequestBytes).toBeLessThan(1448);
    expect(w.data.responseSegments).toBeGreaterThanOrEqual(w.data.requests);
  });

  it('counts a 401 apart, and the most requests in flight at once as the window cold pool', async () => {
    // Prepare: a token, then the sandbox's clock past its lifetime
    const factory = new CountingClientFactory(relay.origin);
    const client = factory.forClub(club, () => {});
    await client.fetchAll('debtCollection');
    factory.take();
    sandbox.advance(2 * 3_600_000);
    // Act: three sources side by side, the first to go meeting the 401 and a new token
    await client.fetchAll('prospects', {}, { pageSize: 5 });
    await Promise.all(
      ['members', 'prospects', 'debtCollection'].map((op) => client.fetchAll(op as 'members')),
    );
    const counts = factory.take();
    const after = factory.take();
    factory.close();
    await client.fetchAll('members');
    // Assess
    const w = counts.wire!;
    expect(w.reauth401.requests).toBe(1);
    expect(w.token.requests).toBe(1);
    expect(w.data.requests).toBe(counts.data);
    expect(w.coldPoolConnections).toBe(3);
    expect(w.windows).toBe(1);
    // A new window starts from zero, and nothing is counted once closed.
    expect(after.wire!.data.requests + after.wire!.coldPoolConnections).toBe(0);
    expect(factory.take().wire!.data.requests).toBe(0);
  });
});
