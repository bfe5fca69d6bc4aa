/**
 * The flags of `events sample|replay|match` (../events.ts) and the two the subcommands read alike: a
 * detail-type (`--type`) and the event source (`--event-source`, `--stage`).
 */
import { ALL_DETAIL_TYPES, type DetailType, isDetailType } from '../../../lambdas/events/catalog';
import { EventSourceError, resolveEventSource } from '../../../lambdas/events/event-source';
import { CliUsageError, type parseFlags } from '../../args';

export const FLAGS = {
  type: { type: 'string', multiple: true },
  count: { type: 'string' },
  seed: { type: 'string' },
  format: { type: 'string' },
  'event-source': { type: 'string' },
  stage: { type: 'string' },
  pii: { type: 'string' },
  account: { type: 'string' },
  region: { type: 'string' },
  bus: { type: 'string' },
  archive: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  rule: { type: 'string', multiple: true },
  name: { type: 'string' },
  interval: { type: 'string' },
  detach: { type: 'boolean' },
  file: { type: 'string' },
  pattern: { type: 'string' },
  'dry-run': { type: 'boolean' },
  event: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export type Flags = NonNullable<ReturnType<typeof parseFlags<typeof FLAGS>>>;

export function detailTypeFlag(value: string, flag = '--type'): DetailType {
  if (isDetailType(value)) return value;
  const loose = ALL_DETAIL_TYPES.find((t) => t.toLowerCase() === value.trim().toLowerCase());
  const hint = loose ? ` (did you mean '${loose}'?)` : '';
  throw new CliUsageError(
    `unknown ${flag} '${value}'${hint}: one of\n${ALL_DETAIL_TYPES.map((t) => `  ${t}`).join('\n')}`,
  );
}

/**
 * The source flags (--event-source, --stage, then $GYM_BRIDGE_EVENT_SOURCE when `useEnv`), as poll
 * resolves them; undefined when none is given.
 */
export function cliEventSource(
  flag: string | undefined,
  stage: string | undefined,
  useEnv: boolean,
): string | undefined {
  const env = useEnv ? process.env : {};
  if (flag === undefined && stage === undefined && env.GYM_BRIDGE_EVENT_SOURCE === undefined)
    return undefined;
  try {
    return resolveEventSource({ flag, env, stage });
  } catch (err) {
    if (err instanceof EventSourceError) throw new CliUsageError(err.message);
    throw err;
  }
}
