import type { SessionRow } from '../../../store/sql/sessions.js';

export function presentSession(session: SessionRow, currentId: string | undefined) {
  return {
    object: 'session' as const,
    id: session.id,
    method: session.method as 'password' | 'oidc' | 'saml',
    ...(session.user_agent ? { userAgent: session.user_agent } : {}),
    ...(session.ip ? { ip: session.ip } : {}),
    createdAt: session.created_at,
    lastSeenAt: session.last_seen_at,
    expiresAt: session.expires_at,
    current: session.id === currentId,
  };
}
