/**
 * `sandbox`: serves the gym API sandbox until Ctrl-C, prints how to reach it, and optionally writes
 * a clubs file pointing at it.
 */

import {
  type PoisonInput,
  type PoisonSettings,
  RESPONSE_POISON_KINDS,
  STORED_POISON_KINDS,
} from '../../sandbox';
import { InvalidFaultSettingError } from '../../sandbox/faults';
import { InvalidSandboxOptionError, type SandboxOptions } from '../../sandbox/options';
import { type Sandbox, startSandbox } from '../../sandbox/sandbox';
import { CliUsageError, intFlag, parseFlags } from '../args';
import { count } from '../format';
import { listenError } from '../listen-error';
import { watchStop } from '../stop-signal';

const HELP = `usage: npm run --silent cli -- sandbox [flags]

Serves a local, seeded implementation of the gym reporting API until Ctrl-C.

flags:
  --port N               TCP port (default 4010; 0 picks a free one)
  --host ADDR            interface to listen on (default 127.0.0.1)
  --clubs N              number of clubs (default 3)
  --members N            members per club at the start of the history (default 300)
  --seed N               seed of all generated data, keys and credentials (default 1)
  --history-days N       days of activity generated before the clock start (default 14)
  --start-time ISO       sandbox clock start, e.g. 2025-03-01T00:00:00Z (default: now)
  --write-clubs FILE     write a clubs file (for poll --clubs) pointing at this sandbox
  --live                 move the sandbox clock with wall time (new activity keeps arriving);
                         at speed 1 it is poll's clock, so a second poll shows new events
  --speed N              with --live: simulated seconds per wall second (default 1; above 1
                         the sandbox runs ahead of poll's clock, fine for start, not for poll)
  --open-24h             clubs open around the clock (visits at any hour you run it)
  --activity-scale X     multiply every activity rate (default 1)
  --quota-scale X        multiply the monthly plan quotas (default 1)
  --ambiguous-zone Z     'local' or 'utc': zone of payment/POS/financial/prospect dates (default local)
  --token-lifetime N     access token lifetime in seconds (default 3600)
  --error-rate-5xx X     share of requests answered 5xx (0..1, default 0)
  --rate-429 X           share of requests answered 429 (0..1, default 0)
  --latency-ms N         added latency per request (default 0)
  --poison               poison mode: bad records stored like real ones (identities the store
                         cannot key, int64 forms that round, nesting 6,000 deep, 3 MB fields, ...)
                         and responses bent (a 100 MB page, offset or limit ignored, credentials
                         echoed, a token with a control character): docs/sandbox.md, "Poison mode"
  --poison-settings JSON the poison settings to turn on instead of all of them, e.g.
                         '{"stored":{"identity":2},"offsetIgnored":0.1}'
`;

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  clubs: { type: 'string' },
  members: { type: 'string' },
  seed: { type: 'string' },
  'history-days': { type: 'string' },
  'start-time': { type: 'string' },
  'write-clubs': { type: 'string' },
  live: { type: 'boolean' },
  'open-24h': { type: 'boolean' },
  speed: { type: 'string' },
  'activity-scale': { type: 'string' },
  'quota-scale': { type: 'string' },
  'ambiguous-zone': { type: 'string' },
  'token-lifetime': { type: 'string' },
  'error-rate-5xx': { type: 'string' },
  'rate-429': { type: 'string' },
  'latency-ms': { type: 'string' },
  poison: { type: 'boolean' },
  'poison-settings': { type: 'string' },
} as const;

/** `--poison` / `--poison-settings JSON`: the poison mode to turn on (validated by the sandbox). */
function poisonOption(on: boolean | undefined, settings: string | undefined): { poison?: PoisonInput } {
  if (on && settings !== undefined) throw new CliUsageError('--poison and --poison-settings: give one');
  if (on) return { poison: true };
  if (settings === undefined) return {};
  try {
    // Its shape and ranges are the sandbox's to check (InvalidFaultSettingError: exit 2).
    return { poison: JSON.parse(settings) as PoisonInput };
  } catch {
    throw new CliUsageError(`--poison-settings must be JSON, e.g. '{"stored":1,"hugePage":0.05}'`);
  }
}

