/** Small fetch helpers for the sandbox integration tests. */
import { parseJsonPreservingInt64 } from '../../../lambdas/gym-api/json';
import type { Sandbox } from '../../../sandbox';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export function basicHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export async function requestToken(sandbox: Sandbox): Promise<string> {
  const res = await fetch(`${sandbox.url}/token`, {
    method: 'POST',
    headers: { authorization: basicHeader(sandbox.integrator.username, sandbox.integrator.password) },
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status}`);
  const body = (await res.json()) as { AccessToken: string };
  return body.AccessToken;
}

export async function rawGet(
  sandbox: Sandbox,
  pathAndQuery: string,
  auth: { token?: string; apiKey?: string } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (auth.token !== undefined) headers.authorization = `Bearer ${auth.token}`;
  if (auth.apiKey !== undefined) headers['x-api-key'] = auth.apiKey;
  const res = await fetch(`${sandbox.url}${pathAndQuery}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export interface Envelope {
  href: string;
  next: string;
  data: Record<string, unknown>[];
}

/** An authorised GET that must answer 200 with a page envelope; ids keep int64 precision. */
export async function getPage(
  sandbox: Sandbox,
  token: string,
  apiKey: string,
  pathAndQuery: string,
): Promise<Envelope> {
  const res = await rawGet(sandbox, pathAndQuery, { token, apiKey });
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${res.text}`);
  return parseJsonPreservingInt64(res.text) as Envelope;
}

/** Follows `next` until a short page; returns every item. */
export async function getAll(
  sandbox: Sandbox,
  token: string,
  apiKey: string,
  path: string,
  query: Record<string, string> = {},
  pageSize = 500,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let url = `${path}?${new URLSearchParams({ ...query, limit: String(pageSize) })}`;
  for (;;) {
    const page = await getPage(sandbox, token, apiKey, url);
    items.push(...page.data);
    if (page.data.length < pageSize) return items;
    const next = new URL(page.next);
    url = `${next.pathname.replace(/^\/v1/, '')}${next.search}`;
  }
}

export function messageOf(res: RawResponse): string | undefined {
  try {
    return (JSON.parse(res.text) as { Message?: string }).Message;
  } catch {
    return undefined;
  }
}
