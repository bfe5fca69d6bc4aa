/**
 * The SQS poll message of the deployment contract (`PollMessage`), validated with zod: the poll
 * handler drops (and logs) a message that does not parse instead of retrying it forever.
 */
import { z } from 'zod';
import type { PollMessage } from './deployment-contract';
import { SOURCE_NAMES } from './source-names';

export const PollMessageSchema = z.object({
  clubId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'not a club id'),
  sources: z
    .array(z.enum(SOURCE_NAMES))
    .min(1)
    .max(SOURCE_NAMES.length)
    .refine((s) => new Set(s).size === s.length, 'lists a source twice'),
  dispatchedAt: z.iso.datetime(),
  backfillFrom: z.iso.datetime().optional(),
});

// The schema and the contract must describe the same message.
type Parsed = z.infer<typeof PollMessageSchema>;
const _sameShape: (m: Parsed) => PollMessage = (m) => m;
void _sameShape;

export type PollMessageParse =
  | { readonly ok: true; readonly message: PollMessage }
  | { readonly ok: false; readonly problem: string };

/** Parses an SQS body. Problems name fields, never quote the body (it could be anything). */
export function parsePollMessage(body: string): PollMessageParse {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, problem: 'body is not JSON' };
  }
  const result = PollMessageSchema.safeParse(json);
  if (!result.success) {
    const problem = result.error.issues
      .map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`)
      .join('; ')
      .slice(0, 500);
    return { ok: false, problem };
  }
  return { ok: true, message: result.data };
}

export function serializePollMessage(message: PollMessage): string {
  return JSON.stringify(message);
}
