import { describe, expect, it } from 'vitest';
import { ID_PATTERN, hashToken, newId, newToken } from '../../src/domain/ids.js';

describe('ids and tokens', () => {
  it('makes URL-safe ids that never start like a command-line option', () => {
    const ids = Array.from({ length: 2000 }, newId);
    for (const id of ids) {
      expect(id).toMatch(ID_PATTERN);
      expect(id).toMatch(/^[a-zA-Z0-9]/);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes 32-byte tokens and stores only their SHA-256', () => {
    const token = newToken();
    expect(token).toMatch(/^qt_[A-Za-z0-9_-]{43}$/);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token.slice(3));
  });
});
