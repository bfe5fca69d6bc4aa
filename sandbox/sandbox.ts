/**
 * startSandbox: builds the clubs and their history, serves the API on a real socket, and hands back
 * the controls (clock, live mode, faults, journal, quotas, clubs file).
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DAY_MS } from '../lambdas/common/time-units';
import { AccessTokenIssuer } from './access-tokens';
import { createFaults, ForcedResponses } from './faults';
import { BASE_PATH, HttpApi } from './http-api';
import { Journal } from './journal';
import { resolveOptions, type SandboxOptions } from './options';
import { PoisonLog } from './poison/poison-log';
import { PoisonResponses } from './poison/response-habits';
import { QuotaLedger } from './quota';
import { RunningSandbox, type SandboxClock } from './running-sandbox';
import { buildClubs, runClubs } from './sandbox-clubs';
import { SeededRandom } from './sandbox-random';
import type { Sandbox } from './sandbox-types';

export { UnknownClubError } from './running-sandbox';
export type {
  ClubsFile,
  LiveOptions,
  RecordQuery,
  Sandbox,
  SandboxClub,
  SandboxPoison,
} from './sandbox-types';

/** Listens on `port` and `host`, and answers with the server's origin (http://host:port). */
async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost}:${address.port}`;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const faults = createFaults({
    ...(options.tokenLifetimeSec !== undefined ? { tokenLifetimeSec: options.tokenLifetimeSec } : {}),
    ...(options.faults ?? {}),
  });
  const journal = new Journal();
  const poisonLog = new PoisonLog();
  const clock: SandboxClock = { nowMs: resolved.startMs };
  const historyStart = resolved.startMs - Math.round(resolved.historyDays * DAY_MS);
  const runtimes = buildClubs(resolved, faults, journal, poisonLog, historyStart);
  runClubs(runtimes, historyStart, resolved.startMs);
  for (const club of runtimes) club.store.journaling = true;

  const keyRng = new SeededRandom(resolved.seed, 'jwt-key');
  const signingKey = Buffer.from(Array.from({ length: 32 }, () => keyRng.int(0, 255)));
  const forced = new ForcedResponses();
  const quota = new QuotaLedger(resolved.quotaScale);
  let origin = '';
  const api = new HttpApi({
    origin: () => origin,
    nowMs: () => clock.nowMs,
    clubsByKey: new Map(runtimes.map((c) => [c.apiKey, c])),
    tokens: new AccessTokenIssuer(resolved.integrator, signingKey),
    faults,
    forced,
    quota,
    journal,
    faultRng: new SeededRandom(resolved.seed, 'faults'),
    poisonResponses: new PoisonResponses(resolved.seed, poisonLog, () => clock.nowMs),
    poisonLog,
    integrator: resolved.integrator,
    compression: resolved.compression,
    recordScale: resolved.recordScale,
  });
  const server: Server = createServer(api.listener);
  server.keepAliveTimeout = 5000;
  origin = await listen(server, resolved.port, resolved.host);
  const url = `${origin}${BASE_PATH}`;
  const integrator = resolved.integrator;
  return new RunningSandbox({
    url,
    integrator,
    runtimes,
    clock,
    journal,
    poisonLog,
    faults,
    forced,
    quota,
    server,
    pageBytes: api.pageBytes,
  });
}
