/**
 * The poison accounting of a chaos run (issue 17): what the sandbox's poison mode stored and served
 * (its poison log, docs/sandbox.md "Poison mode") against what the bridge did with it.
 *
 * - An event that carries a poison marker is a poison record the bridge published: allowed for the
 *   records a bridge may publish (`either`), a failure for those it must quarantine.
 * - Every quarantined record must be accounted for: a poison record (its marker or poison id), or
 *   a record over the response cap cut from a huge page. A real record quarantined is a failure.
 * - No credential of the run (the integrator's username and password, the `username:password` pair
 *   and its base64, the club's API key, every bearer token the bridge sent and its signature) may
 *   appear anywhere the bridge writes: an event, any item of the table (quarantined records,
 *   snapshots, seen keys, cursors, the lifecycle document; compressed ones read unzipped), or a log
 *   line of any level (`CredentialWatch` captures them while the run lasts). Looked for in every
 *   form a reader could decode: JSON escapes, percent-encoding, HTML references, base64
 *   (test/support/credential-leaks.ts), since poison mode echoes them escaped (issue 32).
 */
import type { ClubConfig } from '../../lambdas/clubs/club-config';
import { safeStringify } from '../../lambdas/common/bounded-value';
import { logger } from '../../lambdas/common/logger';
import type { BridgeEvent } from '../../lambdas/events/catalog';
import type { FetchFn } from '../../lambdas/gym-api';
import { SOURCE_ORDER } from '../../lambdas/sources';
import type { StateStore } from '../../lambdas/state';
import type { PoisonLogEntry, Sandbox } from '../../sandbox';
import { credentialForms, findCredentials, type NamedCredential } from '../support/credential-leaks';

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
  /**
   * Responses that echoed a credential (error bodies, pages, token responses; escaped in any way
   * JSON allows), and of them the 200s (pages and token responses). Absent in older summaries.
   */
  readonly credentialEchoes?: number;
  readonly credentialEchoesIn200?: number;
  /** Credentials found anywhere the bridge writes (each a failure). */
  readonly credentialsFound?: number;
}

interface RunView {
  readonly club: ClubConfig;
  readonly inspectionStore: StateStore;
}

/** What the bridge wrote besides events, for the credential check: log lines and table items. */
export interface WrittenElsewhere {
  readonly watch: CredentialWatch;
  /** Every item of the run's table, as DynamoDB holds it (binary attributes as bytes). */
  readonly tableItems: readonly unknown[];
}

export async function accountPoison(
  sandbox: Sandbox,
  events: readonly BridgeEvent[],
  run: RunView,
  failures: string[],
  elsewhere?: WrittenElsewhere,
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
    const records = await run.inspectionStore.view(run.club.clubId).listQuarantined(source, 10_000);
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
  // No credential anywhere the bridge writes, in any form a reader could decode.
  const { username, password } = sandbox.integrator;
  const credentials: NamedCredential[] = [
    { name: 'password', value: password },
    { name: 'username', value: username },
    { name: 'username:password', value: `${username}:${password}` },
    { name: 'API key', value: run.club.credentials.apiKey },
  ];
  for (const token of elsewhere?.watch.tokens ?? []) {
    credentials.push({ name: 'bearer token', value: token });
    const signature = token.split('.')[2];
    if (signature && signature.length >= 16)
      credentials.push({ name: 'bearer token signature', value: signature });
  }
  const forms = credentialForms(credentials);
  const cursors = await run.inspectionStore.view(run.club.clubId).listCursors();
  const found = [
    ...findCredentials('an event', events, forms),
    ...findCredentials('a quarantined record', texts, forms),
    ...findCredentials('a cursor', cursors, forms),
    ...findCredentials('a table item', elsewhere?.tableItems ?? [], forms),
    ...findCredentials('a log line', elsewhere?.watch.texts() ?? [], forms),
  ];
  for (const where of found) failures.push(`a credential in ${where}`);
  const echoes = log.filter((e) => e.kind === 'echoCredentials');
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
      credentialEchoes: echoes.length,
      credentialEchoesIn200: echoes.filter((e) => e.status === 200).length,
      credentialsFound: found.length,
    },
  };
}

/**
 * What the run's bridge logs and which bearer tokens it sends, for the credential check: every log
 * line of every level (the logger is set to DEBUG while watching, its lines taken from the process's
 * streams and kept as text, anything else written passes through), and every `Bearer` value a
 * watched fetch sends.
 */
export class CredentialWatch {
  readonly tokens = new Set<string>();
  readonly #lines: string[] = [];
  #restore: (() => void) | undefined;

  start(): void {
    if (this.#restore) return;
    const level = logger.getLevelName();
    const streams = [process.stdout, process.stderr];
    const originals = streams.map((stream) => stream.write);
    streams.forEach((stream, i) => {
      const original = originals[i]!;
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        if (isLogLines(text)) {
          this.#lines.push(text);
          return true;
        }
        return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
      }) as typeof stream.write;
    });
    logger.setLogLevel('DEBUG');
    this.#restore = () => {
      streams.forEach((stream, i) => {
        stream.write = originals[i]!;
      });
      logger.setLogLevel(level as Parameters<typeof logger.setLogLevel>[0]);
    };
  }

  stop(): void {
    this.#restore?.();
    this.#restore = undefined;
  }

  /**
   * The log lines captured, as written: JSON text, which the credential check reads decoded (a
   * credential in a line is there as JSON.stringify wrote it, or escaped further).
   */
  texts(): readonly string[] {
    return this.#lines;
  }

  /** The log lines captured, parsed. */
  lines(): unknown[] {
    return this.#lines.flatMap((chunk) =>
      chunk
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l)),
    );
  }

  /** `fetch`, noting the bearer token of every request it sends. */
  watchFetch(fetch: FetchFn): FetchFn {
    return (input, init) => {
      const bearer = /^Bearer (.+)$/.exec(new Headers(init?.headers).get('authorization') ?? '')?.[1];
      if (bearer) this.tokens.add(bearer);
      return fetch(input, init);
    };
  }
}

/**
 * True when `text` is one or more of the logger's JSON lines (and nothing else): each begins with
 * its `level` key, as Powertools writes it. Decided without parsing (the watch is on for a whole
 * chaos run at DEBUG).
 */
function isLogLines(text: string): boolean {
  const lines = text.split('\n').filter((l) => l !== '');
  return lines.length > 0 && lines.every((line) => line.startsWith('{"level":"') && line.endsWith('}'));
}
