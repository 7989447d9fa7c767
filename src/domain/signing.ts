/**
 * Signed, expiring links: a payload and an expiry time, signed with a secret every process shares (the database's
 * instance secrets). Whoever holds the link may use it until it expires; nothing else is needed.
 */
import crypto from 'node:crypto';
import { NotFound } from './errors.js';

/**
 * True when a signature a client sent equals the one computed, compared in constant time. Compared as bytes: a
 * signature of the right length in characters but with non-ASCII ones has more bytes, and timingSafeEqual throws on
 * buffers of different lengths.
 */
export function signatureMatches(given: string, wanted: string): boolean {
  const givenBytes = Buffer.from(given);
  const wantedBytes = Buffer.from(wanted);
  return givenBytes.length === wantedBytes.length && crypto.timingSafeEqual(givenBytes, wantedBytes);
}

export class LinkSigner {
  constructor(private readonly secret: Buffer) {}

  private sign(payload: string): string {
    return crypto.createHmac('sha256', this.secret).update(payload).digest('base64url');
  }

  /** A token carrying `data` until `expiresAt` (ms since the epoch). */
  create(data: Record<string, unknown>, expiresAt: number): string {
    const payload = Buffer.from(JSON.stringify({ ...data, exp: expiresAt })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** The data of a valid, unexpired token; 404 otherwise (an expired or forged link leads nowhere). */
  open(token: string, now = Date.now()): Record<string, unknown> {
    const [payload, signature] = token.split('.');
    const expected = payload ? this.sign(payload) : '';
    if (!signature || !signatureMatches(signature, expected)) {
      throw new NotFound('token: this link is not valid');
    }
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown> & { exp: number };
    if (typeof data.exp !== 'number' || data.exp < now) throw new NotFound('token: this link has expired; ask for a new one');
    return data;
  }
}
