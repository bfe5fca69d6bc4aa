/**
 * `events match --pattern FILE --event FILE`: does a rule's pattern match an event, and if not,
 * which field and value failed first? Offline, with the matcher consumers use in their tests
 * (../../../lambdas/events/event-pattern.ts).
 *
 * The pattern: EventBridge's JSON form, alone or as a rule's description (`aws events describe-rule`
 * prints `EventPattern` as a JSON string; a template's rule has it as an object). The events: one
 * JSON, a JSON array or JSON lines, each as a rule target receives it (`events sample`), as a
 * line of an events file (`poll --events-file`: `{ source, detailType, time, detail }`) or as a
 * PutEvents entry (`{ Source, DetailType, Detail }`, Detail a JSON string). Exit: 0 every event
 * matches, 1 one does not, 2 bad flags, pattern (one nested too deep too) or events. The matcher
 * walks an event's arrays at any depth; a value too deep for JSON.stringify is printed described.
 */
import { readFileSync } from 'node:fs';
import { eventBridgeTime, SAMPLE_ACCOUNT, SAMPLE_REGION } from '../../../event-tooling/eventbridge-event';
import { type EventPatternJson, explainEventPattern } from '../../../lambdas/events/event-pattern';
import { EventPatternError } from '../../../lambdas/events/event-pattern-types';
import { CliUsageError } from '../../args';
import type { Flags } from './flags';

