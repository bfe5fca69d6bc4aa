/**
 * Runs the real engine against the sandbox and publishes through the real EventBridgeSink to the
 * local EventBridge endpoint, then hands back what the bus received, as an EventBridge rule target
 * would get it, with the sandbox's ground-truth journal of the same span.
 *
 * The clubs poll `members` and `paymentHistory` only (the sources whose events the example
 * subscribes to, plus plenty it does not: Member Joined, status changes to other statuses,
 * Payment Succeeded, declined payments, refunds), which keeps the run short.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type ClubConfig, parseClubsFile } from '../../../lambdas/clubs/club-config';
import { GymApiClientFactory } from '../../../lambdas/engine/club-poll/client-factory';
import { pollClub } from '../../../lambdas/engine/club-poll/poll-club';
import { EventBridgeSink } from '../../../lambdas/events/publisher';
import { MemoryStateStore } from '../../../lambdas/state';
import { type ReceivedEvent, startLocalEventBridge } from '../../../local-aws/local-eventbridge';
import { type JournalEntry, type SandboxOptions, startSandbox } from '../../../sandbox';

export const BUS_NAME = 'gym-bridge-e2e';
export const EVENT_SOURCE = 'gym-bridge';

/** An event as EventBridge delivers it to a rule target (a Lambda function's `event`). */
export interface DeliveredEvent {
  version: string;
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
}

export interface EngineRun {
  /** Every event the bus accepted after the baseline, delivered form, in order of receipt. */
  readonly delivered: DeliveredEvent[];
  /** Journal entries after the baseline. */
  readonly journal: JournalEntry[];
  /** The journal's lastSeq when each poll after the baseline started (see test/support/ground-truth). */
  readonly boundaries: number[];
  /** Events published by the baseline poll (by design none). */
  readonly baselineEvents: number;
}

/** What EventBridge adds around an accepted PutEvents entry: version, id, account, region, time in whole seconds. */
export function toDelivered(received: ReceivedEvent, busArn: string): DeliveredEvent {
  const [, , , region, account] = busArn.split(':');
  return {
    version: '0',
    id: received.id,
    'detail-type': received.detailType,
    source: received.source,
    account: account ?? '',
    time: received.time.replace(/\.\d{3}Z$/, 'Z'),
    region: region ?? '',
    resources: [...received.resources],
    detail: received.detail,
  };
}

export async function runEngine(options: {
  readonly sandbox: SandboxOptions;
  readonly rounds: number;
  readonly stepMs: number;
}): Promise<EngineRun> {
  const sandbox = await startSandbox(options.sandbox);
  const bus = await startLocalEventBridge({
    buses: [BUS_NAME],
    region: 'eu-west-1',
    accountId: '123456789012',
  });
  const client = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  try {
    const sink = new EventBridgeSink({ client, busName: BUS_NAME, source: EVENT_SOURCE, baseDelayMs: 1 });
    const store = new MemoryStateStore();
    const clients = new GymApiClientFactory();
    const clubs = parseClubsFile(sandbox.clubsFile()).map(
      (club): ClubConfig => ({ ...club, sources: ['members', 'paymentHistory'] }),
    );
    const now = () => sandbox.clock.now().getTime();
    const pollAll = async () => {
      const reports = await Promise.all(
        clubs.map((club) =>
          pollClub({ store, sink, clients, owner: 'example-e2e', now }, club, {
            deadlineMs: Date.now() + 60_000,
          }),
        ),
      );
      const failures = reports.flatMap((r) => r.failures.map((f) => `${r.clubId} ${f.source}: ${f.message}`));
      if (failures.length > 0) throw new Error(`poll failures: ${failures.join('; ')}`);
    };

    await pollAll(); // silent baseline
    const baselineEvents = bus.events.length;
    const baselineSeq = sandbox.journal.lastSeq;
    const boundaries: number[] = [];
    for (let i = 0; i < options.rounds; i++) {
      sandbox.advance(options.stepMs);
      boundaries.push(sandbox.journal.lastSeq);
      await pollAll();
    }
    const arn = bus.buses.get(BUS_NAME)?.arn;
    if (!arn) throw new Error(`bus ${BUS_NAME} missing`);
    return {
      delivered: bus.events.slice(baselineEvents).map((e) => toDelivered(e, arn)),
      journal: sandbox.journal.entries(baselineSeq),
      boundaries,
      baselineEvents,
    };
  } finally {
    client.destroy();
    await bus.close();
    await sandbox.close();
  }
}
