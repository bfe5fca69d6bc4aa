/**
 * An endpoint from the flags of `webhooks add` and `webhooks update`, and the secrets that never
 * come from a flag: a signing secret of one's own (--secret-stdin) and static header values
 * ('Name: value' lines from --headers-stdin or $GYM_BRIDGE_WEBHOOK_HEADERS). Errors name the flag
 * or the line, never a value: a header's value is a secret, and a URL's path may hold a token.
 */

import { MAX_CLUB_ID_CHARS } from '../../../lambdas/common/deployment-contract';
import { rememberSecrets } from '../../../lambdas/common/redact';
import { ALL_TYPES, MAX_DESCRIPTION_CHARS, MAX_RATE_PER_SECOND } from '../../../lambdas/delivery/endpoint';
import type { EndpointChanges, EndpointInput } from '../../../lambdas/delivery/webhook-admin';
import { isWebhookSecret, WEBHOOK_SECRET_RULE } from '../../../lambdas/delivery/webhook-signature';
import { ALL_DETAIL_TYPES, isDetailType } from '../../../lambdas/events/catalog';
import { CliUsageError } from '../../args';
import { type Flags, HEADERS_ENV } from './usage';

/** What `update` can clear, beside the changes the library applies. */
export interface Clearing {
  readonly pattern: boolean;
  readonly clubs: boolean;
}

export async function addInput(flags: Flags): Promise<EndpointInput> {
  if (!flags.url) throw new CliUsageError('webhooks add needs --url URL (https:// outside the local stack)');
  if (!flags.type?.length)
    throw new CliUsageError("webhooks add needs --type TYPE (repeatable), or --type '*' for every event");
  if (flags['secret-stdin'] && flags['headers-stdin'])
    throw new CliUsageError(
      '--secret-stdin and --headers-stdin both read standard input: use $' + HEADERS_ENV,
    );
  const headers = await staticHeaders(flags, true);
  const secret = flags['secret-stdin'] ? await secretFromStdin() : undefined;
  return {
    url: url(flags.url),
    ...filterOf(flags),
    ...(flags.metrics !== undefined && metricsOn(flags.metrics) ? { metrics: true } : {}),
    ...(headers ? { headers } : {}),
    ...(secret ? { secret } : {}),
  } as EndpointInput;
}

export async function updateInput(flags: Flags): Promise<{ changes: EndpointChanges; clear: Clearing }> {
  if (flags.pattern !== undefined && flags['clear-pattern'])
    throw new CliUsageError('give --pattern JSON or --clear-pattern, not both');
  if (flags.club?.length && flags['all-clubs'])
    throw new CliUsageError('give --club ID or --all-clubs, not both');
  if (flags['headers-stdin'] && flags['clear-headers'])
    throw new CliUsageError('give --headers-stdin or --clear-headers, not both');
  // Only standard input here: a variable left in the shell must not replace another endpoint's headers.
  const headers = flags['clear-headers'] ? {} : await staticHeaders(flags, false);
  const changes = {
    ...(flags.url !== undefined ? { url: url(flags.url) } : {}),
    ...filterOf(flags),
    ...(flags.metrics !== undefined ? { metrics: metricsOn(flags.metrics) } : {}),
    ...(headers ? { headers } : {}),
  } as EndpointChanges;
  const clear = { pattern: flags['clear-pattern'] === true, clubs: flags['all-clubs'] === true };
  if (Object.keys(changes).length === 0 && !clear.pattern && !clear.clubs)
    throw new CliUsageError(
      'webhooks update changes nothing: give --url, --type, --pattern, --club, --rate, --description, --metrics, --headers-stdin or a --clear flag',
    );
  return { changes, clear };
}

/** --metrics on | off (a bare --metrics is on: parseWebhookFlags). */
function metricsOn(value: string): boolean {
  if (value === 'on' || value === 'off') return value === 'on';
  throw new CliUsageError('--metrics is on or off (alone: on)');
}

/** The URL, remembered as a secret when it has a path or query (they may hold a token). */
function url(value: string): string {
  try {
    const u = new URL(value);
    if (u.pathname !== '/' || u.search) rememberSecrets(value);
  } catch {
    // Not a URL: the library says so, without the value.
  }
  return value;
}

function filterOf(flags: Flags): Partial<EndpointInput> {
  const out: { -readonly [K in keyof EndpointInput]?: EndpointInput[K] } = {};
  if (flags.type?.length)
    out.detailTypes = flags.type.map((t) => (t.trim() === ALL_TYPES ? ALL_TYPES : detailType(t)));
  if (flags.pattern !== undefined) out.detailPattern = flags.pattern;
  if (flags.club?.length) {
    if (flags.club.some((c) => c.trim() === '' || c.length > MAX_CLUB_ID_CHARS))
      throw new CliUsageError(`--club is a club id, 1 to ${MAX_CLUB_ID_CHARS} characters`);
    out.clubs = flags.club;
  }
  if (flags.rate !== undefined) out.ratePerSecond = rate(flags.rate);
  if (flags.description !== undefined) {
    if (flags.description.length > MAX_DESCRIPTION_CHARS || /[\r\n]/.test(flags.description))
      throw new CliUsageError(`--description is one line of at most ${MAX_DESCRIPTION_CHARS} characters`);
    out.description = flags.description;
  }
  return out;
}

/** A detail-type, checked in one line (with the near miss, if any). */
function detailType(value: string): string {
  if (isDetailType(value)) return value;
  const near = ALL_DETAIL_TYPES.find((t) => distance(t.toLowerCase(), value.toLowerCase()) <= 2);
  throw new CliUsageError(
    `unknown --type '${value.slice(0, 60)}'${near ? ` (did you mean '${near}'?)` : ''}: a detail-type, quoted (--type "Payment Failed"), or '*' for every event; webhooks --help lists them`,
  );
}

/** Edit distance (insertions, deletions, substitutions), for a typo's hint. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

function rate(value: string): number {
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(n > 0 && n <= MAX_RATE_PER_SECOND))
    throw new CliUsageError(`--rate is deliveries a second, more than 0 and at most ${MAX_RATE_PER_SECOND}`);
  return n;
}

/** Static headers from --headers-stdin (or $GYM_BRIDGE_WEBHOOK_HEADERS); undefined when none. */
async function staticHeaders(flags: Flags, env: boolean): Promise<Record<string, string> | undefined> {
  const fromStdin = flags['headers-stdin'] === true;
  const text = fromStdin ? await readStdin() : env ? process.env[HEADERS_ENV] : undefined;
  if (text === undefined) return undefined;
  const where = fromStdin ? 'standard input' : `$${HEADERS_ENV}`;
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new CliUsageError(`line ${i + 1} of ${where} is not 'Name: value'`);
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    rememberSecrets(value);
    if (Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase()))
      throw new CliUsageError(`header '${name}' is given twice in ${where}`);
    headers[name] = value;
  });
  if (Object.keys(headers).length === 0) throw new CliUsageError(`${where} holds no 'Name: value' line`);
  return headers;
}

/** A whsec_ secret of one's own, from standard input (never a flag). */
export async function secretFromStdin(): Promise<string> {
  const secret = (await readStdin()).trim();
  if (secret === '') throw new CliUsageError('standard input held no secret (--secret-stdin)');
  if (!isWebhookSecret(secret))
    throw new CliUsageError(`the secret on standard input is not ${WEBHOOK_SECRET_RULE}`);
  rememberSecrets(secret);
  return secret;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
