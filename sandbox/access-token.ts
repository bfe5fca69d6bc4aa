/**
 * The sandbox's access tokens: real HS256 JWTs (header.payload.signature) with sub, scope "read",
 * iat and exp in seconds of the sandbox clock, signed with a key derived from the seed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export interface TokenClaims {
  sub: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

export class TokenSigner {
  constructor(private readonly key: Buffer) {}

  sign(claims: TokenClaims): string {
    const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const body = b64url(JSON.stringify(claims));
    return `${head}.${body}.${this.signature(`${head}.${body}`)}`;
  }

  /** The claims of a well-formed, correctly signed token; undefined otherwise. Expiry not checked. */
  verify(token: string): TokenClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [head, body, sig] = parts as [string, string, string];
    const expected = Buffer.from(this.signature(`${head}.${body}`));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: unknown };
      if (header.alg !== 'HS256') return undefined;
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<TokenClaims>;
      if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || typeof claims.sub !== 'string')
        return undefined;
      return claims as TokenClaims;
    } catch {
      return undefined;
    }
  }

  private signature(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}

/** Decodes `Authorization: Basic base64(user:pass)`; undefined when absent or malformed. */
export function parseBasicAuth(
  header: string | undefined,
): { username: string; password: string } | undefined {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The token of `Authorization: Bearer <token>`; undefined when absent or another scheme. */
export function parseBearer(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

/** Constant-time string comparison (for passwords and API keys). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
