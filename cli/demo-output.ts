/**
 * What the local demo prints: each event as it is published, coloured by kind, at the club's local
 * time, and a status line per club on the simulated clock.
 */
import type { ClubConfig } from '../lambdas/clubs/club-config';
import type { ClubReport } from '../lambdas/engine/club-poll/poll-club';
import type { BridgeEvent } from '../lambdas/events/catalog';
import type { EventSink } from '../lambdas/events/publisher';
import { count, describeEvent } from './format';

const tty = process.stdout.isTTY === true;
const paint = (code: number, text: string) => (tty ? `\u001b[${code}m${text}\u001b[0m` : text);
export const dim = (t: string) => paint(2, t);
export const bold = (t: string) => paint(1, t);

const COLOURS: Record<string, number> = {
  'Payment Failed': 31,
  'Member Status Changed': 33,
  'Member Sent To Debt Collection': 31,
  'Prospect Created': 36,
  'Prospect Status Changed': 36,
  'Member Joined': 32,
  'Payment Succeeded': 32,
  'Club Credentials Rejected': 35,
  'Club Quota Low': 35,
  'Club Data Stale': 35,
};

/** Prints each event as it is published, then passes it on. */
export class PrintingSink implements EventSink {
  total = 0;
  readonly byType = new Map<string, number>();
  readonly byClub = new Map<string, number>();
  constructor(
    private readonly next: EventSink | undefined,
    private readonly zoneOf: (clubId: string) => string,
  ) {}

  async publish(events: readonly BridgeEvent[]): Promise<void> {
    if (this.next) await this.next.publish(events);
    for (const e of events) {
      this.total++;
      this.byType.set(e.detailType, (this.byType.get(e.detailType) ?? 0) + 1);
      this.byClub.set(e.detail.clubId, (this.byClub.get(e.detail.clubId) ?? 0) + 1);
      const d = e.detail;
      const when = d.occurredAtLocal ?? localClock(d.occurredAt, this.zoneOf(d.clubId));
      const type = paint(COLOURS[e.detailType] ?? 0, e.detailType.padEnd(34));
      process.stdout.write(
        `${dim(when.replace('T', ' '))}  ${d.clubId.padEnd(7)} ${type} ${describeEvent(e)}\n`,
      );
    }
  }
}

function localClock(iso: string, zone: string): string {
  return new Date(iso).toLocaleString('sv-SE', { timeZone: zone }).replace(' ', 'T');
}

/**
 * One status line per club, on one clock: the simulated one (the clock the events' times come
 * from), as the club's local time. The wall clock of the machine running the demo never appears.
 */
export function statusLine(
  club: Pick<ClubConfig, 'clubId' | 'timeZone'>,
  report: Pick<ClubReport, 'outcome' | 'failures' | 'requests'> | undefined,
  events: number,
  simNowMs: number,
): string {
  if (!report) return `${club.clubId}: starting`;
  const failures = report.failures.map((f) => `${f.source}: ${f.kind}`).join(', ');
  const local = localClock(new Date(simNowMs).toISOString(), club.timeZone).replace('T', ' ');
  return [
    bold(club.clubId.padEnd(7)),
    report.outcome === 'ok' ? paint(32, 'ok') : paint(31, report.outcome),
    `simulated ${local} ${club.timeZone}`,
    count(events, 'event'),
    `${count(report.requests, 'API request')} last poll`,
    failures,
  ]
    .filter(Boolean)
    .join('  ');
}

/** The heading above the status lines: the simulated clock in UTC, labelled as such. */
export function statusHeading(simNowMs: number, totalEvents: number): string {
  const utc = new Date(simNowMs).toISOString().slice(0, 19).replace('T', ' ');
  return `-- simulated ${utc} UTC, ${count(totalEvents, 'event')} so far`;
}
