/**
 * The `webhooks` command's words: its help text, its flags, which subcommand takes which, and the
 * environment variables it reads (secrets never come from a flag: docs/webhooks.md, "The CLI").
 */
import { ALL_DETAIL_TYPES } from '../../../lambdas/events/catalog';
import type { parseFlags } from '../../args';

/** The signing secret: `listen` verifies with it, `npm start -- --webhook` signs with it. */
export const SECRET_ENV = 'GYM_BRIDGE_WEBHOOK_SECRET';
/** Static headers, `Name: value` lines (or --headers-stdin). */
export const HEADERS_ENV = 'GYM_BRIDGE_WEBHOOK_HEADERS';
/** The table when --table is not given (the name local-aws and the local demo use). */
export const DEFAULT_TABLE = 'gym-bridge-webhooks';

/** `text` cut into lines of at most `width` characters at spaces, each indented. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join('\n');
}

export const SUBCOMMANDS = [
  'add',
  'list',
  'show',
  'update',
  'disable',
  'enable',
  'remove',
  'rotate-secret',
  'status',
  'replay',
  'redrive',
  'listen',
] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

export const HELP = `usage: npm run --silent cli -- webhooks <subcommand> [flags]

Signed webhooks (Standard Webhooks) to any HTTPS endpoint, managed as data: no deploy
(docs/webhooks.md). Against a deployed stage (its stack outputs, below) or the local stack
(local-aws, whose environment points the CLI at it: http and loopback URLs are allowed there).

  webhooks add --url URL --type TYPE... [--pattern JSON] [--club ID]... [--rate N]
               [--description TEXT] [--metrics] [--headers-stdin] [--secret-stdin]
               [--secret-prefix PREFIX]
      Adds an endpoint and prints its signing secret (whsec_...) ONCE: keep it where the
      receiver reads it. --type is a detail-type (repeatable) or * for every one; --pattern an
      EventBridge pattern on detail, e.g. '{"status":["PaymentIssue"]}' (checked now);
      --club limits it to clubs (repeatable); --rate deliveries a second (default 10);
      --metrics gives it CloudWatch metrics of its own (4 metrics, $1.20 a month; default off).
  webhooks list [--json]                    every endpoint (host and redacted URL, no secret)
  webhooks show --endpoint ID [--json]      one endpoint
  webhooks update --endpoint ID [--url URL] [--type TYPE]... [--pattern JSON | --clear-pattern]
               [--club ID... | --all-clubs] [--rate N] [--description TEXT]
               [--headers-stdin | --clear-headers] [--metrics on|off]
  webhooks disable --endpoint ID            stops its deliveries: new events are not queued for
                                            it, those on their way go to its dead letters
  webhooks enable --endpoint ID             delivers again; its failure count starts over
  webhooks remove --endpoint ID             the endpoint, its health, dead letters and keys
  webhooks rotate-secret --endpoint ID [--secret-stdin]
      A new secret, printed ONCE; the old one keeps signing too for 24 h (both signatures).
  webhooks status [--endpoint ID]... [--json]
      Per endpoint: enabled, failures in a row, the last success, the last failure (its status
      and a redacted excerpt of the answer), dead letters.
  webhooks replay --endpoint ID --from TIME [--to TIME] --bus NAME|ARN --rule NAME|ARN
               [--archive NAME|ARN]
      Re-delivers the archive's events of the window to this endpoint only (those its filter
      matches), with their original webhook-ids. --bus: the stack output EventBusName;
      --rule: WebhookRuleArn. TIME: ISO 8601 with Z or an offset, YYYY-MM-DD, or now.
  webhooks redrive --endpoint ID [--queue-url URL] [--limit N]
      Queues its dead letters again (original webhook-ids, a fresh retry schedule).
      --queue-url: the stack output WebhookQueueUrl (default $WEBHOOK_QUEUE_URL).
  webhooks listen [--port N] [--host ADDR] [--json]
      A local receiver (like stripe listen): verifies each request's signature with
      $${SECRET_ENV} (without it, one is generated and printed once), answers 204
      and prints the event, or 401 and says why. Port 9000 by default (0: a free one).

Secrets are never flags: --secret-stdin reads a whsec_ secret of your own from standard input
(else one is generated); static headers (a SaaS's own API key) are 'Name: value' lines, from
standard input with --headers-stdin or (add only) from $${HEADERS_ENV}; they are
kept with the signing key, never printed or logged (list and show give their names only);
update --headers-stdin replaces them all.

  --table NAME            the webhook table: the stack output WebhookTableName
                          (default $WEBHOOK_TABLE_NAME, else ${DEFAULT_TABLE})
  --secret-prefix PREFIX  where keys are kept: the stack output WebhookSecretPrefix
                          (default $WEBHOOK_SECRET_PREFIX; not needed on the local stack)

Detail-types:
${wrap(ALL_DETAIL_TYPES.join(', '), 94, '  ')}

AWS: AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SECRETS_MANAGER,
AWS_ENDPOINT_URL_SQS (redrive), AWS_ENDPOINT_URL_EVENTBRIDGE (replay) and the usual credentials.
Exit: 0 done, 1 AWS could not be reached or refused, 2 bad flags, input, endpoint or window.`;

export const FLAGS = {
  table: { type: 'string' },
  'secret-prefix': { type: 'string' },
  endpoint: { type: 'string', multiple: true },
  url: { type: 'string' },
  type: { type: 'string', multiple: true },
  pattern: { type: 'string' },
  'clear-pattern': { type: 'boolean' },
  club: { type: 'string', multiple: true },
  'all-clubs': { type: 'boolean' },
  rate: { type: 'string' },
  description: { type: 'string' },
  /** on | off; a bare --metrics is on (parseWebhookFlags). */
  metrics: { type: 'string' },
  'headers-stdin': { type: 'boolean' },
  'clear-headers': { type: 'boolean' },
  'secret-stdin': { type: 'boolean' },
  json: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  bus: { type: 'string' },
  rule: { type: 'string' },
  archive: { type: 'string' },
  'queue-url': { type: 'string' },
  limit: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
} as const;

export type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

const FILTER = ['url', 'type', 'pattern', 'club', 'rate', 'description', 'headers-stdin'] as const;

export const SUBCOMMAND_FLAGS: Record<Subcommand, readonly (keyof Flags)[]> = {
  add: ['table', 'secret-prefix', ...FILTER, 'metrics', 'secret-stdin'],
  list: ['table', 'json'],
  show: ['table', 'endpoint', 'json'],
  update: ['table', 'endpoint', ...FILTER, 'metrics', 'clear-pattern', 'all-clubs', 'clear-headers'],
  disable: ['table', 'endpoint'],
  enable: ['table', 'endpoint'],
  remove: ['table', 'endpoint'],
  'rotate-secret': ['table', 'endpoint', 'secret-stdin'],
  status: ['table', 'endpoint', 'json'],
  replay: ['table', 'endpoint', 'from', 'to', 'bus', 'rule', 'archive'],
  redrive: ['table', 'endpoint', 'queue-url', 'limit'],
  listen: ['port', 'host', 'json'],
};
