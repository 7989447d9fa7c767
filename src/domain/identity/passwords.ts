/**
 * Passwords: kept as argon2id (@node-rs/argon2, the Rust reference implementation bound for Node, hashing on libuv's
 * thread pool so that the event loop never waits on it), with OWASP's recommended parameters (19 MiB, 2 passes).
 */
import { hash, verify } from '@node-rs/argon2';
import { InvalidArgument } from '../errors.js';

export const MIN_PASSWORD_LENGTH = 10;
/** A bound on what one sign-in makes the server hash. */
export const MAX_PASSWORD_LENGTH = 256;

/** The library's default algorithm is argon2id (the stored PHC strings say so, and a test checks it). */
const OPTIONS = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Refuses a password that is too short or too long, naming `field`. */
export function checkNewPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new InvalidArgument(`${field}: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new InvalidArgument(`${field}: must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

export async function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** A hash of no one's password, verified against when the e-mail has no password, so that both take as long. */
let decoy: Promise<string> | undefined;

/** Whether `password` is the one `stored` was made from; with no stored hash, false after the same work. */
export async function passwordMatches(stored: string | undefined, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (!stored) {
    decoy ??= hashPassword('no password is stored for this account');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
