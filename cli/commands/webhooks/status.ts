/**
 * `webhooks status [--endpoint ID]... [--json]`: per endpoint, whether it is enabled, failures in a
 * row and the circuit, the last success and the last failure (its status and a redacted, cut excerpt
 * of the answer), and its dead letters: from the webhook table (lambdas/delivery/webhook-admin.ts,
 * endpointStatus).
 */
import { type EndpointStatus, endpointStatus } from '../../../lambdas/delivery/webhook-admin';
import { CliUsageError } from '../../args';
import type { WebhookStack } from './stack';
import type { Flags } from './usage';

/** Excerpts are cut to this many characters on the terminal (the table keeps 200). */
export const EXCERPT_SHOWN = 120;

/** An answer's excerpt as one quoted line: already redacted by the delivery, cut, control characters escaped. */
export function excerptLine(excerpt: string): string {
  const cut = excerpt.length > EXCERPT_SHOWN ? `${excerpt.slice(0, EXCERPT_SHOWN)}…` : excerpt;
  return JSON.stringify(cut);
}

export function statusLines(s: EndpointStatus, nowMs = Date.now()): string[] {
  const e = s.endpoint;
  const lines = [
    `${e.endpointId}  ${e.host}  ${e.enabled ? 'enabled' : `DISABLED (${e.disabledReason ?? '?'} since ${e.disabledAt ?? '?'})`}`,
  ];
  const row = (k: string, v: string) => lines.push(`  ${k.padEnd(13)} ${v}`);
  const ok = s.lastSuccess;
  row(
    'last success',
    ok
      ? `${ok.at}  ${ok.status}  webhook-id ${ok.webhookId}${ok.latencyMs === undefined ? '' : `  ${ok.latencyMs} ms from publication`}`
      : 'none yet',
  );
  const f = s.lastFailure;
  row(
    'last failure',
    f
      ? `${f.at}  ${f.status ?? '-'}  ${f.error}  attempt ${f.attempt}  webhook-id ${f.webhookId}${f.excerpt ? `\n  ${' '.repeat(13)} answer: ${excerptLine(f.excerpt)}` : ''}`
      : 'none',
  );
  if (s.failures > 0) {
    const since = s.failingSince ? ` since ${s.failingSince}` : '';
    const wait =
      s.retryAt && Date.parse(s.retryAt) > nowMs ? `; nothing is attempted before ${s.retryAt}` : '';
    row('failing', `${s.failures} attempt(s) in a row${since}${wait}`);
  }
  row(
    'dead letters',
    s.deadLetters > 0
      ? `${s.deadLetters} (webhooks redrive --endpoint ${e.endpointId} delivers them again)`
      : '0',
  );
  return lines;
}

export async function status(flags: Flags, stack: WebhookStack): Promise<number> {
  const ids = flags.endpoint;
  for (const id of ids ?? [])
    if (!/^ep-[0-9a-f]{16}$/.test(id)) throw new CliUsageError(`--endpoint is an endpoint id, got '${id}'`);
  const all = await endpointStatus(stack.admin(), ids);
  const missing = (ids ?? []).filter((id) => !all.some((s) => s.endpoint.endpointId === id));
  if (missing.length > 0)
    throw new CliUsageError(`no webhook endpoint ${missing.join(', ')} in ${stack.tableName}`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return 0;
  }
  if (all.length === 0) {
    process.stdout.write(`no webhook endpoints in ${stack.tableName} (webhooks add adds one)\n`);
    return 0;
  }
  process.stdout.write(`${all.map((s) => statusLines(s).join('\n')).join('\n\n')}\n`);
  return 0;
}
