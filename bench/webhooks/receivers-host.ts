/**
 * The webhook bench's receivers, in a process of their own: one HTTPS endpoint per webhook
 * endpoint, each on its own port of 127.0.0.1 (so each has its own connections, as distinct hosts
 * do), with an ECDSA certificate of its own (./fixtures). A live receiver
 * verifies each request with the official `standardwebhooks` package and answers 204 after a
 * stated time (its own work); it keeps an idle connection 5 s (Node's default), so a connection is
 * opened anew when deliveries to it are further apart. A dead one accepts the TCP connection and
 * never answers (not even the TLS handshake): the sender's deadline ends each attempt, the costliest
 * way to be down. The bytes each connection brought in (TLS records, handshakes included) are
 * counted: what the deliveries send out. Run by the bench, never on its own.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { serveHost } from '../hosts/rpc';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** A request received: the endpoint's index, its webhook-id, whether it verified. */
export type Received = [index: number, webhookId: string, verified: boolean];

interface State {
  servers: Server[];
  answerMs: number;
  dead: Set<number>;
  verifiers: Map<number, Webhook>;
  received: Received[];
  bytesIn: number;
  connections: number;
  openSockets: Set<Socket>;
  heldByDead: number;
}

let state: State | undefined;
const s = (): State => {
  if (!state) throw new Error('receivers not started');
  return state;
};

async function start(count: number, answerMs: number): Promise<number[]> {
  const st: State = {
    servers: [],
    answerMs,
    dead: new Set(),
    verifiers: new Map(),
    received: [],
    bytesIn: 0,
    connections: 0,
    openSockets: new Set(),
    heldByDead: 0,
  };
  state = st;
  const https = createHttpsServer(
    {
      key: readFileSync(`${fixtures}receiver-ec-key.pem`),
      cert: readFileSync(`${fixtures}receiver-ec-cert.pem`),
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const index = Number((req.url ?? '').split('/').pop());
        const webhookId = String(req.headers['webhook-id']);
        let verified = false;
        try {
          st.verifiers
            .get(index)
            ?.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          verified = true;
        } catch {}
        st.received.push([index, webhookId, verified]);
        setTimeout(() => res.writeHead(204).end(), st.answerMs);
      });
    },
  );
  https.keepAliveTimeout = 5_000;
  const ports: number[] = [];
  for (let index = 0; index < count; index++) {
    const tcp = createTcpServer((socket) => {
      st.connections++;
      st.openSockets.add(socket);
      socket.on('close', () => {
        st.bytesIn += socket.bytesRead;
        st.openSockets.delete(socket);
      });
      socket.on('error', () => undefined);
      if (st.dead.has(index)) {
        st.heldByDead++;
        return;
      }
      https.emit('connection', socket);
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    ports.push((tcp.address() as { port: number }).port);
    st.servers.push(tcp);
  }
  return ports;
}

serveHost({
  start,
  /** The endpoints' secrets, by index (each request is verified with its endpoint's). */
  secrets(secrets: [number, string][]) {
    for (const [index, secret] of secrets) s().verifiers.set(index, new Webhook(secret));
    return true;
  },
  /** From now on these endpoints are dead (their new connections are held unanswered). */
  setDead(indexes: number[]) {
    s().dead = new Set(indexes);
    return true;
  },
  /** Requests received since the last call, and the counters (reset). */
  take() {
    const st = s();
    const open = [...st.openSockets].reduce((n, sock) => n + sock.bytesRead, 0);
    const out = {
      received: st.received,
      bytesIn: st.bytesIn,
      openBytes: open,
      connections: st.connections,
      heldByDead: st.heldByDead,
    };
    st.received = [];
    st.bytesIn = -0 - open;
    st.connections = 0;
    st.heldByDead = 0;
    return out;
  },
  cpu: () => process.cpuUsage(),
  async close() {
    const st = state;
    state = undefined;
    for (const sock of st?.openSockets ?? []) sock.destroy();
    await Promise.all((st?.servers ?? []).map((srv) => new Promise((r) => srv.close(r))));
    return true;
  },
});
