/**
 * Visitor claims: a signed JWT (ES256, through `jose`) that tells a published site who a member is, returned by
 * the ping operation as `serviceVisitorClaims`. Claims:
 *
 * | claim | value |
 * |---|---|
 * | `iss` | the instance's public URL (`QUIRE_PUBLIC_URL`) |
 * | `sub` | the user id |
 * | `email`, `name` | the user's e-mail address and display name |
 * | `organization` | the organization id the member pinged |
 * | `role` | the member's organization role, `null` for guests |
 * | `iat`, `exp` | issued now, valid for one hour (members ping while active, which renews it) |
 *
 * The protected header carries `kid`, the RFC 7638 thumbprint of the public key, so keys can be rotated later.
 * The key pair is the data dir's `visitor-claims` key (src/store/keys/signing-key.ts).
 */
import { SignJWT, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import type { SigningKeyPair } from '../../store/keys/signing-key.js';
import type { Role } from '../roles.js';

export const VISITOR_CLAIMS_KEY = 'visitor-claims';
export const VISITOR_CLAIMS_ALGORITHM = 'ES256';
const LIFETIME_SECONDS = 60 * 60;

export interface VisitorClaims {
  sub: string;
  email: string;
  name: string;
  organization: string;
  role: Role | null;
}

export class VisitorClaimsSigner {
  private constructor(
    private readonly keys: SigningKeyPair,
    private readonly issuer: string,
    private readonly kid: string,
    /** The public key as a JWK (with `kid`, `alg` and `use`), for verifiers. */
    readonly publicJwk: JWK,
  ) {}

  static async create(keys: SigningKeyPair, issuer: string): Promise<VisitorClaimsSigner> {
    const jwk = await exportJWK(keys.publicKey);
    const kid = await calculateJwkThumbprint(jwk);
    return new VisitorClaimsSigner(keys, issuer, kid, { ...jwk, kid, alg: VISITOR_CLAIMS_ALGORITHM, use: 'sig' });
  }

  /** A compact JWS of the claims, issued now. */
  async sign(claims: VisitorClaims, now = Date.now()): Promise<string> {
    const { sub, ...rest } = claims;
    const issuedAt = Math.floor(now / 1000);
    return new SignJWT({ ...rest })
      .setProtectedHeader({ alg: VISITOR_CLAIMS_ALGORITHM, typ: 'JWT', kid: this.kid })
      .setIssuer(this.issuer)
      .setSubject(sub)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + LIFETIME_SECONDS)
      .sign(this.keys.privateKey);
  }
}
