/** Presentation pieces shared by several resources. */
import type { FastifyReply } from 'fastify';
import type { Page } from '../domain/lists.js';
import type { UserRow } from '../store/sql/users.js';
import type { Urls } from './urls.js';

/** The list envelope: `count` is the number of items in this response; `next` only when more remain. */
export function presentList<T, R>(page: Page<T>, present: (item: T) => R): { items: R[]; count: number; next?: { page: string } } {
  const items = page.items.map(present);
  return page.next ? { items, count: items.length, next: { page: page.next } } : { items, count: items.length };
}

export function presentUser(urls: Urls, user: UserRow) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.display_name,
    email: user.email,
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: urls.api(`/users/${user.id}`) },
  };
}

/** A body-less answer: 204 (nothing was there / nothing to say) or 205 (deleted). HTTP forbids a body in both. */
export function noContent(reply: FastifyReply, status: 204 | 205) {
  return reply.status(status).send(undefined);
}