function numberFlag(name: string, value: string | undefined, opts: { min: number; max?: number }) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new CliUsageError(`--${name} must be a number, got '${value}'`);
  if (n < opts.min) throw new CliUsageError(`--${name} must be >= ${opts.min}, got ${n}`);
  if (opts.max !== undefined && n > opts.max)
    throw new CliUsageError(`--${name} must be <= ${opts.max}, got ${n}`);
  return n;
}

function parseStartTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms)) {
    throw new CliUsageError(`--start-time must be an ISO date-time with a zone, e.g. 2025-03-01T00:00:00Z`);
  }
  return ms;
}

/** Turns the flags into sandbox options; throws CliUsageError on a bad value. */
export function sandboxOptionsFromFlags(
  argv: string[],
): { options: SandboxOptions; writeClubs?: string; live?: number } | undefined {
  const flags = parseFlags(argv, FLAGS, HELP);
  if (!flags) return undefined;
  const zone = flags['ambiguous-zone'];
  if (zone !== undefined && zone !== 'local' && zone !== 'utc') {
    throw new CliUsageError(`--ambiguous-zone must be 'local' or 'utc', got '${zone}'`);
  }
  const speed = numberFlag('speed', flags.speed, { min: 0.001 });
  if (speed !== undefined && !flags.live) throw new CliUsageError('--speed needs --live');
  const faults = {
    ...optional('errorRate5xx', numberFlag('error-rate-5xx', flags['error-rate-5xx'], { min: 0, max: 1 })),
    ...optional('rate429', numberFlag('rate-429', flags['rate-429'], { min: 0, max: 1 })),
    ...optional('latencyMs', intFlag('latency-ms', flags['latency-ms'], { min: 0 })),
    ...optional('tokenLifetimeSec', intFlag('token-lifetime', flags['token-lifetime'], { min: 1 })),
    ...poisonOption(flags.poison, flags['poison-settings']),
  };
  const options: SandboxOptions = {
    port: intFlag('port', flags.port, { min: 0, max: 65535, default: 4010 }),
    ...optional('host', flags.host),
    ...clubsOption(intFlag('clubs', flags.clubs, { min: 1, max: 100 }), flags['open-24h'] === true),
    ...optional('members', intFlag('members', flags.members, { min: 0 })),
    ...optional('seed', intFlag('seed', flags.seed, {})),
    ...optional('historyDays', intFlag('history-days', flags['history-days'], { min: 0, max: 3650 })),
    ...optional('startTime', parseStartTime(flags['start-time'])),
    ...optional('activityScale', numberFlag('activity-scale', flags['activity-scale'], { min: 0 })),
    ...optional('quotaScale', numberFlag('quota-scale', flags['quota-scale'], { min: 1e-9 })),
    ...optional('ambiguousZone', zone as 'local' | 'utc' | undefined),
    faults,
  };
  return {
    options,
    ...optional('writeClubs', flags['write-clubs']),
    ...optional('live', flags.live ? (speed ?? 1) : undefined),
  };
}

