/**
 * The gym API sandbox in its own process (see rpc.ts): started, advanced and read over IPC.
 * Run by the bench, never on its own.
 */
import type { OperationName } from '../../lambdas/gym-api/operations';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../sandbox';
import { serveHost } from './rpc';

let sandbox: Sandbox | undefined;

const started = (): Sandbox => {
  if (!sandbox) throw new Error('sandbox not started');
  return sandbox;
};

serveHost({
  async start(options: SandboxOptions) {
    const t0 = performance.now();
    sandbox = await startSandbox(options);
    return {
      url: sandbox.url,
      clubsFile: sandbox.clubsFile(),
      nowMs: sandbox.clock.now().getTime(),
      lastSeq: sandbox.journal.lastSeq,
      startupMs: performance.now() - t0,
      rssBytes: process.memoryUsage().rss,
    };
  },
  advance(ms: number) {
    const s = started();
    s.advance(ms);
    return { nowMs: s.clock.now().getTime(), lastSeq: s.journal.lastSeq };
  },
  journal(sinceSeq: number) {
    return started().journal.entries(sinceSeq);
  },
  count(clubId: string, operation: OperationName) {
    return started().records(clubId, operation).length;
  },
  requestCounts(clubId: string) {
    return started().requestCounts(clubId);
  },
  pageBytes() {
    return started().pageBytes;
  },
  cpu() {
    return process.cpuUsage();
  },
  async close() {
    await sandbox?.close();
    sandbox = undefined;
    return true;
  },
});
