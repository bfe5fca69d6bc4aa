/**
 * The clubs `clubs add` is given: one from its flags (the password from a variable or stdin, never
 * a flag), or every club of a clubs file; each with whether it set its own PII policy.
 */
import { readFile } from 'node:fs/promises';
import { type ClubConfig, ClubConfigError, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { readClubsFile } from '../../../lambdas/clubs/clubs-file';
import { CliUsageError, HELP_HINT } from '../../args';
import { API_KEY_ENV, type Flags, PASSWORD_ENV } from './usage';

/** A club to add, and whether it sets its own PII policy (the others get the deployment's default). */
export type ClubToAdd = { config: ClubConfig; explicitPiiPolicy: boolean };

export async function clubFromFlags(flags: Flags): Promise<ClubConfig> {
  const required = ['club-id', 'base-url', 'time-zone', 'plan', 'username'] as const;
  const missing = required.filter((f) => !flags[f]);
  if (missing.length > 0) {
    throw new CliUsageError(
      `clubs add needs ${missing.map((f) => `--${f}`).join(', ')} (or --from-clubs-file FILE) ${HELP_HINT}`,
    );
  }
  const password = flags['password-stdin'] ? await readStdin() : process.env[PASSWORD_ENV];
  if (!password) {
    throw new CliUsageError(
      flags['password-stdin']
        ? 'standard input held no password'
        : `the integrator password is read from $${PASSWORD_ENV} or, with --password-stdin, from standard input (never from a flag)`,
    );
  }
  const apiKey = flags['api-key'] ?? process.env[API_KEY_ENV];
  if (!apiKey) throw new CliUsageError(`give the club's API key with --api-key or $${API_KEY_ENV}`);
  if (flags['unstated-zone-confirmed'] && !flags['unstated-zone']) {
    throw new CliUsageError(
      '--unstated-zone-confirmed needs --unstated-zone local|utc: say which reading you checked',
    );
  }
  const raw = {
    clubId: flags['club-id'],
    baseUrl: flags['base-url'],
    timeZone: flags['time-zone'],
    plan: flags.plan,
    credentials: { username: flags.username, password, apiKey },
    ...(flags.source?.length ? { sources: flags.source } : {}),
    ...(flags['pii-policy'] ? { piiPolicy: flags['pii-policy'] } : {}),
    ...(flags['unstated-zone'] ? { unstatedZone: flags['unstated-zone'] } : {}),
    ...(flags['unstated-zone-confirmed'] ? { unstatedZoneConfirmed: true } : {}),
    ...lifecycleFromFlags(flags),
  };
  try {
    return parseClubsFile({ clubs: [raw] }, 'the club the flags describe')[0]!;
  } catch (err) {
    if (err instanceof ClubConfigError) throw new CliUsageError(err.message);
    throw err;
  }
}

const LIFECYCLE_NUMBERS = [
  ['inactive-days', 'inactiveDays'],
  ['expiring-days', 'expiringDays'],
  ['trial-ending-hours', 'trialEndingHours'],
] as const;

/** `lifecycle` of the club from --lifecycle and the threshold flags (absent: the defaults). */
function lifecycleFromFlags(flags: Flags): { lifecycle?: Record<string, unknown> } {
  const out: Record<string, unknown> = {};
  const switched = flags.lifecycle;
  if (switched !== undefined) {
    if (switched !== 'on' && switched !== 'off')
      throw new CliUsageError(`--lifecycle must be on or off, got '${switched}'`);
    out.enabled = switched === 'on';
  }
  const thresholds = LIFECYCLE_NUMBERS.filter(([flag]) => flags[flag] !== undefined).map(([f]) => `--${f}`);
  if (switched === 'off' && thresholds.length > 0)
    throw new CliUsageError(
      `${thresholds.join(', ')} would have no effect with --lifecycle off (no lifecycle events for the club): drop ${thresholds.length === 1 ? 'it' : 'them'}, or leave out --lifecycle off`,
    );
  for (const [flag, field] of LIFECYCLE_NUMBERS) {
    const value = flags[flag];
    if (value === undefined) continue;
    if (!/^\d{1,4}$/.test(value)) throw new CliUsageError(`--${flag} must be a whole number, got '${value}'`);
    out[field] = Number(value);
  }
  return Object.keys(out).length > 0 ? { lifecycle: out } : {};
}

export async function clubsFromFile(path: string): Promise<ClubToAdd[]> {
  let configs: ClubConfig[];
  try {
    configs = await readClubsFile(path);
  } catch (err) {
    if (err instanceof ClubConfigError) throw new CliUsageError(err.message);
    throw err;
  }
  // The file is valid JSON by now; which clubs set a PII policy themselves (the others get the
  // deployment's default)?
  const raw = JSON.parse(await readFile(path, 'utf8')) as { clubs: { piiPolicy?: unknown }[] };
  return configs.map((config, i) => ({ config, explicitPiiPolicy: raw.clubs[i]?.piiPolicy !== undefined }));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
