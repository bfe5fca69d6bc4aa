/**
 * Profiling with `node --cpu-prof`: runs profile-target.ts in a child Node with the profiler on,
 * then sums the profile's self time by function and by area (our modules, zod, Node's HTTP client,
 * crypto, garbage collection), so the report can say where the CPU goes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  readonly fn: string;
  readonly where: string;
  readonly selfMs: number;
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly records: number;
  readonly top: HotSpot[];
  readonly byArea: Record<string, number>;
  /** Kept profile file, when asked to keep it. */
  readonly file?: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function area(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'garbage collection';
  if (fn === '(idle)' || fn === '(program)') return 'idle / waiting';
  if (
    url.startsWith('node:internal/modules') ||
    url.startsWith('node:internal/bootstrap') ||
    url.includes('/node_modules/tsx/') ||
    url.includes('cjs-module-lexer')
  )
    return 'start-up (module loading, tsx)';
  if (url.includes('/node_modules/zod/')) return 'zod (validation)';
  if (url.includes('/lambdas/engine/')) return 'lambdas/engine';
  if (url.includes('/lambdas/events/')) return 'lambdas/events';
  if (url.includes('/lambdas/sources/')) return 'lambdas/sources';
  if (url.includes('/lambdas/gym-api/')) return 'lambdas/gym-api';
  if (url.includes('/lambdas/state/')) return 'lambdas/state';
  if (url.includes('/lambdas/common/')) return 'lambdas/common';
  if (url.includes('/bench/')) return 'bench harness';
  if (url.includes('undici') || url.includes('stream') || url.includes('net') || fn === 'writeLatin1String')
    return 'HTTP client (undici) and sockets';
  if (url.includes('crypto') || fn === 'Hash' || fn === 'digest' || fn === 'update') return 'node:crypto';
  if (fn.startsWith('RegExp:')) return 'regular expressions';
  return 'other (V8 builtins, JSON, module loading)';
}

export function summariseProfile(profile: CpuProfile, records: number, topN = 15): ProfileSummary {
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const byFn = new Map<string, { fn: string; where: string; us: number }>();
  const byArea: Record<string, number> = {};
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = functionName || '(anonymous)';
    const where =
      url
        .replace(/^file:\/\//, '')
        .replace(ROOT, '')
        .replace(/.*node_modules\//, '') + (url ? `:${lineNumber + 1}` : '');
    const key = `${fn}@${where}`;
    const entry = byFn.get(key) ?? { fn, where, us: 0 };
    entry.us += us;
    byFn.set(key, entry);
    const a = area(url, fn);
    byArea[a] = (byArea[a] ?? 0) + us / 1000;
  }
  const top = [...byFn.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, topN)
    .map((e) => ({ fn: e.fn, where: e.where, selfMs: e.us / 1000, share: e.us / total }));
  return { totalMs: total / 1000, records, top, byArea };
}

/** Profiles an in-memory visits backfill of the sandbox club; `keepDir` keeps the .cpuprofile. */
export async function profileBackfill(
  input: { clubsFile: unknown; nowMs: number; fromMs: number },
  keepDir?: string,
): Promise<ProfileSummary> {
  const dir = keepDir ?? (await mkdtemp(join(tmpdir(), 'gym-bridge-prof-')));
  const { stdout } = await run(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--import',
      'tsx',
      fileURLToPath(new URL('./profile-target.ts', import.meta.url)),
    ],
    {
      env: { ...process.env, BENCH_PROFILE_INPUT: JSON.stringify(input), LOG_LEVEL: 'ERROR' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const records = (JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { records?: number }).records ?? 0;
  // tsx starts a loader worker, which writes its own (small) profile: take the largest.
  const files = await readdir(dir);
  let best: { file: string; size: number } | undefined;
  for (const f of files.filter((f) => f.endsWith('.cpuprofile'))) {
    const text = await readFile(join(dir, f), 'utf8');
    if (!best || text.length > best.size) best = { file: f, size: text.length };
  }
  if (!best) throw new Error('node --cpu-prof wrote no profile');
  const profile = JSON.parse(await readFile(join(dir, best.file), 'utf8')) as CpuProfile;
  const summary = summariseProfile(profile, records);
  if (!keepDir) await rm(dir, { recursive: true, force: true });
  return keepDir ? { ...summary, file: join(dir, best.file) } : summary;
}

export interface HashMicro {
  readonly createHashUs: number;
  readonly oneShotUs: number;
}

/**
 * The engine's `fingerprint()` (poll-source.ts) builds a Hash object per key; Node's one-shot
 * `crypto.hash` gives the same digest. CPU per key of each, median of 5 rounds of 100,000 keys.
 */
export async function measureFingerprintHashing(): Promise<HashMicro> {
  const { createHash, hash } = await import('node:crypto');
  const keys = Array.from(
    { length: 100_000 },
    (_, i) => `${100000 + (i % 5000)}|2026-02-21T10:${i % 60}:00|Main Entrance`,
  );
  const rounds = { createHash: [] as number[], oneShot: [] as number[] };
  for (let r = 0; r < 5; r++) {
    let c0 = process.cpuUsage();
    for (const k of keys) createHash('sha256').update(k).digest('base64url').slice(0, 27);
    let d = process.cpuUsage(c0);
    rounds.createHash.push((d.user + d.system) / keys.length);
    c0 = process.cpuUsage();
    for (const k of keys) hash('sha256', k, 'base64url').slice(0, 27);
    d = process.cpuUsage(c0);
    rounds.oneShot.push((d.user + d.system) / keys.length);
  }
  const mid = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return { createHashUs: mid(rounds.createHash), oneShotUs: mid(rounds.oneShot) };
}
