import crypto from 'node:crypto';

/** A random, URL-safe id (`^[a-zA-Z0-9_-]+$`), 96 bits. */
export function newId(): string {
  return crypto.randomBytes(12).toString('base64url');
}

/** A new API token: 32 random bytes, with a prefix that makes leaked tokens easy to spot. */
export function newToken(): string {
  return `qt_${crypto.randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

export const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

export function nowIso(): string {
  return new Date().toISOString();
}
