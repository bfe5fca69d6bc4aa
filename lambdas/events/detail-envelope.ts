/**
 * The envelope every detail starts with (eventId, eventVersion, clubId, source, times, subject),
 * shared by the detail schemas of ./event-details.ts and ./lifecycle-details.ts.
 */
import { z } from 'zod';
import { dateTime as localDateTime } from '../gym-api/schemas';
import { EVENT_ID_PATTERN } from './event-id-pattern';
import { type BridgeSource, EVENT_VERSION } from './event-names';

export const utcDateTime = z.iso.datetime().describe('UTC, ISO 8601 with Z');

export const SubjectSchema = z
  .strictObject({
    memberNumber: z.string().optional().describe('Member number, when the event is about a member'),
    prospectNumber: z.string().optional().describe('Prospect number, when the event is about a prospect'),
  })
  .describe('Who the event is about');
export type Subject = z.infer<typeof SubjectSchema>;

/** The envelope fields of a detail whose `source` is `source`. */
export function detailEnvelope<S extends BridgeSource>(source: S) {
  return {
    eventId: z
      .string()
      .regex(EVENT_ID_PATTERN)
      .describe('Deterministic id (32 hex): the same change always has the same id; de-duplicate on it'),
    eventVersion: z.literal(EVENT_VERSION).describe('Version of this detail layout'),
    clubId: z.string().min(1).describe('The club the event belongs to'),
    source: z.literal(source).describe('The bridge source that produced the event'),
    occurredAt: utcDateTime.describe('When it happened, UTC (converted with the club time zone)'),
    occurredAtLocal: localDateTime
      .optional()
      .describe('The original zone-less gym-local value, when the API gave local time'),
    observedAt: utcDateTime.describe('When the bridge saw it, UTC'),
    subject: SubjectSchema,
  };
}
