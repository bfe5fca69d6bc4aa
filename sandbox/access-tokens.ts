/** Issues and checks the integrator's access tokens (HTTP Basic in, HS256 JWT out). */
import { parseBasicAuth, parseBearer, sameSecret, TokenSigner } from './access-token';

export class AccessTokenIssuer {
  private readonly signer: TokenSigner;
  private issued = 0;

  constructor(
    private readonly integrator: { readonly username: string; readonly password: string },
    signingKey: Buffer,
  ) {
    this.signer = new TokenSigner(signingKey);
  }

  /** A token for valid Basic credentials; undefined for missing or wrong ones. */
  issue(
    authorization: string | undefined,
    nowMs: number,
    lifetimeSec: number,
  ): { token: string; expiresIn: number } | undefined {
    const basic = parseBasicAuth(authorization);
    if (!basic) return undefined;
    const ok =
      sameSecret(basic.username, this.integrator.username) &&
      sameSecret(basic.password, this.integrator.password);
    if (!ok) return undefined;
    const iat = Math.floor(nowMs / 1000);
    this.issued++;
    const token = this.signer.sign({
      sub: basic.username,
      scope: 'read',
      iat,
      exp: iat + lifetimeSec,
      jti: `t${this.issued}`,
    });
    return { token, expiresIn: lifetimeSec };
  }

  /** True for `Bearer <token>` with a valid signature, scope read, and exp after the sandbox clock. */
  isValid(authorization: string | undefined, nowMs: number): boolean {
    const token = parseBearer(authorization);
    const claims = token ? this.signer.verify(token) : undefined;
    if (!claims) return false;
    return claims.exp * 1000 > nowMs && claims.scope.split(' ').includes('read');
  }
}
