import crypto from 'node:crypto';

/**
 * A random, URL-safe id (`^[a-zA-Z0-9_-]+$`), about 96 bits. It starts with a letter or digit, so it can be
 * passed on a command line without being taken for an option.
 */
export function newId(): string {
  for (;;) {
    const id = crypto.randomBytes(12).toString('base64url');
    if (/^[a-zA-Z0-9]/.test(id)) return id;
  }
}

/**
 * An id that is itself a secret (an invite link's): 32 random bytes, URL-safe, starting with a letter or digit
 * like `newId`, so that it cannot be guessed.
 */
export function newSecretId(): string {
  for (;;) {
    const id = crypto.randomBytes(32).toString('base64url');
    if (/^[a-zA-Z0-9]/.test(id)) return id;
  }
}

/** A new API token: 32 random bytes, with a prefix that makes leaked tokens easy to spot. */
export function newToken(): string {
  return `qt_${crypto.randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  // One call, no Hash object: every request of the API hashes its token.
  return crypto.hash('sha256', token);
}

export const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

export function nowIso(): string {
  return new Date().toISOString();
}
