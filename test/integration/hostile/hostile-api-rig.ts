/**
 * Shared by the hostile API tests (api-responses-bodies, -records, -repeats, poison-records): pollClub
 * against the sandbox, dynalite and a local EventBridge endpoint, all over real sockets (a fresh
 * sandbox and state table each test, one dynalite and one bus a file), and what the tests poll,
 * serve and compare with: the events delivered against the sandbox's journal, the watermark.
 * `useHostileApi` registers the vitest hooks; call it inside `describe`.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { ClubConfig } from '../../../lambdas/clubs/club-config';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../../../lambdas/events/catalog';
import { EventBridgeSink } from '../../../lambdas/events/publisher';
import type { DynamoDbStateStore, SourceName } from '../../../lambdas/state';
import { type LocalEventBridge, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { useEngineRig } from '../../support/engine-rig';
import { eventKey } from '../../support/ground-truth';

export const MINUTE = 60_000;
export const VISITS = '/members/attendance/visits';

/** The sandbox's seed and members, and the name of the store, bus and poller. */
export interface HostileApiOptions {
  readonly seed?: number;
  readonly members?: number;
  readonly name?: string;
}

export function useHostileApi({ seed = 11, members = 60, name = 'hostile' }: HostileApiOptions = {}) {
  const rig = useEngineRig({
    sandbox: {
      seed,
      clubs: [{ clubId: 'club-1', timeZone: 'Australia/Sydney', members, open24h: true }],
      historyDays: 1,
      startTime: '2026-05-04T08:00:00Z',
      activityScale: 4,
    },
    clients: { retry: { baseDelayMs: 1, maxDelayMs: 5 } },
    pollMs: 20_000,
  });
  const { clients } = rig;
  let bus: LocalEventBridge;
  let eventBridge: EventBridgeClient;
  let store: DynamoDbStateStore;
  let club: ClubConfig;

  beforeAll(async () => {
    bus = await startLocalEventBridge();
    eventBridge = new EventBridgeClient({
      endpoint: bus.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
  });
  afterAll(async () => {
    eventBridge.destroy();
    await bus.close();
  });
  beforeEach(async () => {
    bus.events.length = 0;
    store = await rig.newStore(name); // quarantine expiry is in sandbox time
    club = rig.firstClub();
  });

  const sink = () => new EventBridgeSink({ client: eventBridge, busName: name, baseDelayMs: 1 });
  const poll = (sources: SourceName[], options: { pageSize?: number; deadlineMs?: number } = {}) =>
    pollClub(
      { store, sink: sink(), clients, owner: name, now: () => rig.sandbox.clock.now().getTime() },
      club,
      {
        deadlineMs: options.deadlineMs ?? rig.deadline(),
        sources,
        ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      },
    );
  const delivered = () =>
    bus.events.map((e) => ({ detailType: e.detailType, detail: e.detail }) as BridgeEvent);
  const visitKeys = () =>
    new Set(
      delivered()
        .map(eventKey)
        .filter((k): k is string => k?.startsWith('V|') === true),
    );
  const journalVisitKeys = (sinceSeq: number) =>
    new Set(
      rig.sandbox.journal
        .entries(sinceSeq)
        .flatMap((e) =>
          e.kind === 'visit' ? [`V|${e.clubId}|${e.memberNumber}|${e.visitDateTime}|${e.door}`] : [],
        ),
    );
  const watermark = async (source: SourceName) => (await store.view(club.clubId).getCursor(source)).watermark;

  /** A baseline of visits, then 45 simulated minutes of activity: the visits a poll must deliver. */
  async function baselineThenActivity() {
    await poll(['visits']);
    const before = { seq: rig.sandbox.journal.lastSeq, watermark: await watermark('visits') };
    rig.sandbox.advance(45 * MINUTE);
    expect(journalVisitKeys(before.seq).size).toBeGreaterThan(3);
    return before;
  }

  const visit = (member: string, at: string, extra: Record<string, unknown> = {}) => ({
    MemberNumber: member,
    Door: 'Main Entrance',
    ScanSource: 'Kiosk',
    VisitDateTime: at,
    ...extra,
  });
  const envelope = (path: string, data: unknown[], next?: string) =>
    JSON.stringify({ href: `${rig.sandbox.url}${path}`, ...(next ? { next } : {}), data });

  return {
    rig,
    /** The current test's state store (a fresh table each test). */
    get store() {
      return store;
    },
    /** The current test's sandbox's first club. */
    get club() {
      return club;
    },
    sink,
    poll,
    delivered,
    visitKeys,
    journalVisitKeys,
    watermark,
    baselineThenActivity,
    visit,
    envelope,
  };
}
