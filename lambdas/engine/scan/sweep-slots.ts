/**
 * Sweeps, SWEEP_SLOTS at a time per process. A sweep reads its source's window of days (payments:
 * 10 days, as often as every 7 minutes when the club's quota allows; visits, POS and disbursements
 * every 6 hours) and holds its rows while it detects them (a digest scan holds up to
 * DIGEST_BUFFER_ROWS, append-detection.ts), where a tail reads minutes. The clubs of a batch come
 * due together (onboarded together, polled together), so a poll function taking 20 clubs side by
 * side held 20 windows at once: the next poll of a full batch of typical clubs with their sweeps
 * due, records twice the sandbox's size, peaked at 199 and 222 MB RSS of the 256 MB function with
 * every sweep at once, and at 174 and 175 MB with four, in the same wall time (41 and 42 s; a
 * probe of the bench's poll function, load 9-17; the bench's next poll of a batch then measured
 * 169 and 170 MB: docs/operations.md, "The poll function's memory"): the function's share of a
 * vCPU parses and detects one page at a time whatever the slots, and four sweeps' requests keep it
 * busy. A typical batch has about three payment sweeps due a poll (20 clubs, one sweep each 7
 * minutes), so it seldom waits; tails take no slot.
 *
 * A sweep takes its slot before it reads a page and gives it back when its scan ends, thrown or
 * not. No wait closes a circle: a scan holding a sweep slot takes the client's page slots one page
 * at a time and gives each back, and never waits for a heavy-poll slot (a sweep of a club in a
 * heavy poll may wait for a sweep slot while its club holds one). It waits at most until
 * SWEEP_WAIT_MARGIN_MS before its poll's deadline: then the source is skipped this time (its
 * report and an INFO line say why; nothing is written, so its cursor is as it was and the sweep
 * still due; no failure is counted) and the next poll brings it back. Baselines and backfills take
 * no sweep slot: they are heavy polls, held apart (club-poll/heavy-polls.ts).
 */
import { Slots } from '../../common/slots';

/** Sweeps side by side per process (a regular poll's; measured above). */
export const SWEEP_SLOTS = 4;

/** A sweep waiting for a slot gives up this long before its poll's deadline, ms. */
export const SWEEP_WAIT_MARGIN_MS = 5000;

/** The process's sweep slots: shared by every club and source, as memory is. */
export const sweepSlots = new Slots(SWEEP_SLOTS);

/** Why a source was skipped when no sweep slot came free in time. */
export const NO_SWEEP_SLOT_REASON = 'no sweep slot came free before the deadline';
