/**
 * The SQS poll message of the deployment contract (`PollMessage`, or `PollGroupMessage` for several
 * clubs), validated with zod: the poll handler drops (and logs) a message, or a group's entry, that
 * does not parse instead of retrying it forever.
 */
import { z } from 'zod';
import {
  CLUB_ID_PATTERN,
  MAX_CLUBS_PER_MESSAGE,
  MAX_FAST_LANE_PROBES,
  MAX_PROBES_PER_MESSAGE,
  type PollGroupMessage,
  type PollMessage,
} from './deployment-contract';
import { SOURCE_NAMES } from './source-names';

export const PollMessageSchema = z
  .object({
    clubId: z.string().regex(CLUB_ID_PATTERN, 'not a club id'),
    sources: z
      .array(z.enum(SOURCE_NAMES))
      .min(1)
      .max(SOURCE_NAMES.length)
      .refine((s) => new Set(s).size === s.length, 'lists a source twice'),
    dispatchedAt: z.iso.datetime(),
    backfillFrom: z.iso.datetime().optional(),
    lane: z.literal('fast').optional(),
    probes: z
      .object({ count: z.number().int().min(1).max(MAX_FAST_LANE_PROBES), until: z.iso.datetime() })
      .optional(),
  })
  .refine(
    (m) =>
      m.lane !== 'fast' ||
      (m.sources.length === 1 && m.sources[0] === 'visits' && !m.probes && !m.backfillFrom),
    {
      message: 'a fast-lane probe polls visits alone, with no backfill and no probes of its own',
      path: ['lane'],
    },
  );

// The schema and the contract must describe the same message.
type Parsed = z.infer<typeof PollMessageSchema>;
const _sameShape: (m: Parsed) => PollMessage = (m) => m;
void _sameShape;

export type PollMessageParse =
  | { readonly ok: true; readonly message: PollMessage }
  | { readonly ok: false; readonly problem: string };

/** The issues of a failed parse, naming fields (never quoting values), at most 500 characters. */
function problemOf(error: z.ZodError, prefix = ''): string {
  return error.issues
    .map((i) => `${[prefix, ...i.path].filter((p) => p !== '').join('.') || '(message)'}: ${i.message}`)
    .join('; ')
    .slice(0, 500);
}

/** Parses one club's message (a JSON value). Problems name fields, never quote the body. */
function parseOne(json: unknown, prefix = ''): PollMessageParse {
  const result = PollMessageSchema.safeParse(json);
  return result.success
    ? { ok: true, message: result.data }
    : { ok: false, problem: problemOf(result.error, prefix) };
}

/** The JSON of an SQS body, or the problem that it is not JSON. */
function jsonOf(body: string): { readonly json: unknown } | { readonly ok: false; readonly problem: string } {
  try {
    return { json: JSON.parse(body) as unknown };
  } catch {
    return { ok: false, problem: 'body is not JSON' };
  }
}

/** Parses an SQS body of one club's message. Problems name fields, never quote the body. */
export function parsePollMessage(body: string): PollMessageParse {
  const read = jsonOf(body);
  return 'json' in read ? parseOne(read.json) : read;
}

const PollGroupSchema = z.object({ polls: z.array(z.unknown()).min(1).max(MAX_PROBES_PER_MESSAGE) });

/** An SQS body read as the clubs it names: each club's message, or the problem of each that is not one. */
export type PollBodyParse =
  | { readonly ok: true; readonly messages: readonly PollMessage[]; readonly problems: readonly string[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Parses an SQS body: a group `{"polls":[...]}` (a bad entry is a problem of its own, the others
 * are polled) or one club's message (as releases before groups sent it).
 */
export function parsePollBody(body: string): PollBodyParse {
  const read = jsonOf(body);
  if (!('json' in read)) return read;
  const { json } = read;
  if (!(json && typeof json === 'object' && 'polls' in json)) {
    const one = parseOne(json);
    return one.ok ? { ok: true, messages: [one.message], problems: [] } : one;
  }
  const group = PollGroupSchema.safeParse(json);
  if (!group.success) return { ok: false, problem: problemOf(group.error) };
  const messages: PollMessage[] = [];
  const problems: string[] = [];
  group.data.polls.forEach((entry, index) => {
    const one = parseOne(entry, `polls.${index}`);
    if (one.ok) messages.push(one.message);
    else problems.push(one.problem);
  });
  // A group of the minute's polls holds at most MAX_CLUBS_PER_MESSAGE; only probes come by fifty.
  if (messages.length > MAX_CLUBS_PER_MESSAGE && messages.some((m) => m.lane !== 'fast')) {
    return {
      ok: false,
      problem: `polls: more than ${MAX_CLUBS_PER_MESSAGE} entries, not all fast-lane probes (at most ${MAX_PROBES_PER_MESSAGE} of those)`,
    };
  }
  return { ok: true, messages, problems };
}

export function serializePollMessage(message: PollMessage): string {
  return JSON.stringify(message);
}

/** The body of a message for these clubs: one club's message alone, several as a group. */
export function serializePollBody(messages: readonly PollMessage[]): string {
  if (messages.length === 1) return serializePollMessage(messages[0] as PollMessage);
  const group: PollGroupMessage = { polls: messages };
  return JSON.stringify(group);
}
