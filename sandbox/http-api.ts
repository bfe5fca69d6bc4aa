/**
 * The HTTP face of the sandbox (node:http, no framework): POST /v1/token, every list operation,
 * the page envelope, errors as {"Message": "..."}, quotas, faults, poison mode's response habits,
 * and the admin journal and poison log routes.
 *
 * Order of checks on a data request: path (404) -> forced/injected faults -> echoed credentials
 * (poison) -> bearer token (401) -> API key (401) -> monthly quota (429, not counted) -> counted ->
 * query (400) -> page (200). The answers' bodies are http-replies.ts, the links' origin
 * link-origin.ts, the admin routes admin-routes.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OPERATIONS, type OperationName } from '../lambdas/gym-api/operations';
import { parseBasicAuth, parseBearer } from './access-token';
import type { AccessTokenIssuer } from './access-tokens';
import { ADMIN_JOURNAL_PATH, ADMIN_POISON_PATH, sendLogEntries } from './admin-routes';
import type { ClubRuntime } from './club-runtime';
import type { Faults, ForcedResponse, ForcedResponses } from './faults';
import { MESSAGES, SERVER_ERRORS, send, sendMessage, sendPage } from './http-replies';
import type { Journal } from './journal';
import { stringifyWithInt64 } from './json-output';
import { linkOrigin } from './link-origin';
import type { PageCompression } from './options';
import { InvalidQueryError, operationAt, parsePageQuery, selectItems } from './page-query';
import { streamHugePage } from './poison/huge-page';
import type { PoisonLog } from './poison/poison-log';
import type { PoisonResponses } from './poison/response-habits';
import { misbehaves } from './poison/settings';
import type { QuotaLedger } from './quota';
import { paddedRecords } from './record-padding';
import type { SeededRandom } from './sandbox-random';
import type { PageBytes } from './sandbox-types';

export const BASE_PATH = '/v1';

export interface HttpApiContext {
  readonly origin: () => string;
  readonly nowMs: () => number;
  readonly clubsByKey: ReadonlyMap<string, ClubRuntime>;
  readonly tokens: AccessTokenIssuer;
  readonly faults: Faults;
  readonly forced: ForcedResponses;
  readonly quota: QuotaLedger;
  readonly journal: Journal;
  /** Fault decisions (5xx, 429, latency, shuffles, bursts): a stream apart from the data's. */
  readonly faultRng: SeededRandom;
  /** Poison mode's response habits (their own stream) and its log. */
  readonly poisonResponses: PoisonResponses;
  readonly poisonLog: PoisonLog;
  /** The integrator login, which echoed-credential errors may repeat on data requests. */
  readonly integrator: { readonly username: string; readonly password: string };
  /** Whether data pages are gzipped for clients that offer it. */
  readonly compression: PageCompression;
  /** Served records' size as a multiple of their own (record-padding.ts): 1 serves them as stored. */
  readonly recordScale: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HttpApi {
  /** Bytes of the data pages served: as written and as sent. */
  readonly pageBytes: { -readonly [K in keyof PageBytes]: PageBytes[K] } = { pages: 0, json: 0, sent: 0 };

  constructor(private readonly ctx: HttpApiContext) {}

  /** The node:http request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    // Drain any body (POST /token may carry grant_type) before answering.
    req.resume();
    this.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendMessage(res, 500, 'Sandbox internal error');
      else res.destroy(err instanceof Error ? err : undefined);
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const method = req.method ?? 'GET';
    if (url.pathname === ADMIN_JOURNAL_PATH) return sendLogEntries(method, url, res, this.ctx.journal);
    if (url.pathname === ADMIN_POISON_PATH) return sendLogEntries(method, url, res, this.ctx.poisonLog);
    const f = this.ctx.faults;
    const latency = f.latencyMs + (f.latencyJitterMs > 0 ? this.ctx.faultRng.next() * f.latencyJitterMs : 0);
    if (latency > 0) await sleep(latency);

    if (!url.pathname.startsWith(`${BASE_PATH}/`)) return sendMessage(res, 404, MESSAGES.notFound);
    const path = url.pathname.slice(BASE_PATH.length);
    const isToken = path === '/token';
    const operation = operationAt(path);
    if (!isToken && !operation) return sendMessage(res, 404, MESSAGES.notFound);
    const allowed = isToken ? 'POST' : 'GET';
    if (method !== allowed) return sendMessage(res, 405, MESSAGES.methodNotAllowed, { allow: allowed });
    if (this.injectedFault(res, path)) return;
    if (this.echoedCredentials(req, res, operation ?? 'token')) return;

    if (isToken) return this.token(req, res);
    if (!operation) return;
    const club = this.authorizedClub(req, res);
    if (club) await this.page(req, res, url, club, operation);
  }

  /** Poison mode: an error whose body echoes the request's credentials, when one is drawn. */
  private echoedCredentials(req: IncomingMessage, res: ServerResponse, operation: OperationName | 'token') {
    const poison = this.ctx.faults.poison;
    if (!(poison.echoCredentials > 0)) return false;
    const isToken = operation === 'token';
    const key = req.headers['x-api-key'];
    const apiKey = typeof key === 'string' && key !== '' ? key : undefined;
    const bearerToken = isToken ? undefined : parseBearer(req.headers.authorization);
    const login = isToken ? parseBasicAuth(req.headers.authorization) : this.ctx.integrator;
    const clubId = apiKey ? this.ctx.clubsByKey.get(apiKey)?.clubId : undefined;
    const echo = this.ctx.poisonResponses.echo(
      poison,
      {
        ...(login ? { username: login.username, password: login.password } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...(bearerToken ? { bearerToken } : {}),
      },
      { ...(clubId ? { clubId } : {}), operation },
    );
    if (!echo) return false;
    send(res, echo.status, echo.body, echo.contentType, echo.headers);
    return true;
  }

  /** Answers with a forced response, a random 5xx or a random 429 when the faults say so. */
  private injectedFault(res: ServerResponse, path: string): boolean {
    const f = this.ctx.faults;
    const forced = this.ctx.forced.take(path);
    if (forced) {
      this.sendForced(res, forced);
      return true;
    }
    if (f.errorRate5xx > 0 && this.ctx.faultRng.chance(f.errorRate5xx)) {
      const e = this.ctx.faultRng.pick(SERVER_ERRORS);
      send(res, e.status, e.body, e.contentType);
      return true;
    }
    if (f.rate429 > 0 && this.ctx.faultRng.chance(f.rate429)) {
      sendMessage(res, 429, MESSAGES.throttled, { 'retry-after': '1' });
      return true;
    }
    return false;
  }

  /** The club of a valid token and API key with quota left, or undefined once refused. */
  private authorizedClub(req: IncomingMessage, res: ServerResponse): ClubRuntime | undefined {
    if (!this.ctx.tokens.isValid(req.headers.authorization, this.ctx.nowMs())) {
      sendMessage(res, 401, MESSAGES.invalidToken, {
        'www-authenticate': 'Bearer error="invalid_token"',
      });
      return undefined;
    }
    const key = req.headers['x-api-key'];
    const club = typeof key === 'string' ? this.ctx.clubsByKey.get(key) : undefined;
    if (!club) {
      sendMessage(res, 401, MESSAGES.invalidApiKey);
      return undefined;
    }
    const now = this.ctx.nowMs();
    if (!this.ctx.quota.tryConsume(club.clubId, club.plan, now)) {
      const next = new Date(now);
      const monthEnd = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1);
      sendMessage(res, 429, MESSAGES.quotaExceeded, {
        'retry-after': String(Math.max(1, Math.ceil((monthEnd - now) / 1000))),
      });
      return undefined;
    }
    return club;
  }

  /**
   * One page of an operation's records (activity may be inserted first, order may be unstable;
   * in poison mode a habit may bend the page, or stream it huge).
   */
  private async page(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    club: ClubRuntime,
    operation: OperationName,
  ): Promise<void> {
    const f = this.ctx.faults;
    let query: ReturnType<typeof parsePageQuery>;
    try {
      query = parsePageQuery(OPERATIONS[operation], url.searchParams);
    } catch (err) {
      if (err instanceof InvalidQueryError) return sendMessage(res, 400, err.message);
      throw err;
    }
    const insert = f.insertWhilePaging;
    if (insert === true || (typeof insert === 'number' && this.ctx.faultRng.chance(insert))) {
      club.simulation.burst(this.ctx.nowMs(), this.ctx.faultRng.int(1, 3));
    }
    const rng = this.ctx.faultRng;
    const shuffle = f.unstableOrdering
      ? (xs: number[], from: number, to: number) => {
          rng.shuffle(xs, from, to);
        }
      : undefined;
    const poison = f.poison;
    const requestHref = `${linkOrigin(this.ctx.origin(), req.headers.host)}${url.pathname}${url.search}`;
    const plan = misbehaves(poison)
      ? this.ctx.poisonResponses.planPage(poison, club.clubId, operation, query, requestHref)
      : undefined;
    const data = paddedRecords(
      selectItems(club.store, operation, plan?.served ?? query, shuffle),
      this.ctx.recordScale,
    );
    const href = plan?.href ?? requestHref;
    // A repeated page is the previous response whole: its links are the previous request's.
    const nextUrl = new URL(href);
    nextUrl.searchParams.set('offset', String(plan?.nextOffset ?? query.offset + query.limit));
    nextUrl.searchParams.set('limit', String(plan?.href ? plan.served.limit : query.limit));
    const next = nextUrl.toString();
    if (plan?.hugePage)
      return streamHugePage(res, { href, next, itemsJson: stringifyWithInt64(data) }, plan.hugePage);
    const body = stringifyWithInt64({ href, next, data });
    sendPage(req, res, this.echoedInPage(req, club, operation, body), this.ctx.compression, this.pageBytes);
  }

  /** Poison mode: the page with a credential of the request echoed into it, when one is drawn. */
  private echoedInPage(req: IncomingMessage, club: ClubRuntime, operation: OperationName, body: string) {
    const poison = this.ctx.faults.poison;
    if (!(poison.echoCredentials > 0)) return body;
    const bearerToken = parseBearer(req.headers.authorization);
    const secrets = { ...this.ctx.integrator, apiKey: club.apiKey, ...(bearerToken ? { bearerToken } : {}) };
    const where = { clubId: club.clubId, operation };
    // A class attendance record is identified by all of it: an echo in it would be another record.
    return this.ctx.poisonResponses.echoPage(poison, secrets, where, body, operation !== 'classAttendance');
  }

  private token(req: IncomingMessage, res: ServerResponse) {
    const issued = this.ctx.tokens.issue(
      req.headers.authorization,
      this.ctx.nowMs(),
      this.ctx.faults.tokenLifetimeSec,
    );
    if (!issued) {
      return sendMessage(res, 401, MESSAGES.invalidCredentials, {
        'www-authenticate': 'Basic realm="gym-api"',
      });
    }
    const poison = this.ctx.faults.poison;
    const token =
      poison.tokenControlChar > 0 ? this.ctx.poisonResponses.token(poison, issued.token) : issued.token;
    const body = JSON.stringify({ AccessToken: token, ExpiresIn: issued.expiresIn, TokenType: 'Bearer' });
    const login = parseBasicAuth(req.headers.authorization);
    const echoed =
      poison.echoCredentials > 0 && login ? this.ctx.poisonResponses.echoToken(poison, login, body) : body;
    send(res, 200, echoed, undefined, { 'cache-control': 'no-store' });
  }

  private sendForced(res: ServerResponse, forced: ForcedResponse): void {
    const body = forced.body ?? JSON.stringify({ Message: `Forced response ${forced.status}` });
    send(res, forced.status, body, forced.contentType ?? 'application/json; charset=utf-8', {
      ...(forced.headers ?? {}),
    });
  }
}