/** `--clubs N` and `--open-24h`: a count, or N club specs open around the clock. */
function clubsOption(count: number | undefined, open24h: boolean): Pick<SandboxOptions, 'clubs'> {
  if (!open24h) return optional('clubs', count);
  return { clubs: Array.from({ length: count ?? 3 }, () => ({ open24h: true })) };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

const pct = (share: number) => `${Math.round(share * 1000) / 10}%`;

/**
 * What poison mode is doing, said at start: which bad records are stored and how often, which
 * response habits are on, and what a client polling this sandbox should expect (docs/sandbox.md).
 */
export function poisonNotice(p: PoisonSettings): string[] {
  const stored = STORED_POISON_KINDS.filter((k) => p.stored[k] > 0);
  const habits = RESPONSE_POISON_KINDS.filter((k) => p[k] > 0);
  if (stored.length === 0 && habits.length === 0) return [];
  const words: Record<(typeof RESPONSE_POISON_KINDS)[number], string> = {
    hugePage: `a ${Math.round(p.hugePageBytes / 1024 / 1024)} MiB page`,
    offsetIgnored: `offset ignored (${p.episodeRequests} requests)`,
    limitIgnored: `limit ignored (${p.episodeRequests} requests)`,
    nextStuck: `next stuck (${p.episodeRequests} requests)`,
    repeatedPage: 'the previous page again',
    echoCredentials: 'an error body echoing credentials',
    tokenControlChar: 'a token with a control character',
  };
  const first = p.stored[stored[0]!];
  const rates =
    stored.length > 1 && stored.every((k) => p.stored[k] === first)
      ? `${first} of each class (${stored.join(', ')})`
      : stored.map((k) => `${k} ${p.stored[k]}`).join(', ');
  // What a poll should show, for what is on: quarantines for stored records, failed or partial
  // polls for response habits
  const shows = [
    ...(stored.length ? ['bad records quarantined with a reason (status counts them)'] : []),
    ...(habits.length
      ? ['a poll that fails or stops part-way during a habit, and the next one catching up']
      : []),
  ].join('; ');
  return [
    'POISON MODE (docs/sandbox.md, "Poison mode"): this API misbehaves on purpose',
    ...(stored.length
      ? [
          `  stored bad records, per club per simulated hour: ${rates}; in ${p.operations.join(', ')}`,
          '  (their member and prospect numbers end in ~poison-<n>; GET /__admin/poison lists them)',
        ]
      : []),
    ...(habits.length
      ? [`  response habits, share of requests: ${habits.map((k) => `${words[k]} ${pct(p[k])}`).join(', ')}`]
      : []),
    `  what a poll should show: ${shows}; never a crash, a source stopped for good, or a`,
    '  credential in its output. Leave out --poison for a normal API.',
  ];
}

function describe(sandbox: Sandbox, live: number | undefined): string {
  const lines = [
    `gym API sandbox at ${sandbox.url}`,
    `clock: ${sandbox.clock.now().toISOString()}${live ? ` (live, speed ${live}x)` : ' (stopped)'}`,
    `integrator login: ${sandbox.integrator.username} / ${sandbox.integrator.password}`,
    '',
    'clubs:',
    ...sandbox.clubs.map(
      (c) => `  ${c.clubId.padEnd(10)} key ${c.apiKey}  ${c.timeZone.padEnd(20)} ${c.plan}`,
    ),
    '',
    `journal: GET ${new URL(sandbox.url).origin}/__admin/journal?since=0 (not part of the API)`,
    ...poisonNotice(sandbox.faults.poison),
    'Ctrl-C (or SIGTERM) to stop.',
  ];
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const parsed = sandboxOptionsFromFlags(argv);
  if (!parsed) return 0;
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox(parsed.options);
  } catch (err) {
    if (err instanceof InvalidSandboxOptionError || err instanceof InvalidFaultSettingError) {
      throw new CliUsageError(err.message);
    }
    // The port taken (or not ours to take): said plainly, exit 1, as start and local-aws do.
    const code = (err as { code?: unknown } | undefined)?.code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const what = parsed.options.host ? `the sandbox on ${parsed.options.host}` : 'the sandbox';
      const listen = listenError(err, what, parsed.options.port ?? 4010, '--port');
      process.stderr.write(`gym-bridge sandbox: ${listen.message}\n`);
      return 1;
    }
    throw err;
  }
  // Watching before anything says it is up: a signal sent as soon as the banner is read (a test,
  // a process manager) finds its handler, not the default action (killed, no summary).
  const stop = watchStop({
    command: 'gym-bridge sandbox',
    stopping: 'stopping the sandbox',
    skipped: 'closing it',
  });
  try {
    if (parsed.writeClubs) await sandbox.writeClubsFile(parsed.writeClubs);
    if (parsed.live) sandbox.startLive({ speed: parsed.live });
    process.stdout.write(`${describe(sandbox, parsed.live)}\n`);
    if (parsed.writeClubs) {
      process.stdout.write(
        `clubs file written to ${parsed.writeClubs} (it holds the credentials: keep it private)\n`,
      );
      if (!parsed.live)
        process.stdout.write(
          'the clock is stopped: poll sees no new activity (add --live for a clock that runs)\n',
        );
    }
    await stop.whenRequested;
    const used = sandbox.clubs.map((c) => [c.clubId, sandbox.requestCounts(c.clubId).used] as const);
    const total = used.reduce((n, [, u]) => n + u, 0);
    const changes = sandbox.journal.lastSeq;
    await sandbox.close();
    process.stdout.write(
      `sandbox stopped: ${count(total, 'API request')} counted this month (${used.map(([c, u]) => `${c} ${u}`).join(', ')}), ${count(changes, 'change')} journaled\n`,
    );
  } finally {
    stop.release();
  }
  return 0;
}
