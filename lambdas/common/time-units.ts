/** The units of time in milliseconds, written once: every duration in the code is built from these. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** `yyyy-mm` (UTC) of an epoch ms: the month a club's request counter counts. */
export const monthOf = (ms: number): string => new Date(ms).toISOString().slice(0, 7);
