/** The roles a member, a team or a grant gives, strongest first, and their order: plain values any module may import. */
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` is `needed` or stronger. */
export function atLeast(role: Role | null | undefined, needed: Role): boolean {
  return !!role && RANK[role] >= RANK[needed];
}

export function strongest(...roles: Array<Role | null | undefined>): Role | null {
  let best: Role | null = null;
  for (const role of roles) if (role && (!best || RANK[role] > RANK[best])) best = role;
  return best;
}
