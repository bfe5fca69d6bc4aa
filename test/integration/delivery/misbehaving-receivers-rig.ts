/**
 * The rig of the misbehaving-receiver tests (`misbehaving-receivers*.test.ts`): the webhook table in
 * dynalite with the real SDK; two receivers over real sockets, each request to either verified by
 * the official `standardwebhooks` (checked after each test); a clock that is shifted, never slept
 * (Date is faked to it, so the verifier judges each timestamp against it); the local runner, whose
 * `publish` is the fan-out as deployed (the first attempt of each delivery to a healthy endpoint made
 * at once, the others queued); and the helpers that publish events and pump the queue.
 * `useMisbehavingRig()` registers the hooks; the bindings below are live (`clock`, `receiver`).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import type { BusEvent } from '../../../lambdas/delivery/delivery-message';
import { LocalWebhooks } from '../../../lambdas/delivery/local-webhooks';
import { makeEventId } from '../../../lambdas/events/event-id';
import { MemorySink } from '../../../lambdas/events/memory-sink';
import { type Dynalite, startDynalite } from '../../support/dynalite';
import { type Receiver, startReceiver } from './receiver';

export const START = Date.parse('2026-03-02T08:00:00.000Z');
export const HOUR = 3_600_000;
export let clock = START;
const now = () => clock;
export const setClock = (t: number) => {
  clock = t;
  vi.setSystemTime(t);
};

let db: Dynalite;
export let receiver: Receiver;
/** A second receiver, for an endpoint whose host refuses connections while it is down. */
export let refusing: Receiver;
export const secrets = new Map<string, string>();
let tables = 0;

/** Starts dynalite and the two receivers for the file, fakes Date per test, checks every request. */
export function useMisbehavingRig(): void {
  beforeAll(async () => {
    db = await startDynalite();
    receiver = await startReceiver(secrets);
    refusing = await startReceiver(secrets);
  });
  afterAll(async () => {
    await receiver.close();
    await refusing.close();
    await db.close();
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    setClock(START);
  });
  afterEach(() => {
    vi.useRealTimers();
    // Every request any receiver got, in every test, verified with the official package.
    expect([...receiver.unverified, ...refusing.unverified]).toEqual([]);
  });
}

/**
 * A local runner (the fan-out as deployed, first attempts included). On real timers (the tests that
 * only shift the clock) a first attempt gets 10 s instead of 2 s, so that a busy machine does not
 * hand one off; the tests of the 2 s budget run it on fake timers.
 */
export async function runner(sink = new MemorySink(), clock: () => number = now) {
  tables++;
  const hooks = await LocalWebhooks.start({
    client: db.client,
    tableName: `webhooks-it-${process.pid}-${tables}`,
    now: clock,
    random: () => 0.5,
    sink,
    ...(clock === now ? { firstAttemptBudgetMs: 10_000 } : {}),
  });
  return { hooks, sink };
}

export async function add(
  hooks: LocalWebhooks,
  path: string,
  input: { detailTypes?: string[]; detailPattern?: string; on?: Receiver } = {},
) {
  const { endpoint, secret } = await hooks.add({
    url: (input.on ?? receiver).url(path),
    detailTypes: input.detailTypes ?? ['*'],
    ...(input.detailPattern ? { detailPattern: input.detailPattern } : {}),
  });
  secrets.set(path, secret);
  return endpoint.endpointId;
}

let serial = 0;
export function event(detailType: string, extra: Record<string, unknown> = {}): BusEvent {
  serial++;
  const eventId = makeEventId('webhook-test', String(serial));
  return {
    'detail-type': detailType,
    time: new Date(clock).toISOString(),
    detail: {
      eventId,
      eventVersion: 1,
      clubId: 'club-1',
      source: 'visits',
      occurredAt: new Date(clock - 1000).toISOString(),
      observedAt: new Date(clock).toISOString(),
      subject: {},
      ...extra,
    },
  };
}

/** Pumps the queue, moving the clock to each next visible message, until `untilMs`. */
export async function runUntil(hooks: LocalWebhooks, untilMs: number): Promise<void> {
  for (let guard = 0; guard < 100_000; guard++) {
    await hooks.pump();
    const next = hooks.queue.nextVisibleAt();
    if (next === undefined || next > untilMs) break;
    setClock(Math.max(next, clock + 1));
  }
  setClock(Math.max(clock, untilMs));
  await hooks.pump();
}

export const idsOf = (events: readonly BusEvent[]) => events.map((e) => String(e.detail.eventId)).sort();
export const deliveredIds = (path: string) =>
  [...new Set(receiver.delivered(path).map((r) => r.webhookId))].sort();
