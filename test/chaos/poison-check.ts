/**
 * The poison accounting of a chaos run (issue 17): what the sandbox's poison mode stored and served
 * (its poison log, docs/sandbox.md "Poison mode") against what the bridge did with it.
 *
 * - An event that carries a poison marker is a poison record the bridge published: allowed for the
 *   records a bridge may publish (`either`), a failure for those it must quarantine.
 * - Every quarantined record must be accounted for: a poison record (its marker or poison id), or
 *   a record over the response cap cut from a huge page. A real record quarantined is a failure.
 * - No credential of the run (the integrator's password, the `username:password` pair or its base64,
 *   the club's API key) may appear in an event, a quarantined record or a cursor.
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { safeStringify } from '../../lambdas/common/bounded-value';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { PoisonLogEntry, Sandbox } from '../../lambdas/sandbox';
import { SOURCE_ORDER } from '../../lambdas/sources';
import type { StateStore } from '../../lambdas/state';

export interface PoisonFigures {
  /** Bad records stored in the club's data (poison log, `where: stored`). */
  readonly stored: number;
  /** Of those, the ones a bridge must quarantine (`expect: quarantine`). */
  readonly mustQuarantine: number;
  /** Responses bent (huge pages, offset or limit ignored, echoed credentials, ...). */
  readonly responses: number;
  /** Distinct poison records published (markers in events). */
  readonly published: number;
  /** Records the bridge quarantined, and how many were poison, huge-page cuts, or real. */
  readonly quarantined: number;
  readonly quarantinedPoison: number;
  readonly quarantinedCuts: number;
  readonly quarantinedReal: number;
  /** Poison records the bridge must quarantine that it did. */
  readonly mustQuarantineMet: number;
}

interface RunView {
  readonly club: ClubConfig;
  readonly inspectionStore: StateStore;
}

export async function accountPoison(
  sandbox: Sandbox,
  events: readonly BridgeEvent[],
  run: RunView,
  failures: string[],
): Promise<{ figures: PoisonFigures; eventsOfPoison: Set<BridgeEvent> }> {
  const log = sandbox.poison.log.entries();
  const stored = log.filter((e) => e.where === 'stored');
  const eventsOfPoison = new Set<BridgeEvent>();
  const published = new Set<PoisonLogEntry>();
  for (const event of events) {
    const hits = sandbox.poison.findIn(event.detail);
    if (hits.length === 0) continue;
    eventsOfPoison.add(event);
    for (const hit of hits) {
      published.add(hit);
      if (hit.expect === 'quarantine') {
        failures.push(
          `published a record it must quarantine: ${hit.kind}/${hit.variant} ${hit.marker} (${event.detailType})`,
        );
      }
    }
  }
  let quarantined = 0;
  let quarantinedPoison = 0;
  let quarantinedCuts = 0;
  let quarantinedReal = 0;
  const quarantinedEntries = new Set<PoisonLogEntry>();
  const texts: string[] = [];
  for (const source of SOURCE_ORDER) {
    const records = await run.inspectionStore.listQuarantined(run.club.clubId, source, 10_000);
    for (const q of records) {
      quarantined++;
      const text = `${safeStringify(q.raw, { maxChars: 64 * 1024, maxStringChars: 16 * 1024 })} ${q.reason}`;
      texts.push(text);
      const hits = sandbox.poison.find(text);
      if (hits.length > 0) {
        quarantinedPoison++;
        for (const hit of hits) quarantinedEntries.add(hit);
      } else if (/over the .* response cap|record over the response cap/.test(text)) {
        quarantinedCuts++;
      } else {
        quarantinedReal++;
        failures.push(`quarantined a record that is not poison (${source}): ${q.reason.slice(0, 200)}`);
      }
    }
  }
  // No credential anywhere the bridge writes.
  const { username, password } = sandbox.integrator;
  const secrets = [
    password,
    `${username}:${password}`,
    Buffer.from(`${username}:${password}`).toString('base64'),
    run.club.credentials.apiKey,
  ].filter((s) => s.length >= 4);
  const cursors = JSON.stringify(await run.inspectionStore.listCursors(run.club.clubId));
  const written = `${JSON.stringify(events)}\n${texts.join('\n')}\n${cursors}`;
  for (const secret of secrets) {
    if (written.includes(secret))
      failures.push(`a credential in events, quarantine or cursors: ${secret.slice(0, 3)}…`);
  }
  const mustQuarantine = stored.filter((e) => e.expect === 'quarantine');
  return {
    eventsOfPoison,
    figures: {
      stored: stored.length,
      mustQuarantine: mustQuarantine.length,
      responses: log.length - stored.length,
      published: published.size,
      quarantined,
      quarantinedPoison,
      quarantinedCuts,
      quarantinedReal,
      mustQuarantineMet: mustQuarantine.filter((e) => quarantinedEntries.has(e)).length,
    },
  };
}
