import { describe, expect, it } from 'vitest';
import { parseBasicAuth, parseBearer, TokenSigner } from '../../../sandbox/access-token';
import { AccessTokenIssuer } from '../../../sandbox/access-tokens';

const key = Buffer.alloc(32, 7);
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('TokenSigner', () => {
  it('signs an HS256 JWT that verifies, and rejects tampering', () => {
    const signer = new TokenSigner(key);
    const token = signer.sign({ sub: 'u', scope: 'read', iat: 100, exp: 160, jti: 't1' });
    const [head, body] = token.split('.');
    expect(JSON.parse(Buffer.from(head ?? '', 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(body ?? '', 'base64url').toString())).toMatchObject({ exp: 160, iat: 100 });
    expect(signer.verify(token)?.sub).toBe('u');
    const forged = Buffer.from(
      JSON.stringify({ sub: 'u', scope: 'read', iat: 100, exp: 9e9, jti: 'x' }),
    ).toString('base64url');
    expect(signer.verify(`${head}.${forged}.${token.split('.')[2]}`)).toBeUndefined();
    expect(new TokenSigner(Buffer.alloc(32, 8)).verify(token)).toBeUndefined();
    expect(signer.verify('not-a-jwt')).toBeUndefined();
  });
});

describe('AccessTokenIssuer', () => {
  const issuer = new AccessTokenIssuer({ username: 'user', password: 'pa:ss' }, key);

  it('issues for the right Basic login only', () => {
    expect(issuer.issue(basic('user', 'pa:ss'), 0, 60)?.expiresIn).toBe(60);
    expect(issuer.issue(basic('user', 'wrong'), 0, 60)).toBeUndefined();
    expect(issuer.issue(basic('other', 'pa:ss'), 0, 60)).toBeUndefined();
    expect(issuer.issue(undefined, 0, 60)).toBeUndefined();
    expect(issuer.issue('Bearer abc', 0, 60)).toBeUndefined();
  });

  it('accepts a token until exp on the given clock', () => {
    const issued = issuer.issue(basic('user', 'pa:ss'), 1_000_000, 60);
    const header = `Bearer ${issued?.token}`;
    expect(issuer.isValid(header, 1_000_000 + 59_999)).toBe(true);
    expect(issuer.isValid(header, 1_000_000 + 60_000)).toBe(false);
    expect(issuer.isValid(issued?.token, 1_000_000)).toBe(false);
  });
});

describe('header parsing', () => {
  it('parses Basic and Bearer', () => {
    expect(parseBasicAuth(basic('a', 'b:c'))).toEqual({ username: 'a', password: 'b:c' });
    expect(parseBasicAuth('Basic !!!')).toBeUndefined();
    expect(parseBearer('bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(parseBearer('Basic abc')).toBeUndefined();
  });
});
