/**
 * Response habits of poison mode, decided per request from a seeded stream of their own (the
 * other faults' draws are the same with poison on or off): a page that ignores `offset` or
 * `limit`, a `next` that does not advance (each for an episode of `episodeRequests` requests of one
 * club and operation), a page that repeats the previous one, a huge streamed page, an error, a
 * page or a token response that echoes credentials, a token with a control character. Each bent
 * response is logged.
 */
import { MAX_PAGE_SIZE, type OperationName } from '../../lambdas/gym-api/operations';
import type { PageQuery } from '../page-query';
import { SeededRandom } from '../sandbox-random';
import {
  type EchoResponse,
  type EchoSecrets,
  echoInPage,
  echoInToken,
  echoResponse,
} from './credential-echo';
import { drawHugePage, type HugePagePlan } from './huge-page';
import type { PoisonLog, PoisonLogInput } from './poison-log';
import type { PoisonSettings } from './settings';

/** What to serve for a page request. */
export interface PagePlan {
  /** The query whose records are served (the request's, unless a habit says otherwise). */
  readonly served: PageQuery;
  /** The offset `next` carries. */
  readonly nextOffset: number;
  readonly hugePage?: HugePagePlan;
  /**
   * The `href` to send when it is not the request's: a repeated page is the previous response
   * whole, its `href` included, as a cache that answers with a stale response sends it.
   */
  readonly href?: string;
}

type EpisodeKind = 'offsetIgnored' | 'limitIgnored' | 'nextStuck';

interface Episode {
  readonly kind: EpisodeKind;
  readonly variant: string;
  remaining: number;
}

const EPISODE_KINDS: readonly EpisodeKind[] = ['offsetIgnored', 'limitIgnored', 'nextStuck'];

const EPISODE_VARIANTS: Record<EpisodeKind, readonly string[]> = {
  offsetIgnored: ['first-page'],
  limitIgnored: ['double', 'plus-one', 'default-size'],
  nextStuck: ['same-offset', 'offset-zero', 'backwards'],
};

/** The page an episode serves for `q`. */
function episodePlan(e: Episode, q: PageQuery): PagePlan {
  const next = q.offset + q.limit;
  switch (e.variant) {
    case 'first-page':
      return { served: { ...q, offset: 0 }, nextOffset: next };
    case 'double':
      return { served: { ...q, limit: Math.max(1, 2 * q.limit) }, nextOffset: next };
    case 'plus-one':
      return { served: { ...q, limit: q.limit + 1 }, nextOffset: next };
    case 'default-size':
      return {
        served: { ...q, limit: q.limit < MAX_PAGE_SIZE ? MAX_PAGE_SIZE : 2 * MAX_PAGE_SIZE },
        nextOffset: next,
      };
    case 'same-offset':
      return { served: q, nextOffset: q.offset };
    case 'offset-zero':
      return { served: q, nextOffset: 0 };
    default: // backwards
      return { served: q, nextOffset: Math.max(0, q.offset - q.limit) };
  }
}

/** Ways to put a control character in an access token. */
const TOKEN_CORRUPTIONS: readonly { name: string; apply: (token: string) => string }[] = [
  { name: 'newline-inside', apply: (t) => t.replace('.', '.\n') },
  { name: 'crlf-at-end', apply: (t) => `${t}\r\n` },
  { name: 'nul-inside', apply: (t) => `${t.slice(0, 10)}\u0000${t.slice(10)}` },
  { name: 'escape-inside', apply: (t) => `${t.slice(0, 20)}\u001b${t.slice(20)}` },
  { name: 'tab-at-start', apply: (t) => `\t${t}` },
];

export class PoisonResponses {
  private readonly rng: SeededRandom;
  private readonly episodes = new Map<string, Episode>();
  private readonly lastServed = new Map<string, { readonly query: PageQuery; readonly href: string }>();

  constructor(
    seed: number,
    private readonly log: PoisonLog,
    private readonly nowMs: () => number,
  ) {
    this.rng = new SeededRandom(seed, 'poison-responses');
  }

  private record(entry: Omit<PoisonLogInput, 'where' | 'at' | 'expect'>, marker = ''): void {
    this.log.record(
      { where: 'response', expect: 'recover', at: new Date(this.nowMs()).toISOString(), ...entry },
      marker,
    );
  }

