/**
 * The shape of `detail.eventId`: 32 lowercase hex characters (the first 128 bits of a SHA-256).
 * Apart from ./event-id.ts (which hashes with node:crypto) so that the event catalog, and the
 * consumer module `@gym-bridge/events` built on it, import no Node built-in.
 */
export const EVENT_ID_PATTERN = /^[0-9a-f]{32}$/;
