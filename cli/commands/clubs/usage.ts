/**
 * The `clubs` command's words: its help text, its flags, which subcommand takes which, and the
 * names of the variables and defaults the subcommands read.
 */
import { DEFAULT_SOURCES, SOURCE_ORDER, SOURCES } from '../../../lambdas/sources';
import { SOURCE_NAMES } from '../../../lambdas/state';
import type { parseFlags } from '../../args';

export const DEFAULT_SECRET_PREFIX = 'gym-bridge/clubs/';
export const PASSWORD_ENV = 'GYM_BRIDGE_PASSWORD';
export const API_KEY_ENV = 'GYM_BRIDGE_API_KEY';

const EXPERIMENTAL = SOURCE_ORDER.filter((s) => SOURCES[s].experimental);

export const HELP = `usage: npm run --silent cli -- clubs <add|list|disable|resume> [flags]

  clubs add --club-id ID --base-url URL --time-zone ZONE --plan basic|advanced --username USER
            [--api-key KEY] [--password-stdin] [--source NAME]... [--pii-policy minimal|full]
            [--unstated-zone local|utc [--unstated-zone-confirmed]] [--table NAME]
            [--lifecycle on|off] [--inactive-days N] [--expiring-days N] [--trial-ending-hours N]
            [--secret-prefix PREFIX] [--shared-secret NAME]
      Adds (or updates) one club. The integrator password comes from $${PASSWORD_ENV} or, with
      --password-stdin, from standard input; never from a flag. The API key comes from --api-key
      or $${API_KEY_ENV}. --unstated-zone-confirmed: you have checked how the club's API writes
      the times whose zone it does not state (docs/operations.md); polls then re-read an hour
      behind their watermark instead of 15 hours or more. --lifecycle off: no lifecycle events
      (docs/lifecycle.md) for the club; their thresholds: --inactive-days (1..365, default 14),
      --expiring-days (1..365, default 14), --trial-ending-hours (1..720, default 24).
  clubs add --from-clubs-file FILE [--table NAME] [--secret-prefix PREFIX] [--shared-secret NAME]
      Adds (or updates) every club of a clubs file (JSON, see docs/cli.md).
  --shared-secret NAME: the clubs' API keys go into ONE secret, <prefix>NAME, with their integrator
      login (created if missing, the other clubs in it kept): the form for a fleet, since a secret
      costs $0.40 a month. All clubs of one shared secret share one login; about 600 fit in one
      (Secrets Manager's 64 KB), more go into another NAME. Without it, one secret per club.
  clubs list [--all] [--json] [--table NAME]
      Enabled clubs (--all: disabled ones too), without credentials.
  clubs disable --club-id ID [--table NAME]
      Stops polling a club; its settings, secret and state stay.
  clubs resume --club-id ID [--retry-unavailable] [--table NAME]
      Polls a paused club again at once (after rejected credentials or a 429 it waits with back-off):
      clears the pause on every source of the club and restarts the failure count, so the next
      rejection pauses briefly and is announced again. Fix the credentials first (clubs add).
      --retry-unavailable: also re-tries now the sources whose endpoint was found missing (404/403),
      instead of at their next try (every 6 hours).

  --table NAME            DynamoDB state table            (default $STATE_TABLE_NAME or gym-bridge-state)
  --secret-prefix PREFIX  club secret name prefix: the stack output ClubSecretPrefix
                          (default $CLUB_SECRET_PREFIX, else ${DEFAULT_SECRET_PREFIX})
  --source NAME           one of ${SOURCE_NAMES.join(', ')}
                          (default: ${DEFAULT_SOURCES.join(', ')}; ${EXPERIMENTAL.join(', ')} is experimental
                          and polled only when listed: a 404/400/403 from it marks it unavailable)

AWS: AWS_REGION (or AWS_ENDPOINT_URL_*), AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SECRETS_MANAGER
and the usual credentials.`;

export const FLAGS = {
  table: { type: 'string' },
  'secret-prefix': { type: 'string' },
  'shared-secret': { type: 'string' },
  'club-id': { type: 'string' },
  'base-url': { type: 'string' },
  'time-zone': { type: 'string' },
  plan: { type: 'string' },
  username: { type: 'string' },
  'api-key': { type: 'string' },
  'password-stdin': { type: 'boolean' },
  source: { type: 'string', multiple: true },
  'pii-policy': { type: 'string' },
  'unstated-zone': { type: 'string' },
  'unstated-zone-confirmed': { type: 'boolean' },
  lifecycle: { type: 'string' },
  'inactive-days': { type: 'string' },
  'expiring-days': { type: 'string' },
  'trial-ending-hours': { type: 'string' },
  'from-clubs-file': { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  'retry-unavailable': { type: 'boolean' },
} as const;

export type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

export const SUBCOMMAND_FLAGS: Record<string, readonly (keyof Flags)[]> = {
  add: [
    'table',
    'secret-prefix',
    'shared-secret',
    'club-id',
    'base-url',
    'time-zone',
    'plan',
    'username',
    'api-key',
    'password-stdin',
    'source',
    'pii-policy',
    'unstated-zone',
    'unstated-zone-confirmed',
    'lifecycle',
    'inactive-days',
    'expiring-days',
    'trial-ending-hours',
    'from-clubs-file',
  ],
  list: ['table', 'all', 'json'],
  disable: ['table', 'club-id'],
  resume: ['table', 'club-id', 'retry-unavailable'],
};