  /** The page to serve for a data request: the plain one unless a habit is due. */
  planPage(
    p: PoisonSettings,
    clubId: string,
    operation: OperationName,
    query: PageQuery,
    href: string,
  ): PagePlan {
    const key = `${clubId}\u0000${operation}`;
    const request = { offset: query.offset, limit: query.limit };
    const habit = this.pagingHabit(p, key, query, href);
    if (habit) this.record({ clubId, operation, ...habit.entry, request });
    const chosen: PagePlan = habit?.plan ?? { served: query, nextOffset: query.offset + query.limit };
    if (p.repeatedPage > 0) this.lastServed.set(key, { query: chosen.served, href: chosen.href ?? href });
    if (!(p.hugePage > 0 && this.rng.chance(p.hugePage))) return chosen;
    const marker = this.log.nextResponseMarker();
    const hugePage = drawHugePage(this.rng, p.hugePageBytes, marker);
    this.record(
      { clubId, operation, kind: 'hugePage', variant: `${hugePage.shape}/${hugePage.transfer}`, request },
      marker,
    );
    return { ...chosen, hugePage };
  }

  private pagingHabit(
    p: PoisonSettings,
    key: string,
    query: PageQuery,
    href: string,
  ): { plan: PagePlan; entry: { kind: EpisodeKind | 'repeatedPage'; variant: string } } | undefined {
    let episode = this.episodes.get(key);
    if (episode && !(p[episode.kind] > 0)) {
      this.episodes.delete(key);
      episode = undefined;
    }
    if (!episode) {
      for (const kind of EPISODE_KINDS) {
        if (p[kind] > 0 && this.rng.chance(p[kind])) {
          episode = { kind, variant: this.rng.pick(EPISODE_VARIANTS[kind]), remaining: p.episodeRequests };
          this.episodes.set(key, episode);
          break;
        }
      }
    }
    if (episode) {
      episode.remaining--;
      if (episode.remaining <= 0) this.episodes.delete(key);
      return { plan: episodePlan(episode, query), entry: { kind: episode.kind, variant: episode.variant } };
    }
    // The previous response, for another request (the next page, a later window): what a paging
    // bug or a cache keyed wrongly sends. The same request answered again is not a habit of its own.
    const previous = this.lastServed.get(key);
    if (p.repeatedPage > 0 && previous && previous.href !== href && this.rng.chance(p.repeatedPage)) {
      return {
        plan: {
          served: previous.query,
          nextOffset: previous.query.offset + previous.query.limit,
          href: previous.href,
        },
        entry: { kind: 'repeatedPage', variant: 'previous-page' },
      };
    }
    return undefined;
  }

  /** An error echoing the request's credentials, when `echoCredentials` draws one. */
  echo(
    p: PoisonSettings,
    secrets: EchoSecrets,
    where: { readonly clubId?: string; readonly operation: OperationName | 'token' },
  ): EchoResponse | undefined {
    if (!(p.echoCredentials > 0 && this.rng.chance(p.echoCredentials))) return undefined;
    const response = echoResponse(this.rng, secrets, where.operation === 'token');
    if (response) {
      this.record({ ...where, kind: 'echoCredentials', variant: response.variant, status: response.status });
    }
    return response;
  }

  /**
   * A page body with a credential of the request echoed into it (a record's field, key or nested
   * value, or its `href` or `next`), when `echoCredentials` draws one; else the body as it is.
   * `inRecords`: false where the whole record is its identity (class attendance).
   */
  echoPage(
    p: PoisonSettings,
    secrets: EchoSecrets,
    where: { readonly clubId: string; readonly operation: OperationName },
    body: string,
    inRecords: boolean,
  ): string {
    if (!(p.echoCredentials > 0 && this.rng.chance(p.echoCredentials))) return body;
    const echoed = echoInPage(this.rng, secrets, body, inRecords);
    if (!echoed) return body;
    this.record({ ...where, kind: 'echoCredentials', variant: echoed.variant, status: 200 });
    return echoed.body;
  }

  /** A token response with the login echoed into it, when `echoCredentials` draws one. */
  echoToken(p: PoisonSettings, secrets: EchoSecrets, body: string): string {
    if (!(p.echoCredentials > 0 && this.rng.chance(p.echoCredentials))) return body;
    const echoed = echoInToken(this.rng, secrets, body);
    if (!echoed) return body;
    this.record({ operation: 'token', kind: 'echoCredentials', variant: echoed.variant, status: 200 });
    return echoed.body;
  }

  /** The access token to send: with a control character when `tokenControlChar` draws one. */
  token(p: PoisonSettings, token: string): string {
    if (!(p.tokenControlChar > 0 && this.rng.chance(p.tokenControlChar))) return token;
    const corruption = this.rng.pick(TOKEN_CORRUPTIONS);
    this.record({ operation: 'token', kind: 'tokenControlChar', variant: corruption.name });
    return corruption.apply(token);
  }
}