/** Largest events file read (the events are held in memory to be matched). */
const MAX_BYTES = 64 * 1024 * 1024;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Inline JSON (starts with `{` or `[`) or the text of a file. */
function readInput(flag: string, value: string): { text: string; from: string } {
  if (/^\s*[[{]/.test(value)) return { text: value, from: `--${flag}` };
  try {
    const text = readFileSync(value);
    if (text.length > MAX_BYTES) throw new CliUsageError(`--${flag} ${value}: larger than 64 MB`);
    return { text: text.toString('utf8'), from: value };
  } catch (err) {
    if (err instanceof CliUsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliUsageError(`--${flag} ${value}: cannot read it (${code ?? (err as Error).message})`);
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliUsageError(`${what}: not JSON (${(err as Error).message})`);
  }
}

/** The pattern itself, or the EventPattern of a rule's description or template resource. */
export function readPattern(value: string): EventPatternJson {
  const { text, from } = readInput('pattern', value);
  let pattern = parseJson(text, from);
  const rule = isObject(pattern) && isObject(pattern.Properties) ? pattern.Properties : pattern;
  if (isObject(rule) && 'EventPattern' in rule) {
    pattern =
      typeof rule.EventPattern === 'string'
        ? parseJson(rule.EventPattern, `${from} EventPattern`)
        : rule.EventPattern;
  }
  if (!isObject(pattern)) throw new CliUsageError(`${from}: the pattern must be a JSON object`);
  return pattern;
}

/** An event in any of the accepted forms, as a rule target receives it. */
export function asDelivered(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw new CliUsageError(`${where}: not a JSON object`);
  if ('detail-type' in value) return value;
  const line = 'detailType' in value;
  const entry = 'DetailType' in value;
  if (!line && !entry) {
    throw new CliUsageError(
      `${where}: not an event (no "detail-type", "detailType" or "DetailType"; see events match --help)`,
    );
  }
  const detail = entry
    ? typeof value.Detail === 'string'
      ? parseJson(value.Detail, `${where} Detail`)
      : value.Detail
    : value.detail;
  const occurredAt =
    isObject(detail) && typeof detail.occurredAt === 'string' ? detail.occurredAt : undefined;
  const time = line ? value.time : value.Time;
  const when = typeof time === 'string' ? time : occurredAt;
  return {
    version: '0',
    id: '00000000-0000-4000-8000-000000000000',
    'detail-type': line ? value.detailType : value.DetailType,
    source: (line ? value.source : value.Source) ?? 'gym-bridge',
    account: SAMPLE_ACCOUNT,
    time: when && !Number.isNaN(Date.parse(when)) ? eventBridgeTime(when) : when,
    region: SAMPLE_REGION,
    resources: [],
    detail,
  };
}

/** One JSON event, a JSON array of them, or JSON lines. */
export function readEvents(value: string): Record<string, unknown>[] {
  const { text, from } = readInput('event', value);
  const trimmed = text.trim();
  if (trimmed === '') throw new CliUsageError(`${from}: no event in it`);
  try {
    const whole = JSON.parse(trimmed) as unknown;
    const list = Array.isArray(whole) ? whole : [whole];
    if (list.length === 0) throw new CliUsageError(`${from}: an empty list`);
    return list.map((e, i) => asDelivered(e, list.length > 1 ? `${from}, event ${i + 1}` : from));
  } catch (err) {
    if (err instanceof CliUsageError) throw err;
  }
  return text
    .split('\n')
    .flatMap((raw, i) =>
      raw.trim() === ''
        ? []
        : [asDelivered(parseJson(raw, `${from}, line ${i + 1}`), `${from}, line ${i + 1}`)],
    );
}

/** How many levels of lists and objects a value nests, counted without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<readonly [unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * An event's value as the output shows it: itself, or a description when it nests too deep for
 * JSON.stringify (which recurses, and an event may nest lists as deep as its size allows).
 */
function printable(value: unknown): { readonly value: unknown } | { readonly description: string } {
  try {
    JSON.stringify(value);
    return { value };
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const what = Array.isArray(value) ? 'a list' : 'an object';
    return { description: `(${what} nested ${nestingDepth(value)} levels deep)` };
  }
}

function show(v: unknown): string {
  if (v === undefined) return '(missing)';
  const shown = printable(v);
  return 'description' in shown ? shown.description : JSON.stringify(shown.value);
}

/** The result of one event for `--json`, with an unprintable value replaced by its description. */
function jsonResult(result: ReturnType<typeof explainEventPattern>) {
  if (result.matches) return result;
  const shown = printable(result.mismatch.actual);
  const actual = 'description' in shown ? shown.description : shown.value;
  return { ...result, mismatch: { ...result.mismatch, actual } };
}

function label(event: Record<string, unknown>, index: number, count: number): string {
  const detail = isObject(event.detail) ? event.detail : {};
  const id = typeof detail.eventId === 'string' ? ` ${detail.eventId.slice(0, 12)}` : '';
  return `${count > 1 ? `event ${index + 1}: ` : ''}${String(event['detail-type'])}${id}`;
}

export async function match(flags: Flags): Promise<number> {
  if (flags.pattern === undefined)
    throw new CliUsageError('events match needs --pattern FILE (or inline JSON)');
  if (flags.event === undefined) throw new CliUsageError('events match needs --event FILE (or inline JSON)');
  const pattern = readPattern(flags.pattern);
  const events = readEvents(flags.event);
  let failed = 0;
  for (const [i, event] of events.entries()) {
    let result: ReturnType<typeof explainEventPattern>;
    try {
      result = explainEventPattern(pattern, event);
    } catch (err) {
      if (err instanceof EventPatternError) throw new CliUsageError(`--pattern: ${err.message}`);
      throw err;
    }
    if (!result.matches) failed++;
    const name = label(event, i, events.length);
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ event: i + 1, detailType: event['detail-type'], ...jsonResult(result) })}\n`,
      );
    } else if (result.matches) {
      process.stdout.write(`${name}: matches\n`);
    } else {
      const { path, expected, actual, reason } = result.mismatch;
      process.stdout.write(
        `${name}: does not match\n  at ${path}: the pattern wants ${show(expected)}, the event has ${show(actual)}\n  (${reason})\n`,
      );
    }
  }
  if (!flags.json && events.length > 1)
    process.stdout.write(`${events.length - failed} of ${events.length} events match\n`);
  return failed === 0 ? 0 : 1;
}
