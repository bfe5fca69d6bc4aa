/**
 * The sandbox's admin routes: GET the ground-truth journal or the poison log, the entries after
 * `since`, of one club when `clubId` is given, with the last sequence number.
 */
import type { ServerResponse } from 'node:http';
import { MESSAGES, send, sendMessage } from './http-replies';

export const ADMIN_JOURNAL_PATH = '/__admin/journal';
export const ADMIN_POISON_PATH = '/__admin/poison';

/** A log an admin route reads: the journal or the poison log. */
export interface SequencedLog {
  readonly lastSeq: number;
  /** Entries with seq greater than `sinceSeq`. */
  entries(sinceSeq: number): readonly { readonly clubId?: string | undefined }[];
}

/** Answers an admin route with the entries of `log` (405 for any method but GET, 400 for a bad `since`). */
export function sendLogEntries(method: string, url: URL, res: ServerResponse, log: SequencedLog) {
  if (method !== 'GET') return sendMessage(res, 405, MESSAGES.methodNotAllowed, { allow: 'GET' });
  const sinceRaw = url.searchParams.get('since') ?? '0';
  if (!/^\d+$/.test(sinceRaw))
    return sendMessage(res, 400, "Query parameter 'since' must be an integer >= 0");
  const clubId = url.searchParams.get('clubId');
  const entries = log.entries(Number(sinceRaw)).filter((e) => clubId === null || e.clubId === clubId);
  send(res, 200, JSON.stringify({ lastSeq: log.lastSeq, entries }));
}
