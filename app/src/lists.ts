/** Reading whole lists of the API, which pages them by 100 at most. */
import { api } from './api.js';
import type { List } from './types.js';

/** Every page of a list. */
export async function everything<T>(path: string, signal: AbortSignal, query: Record<string, string | undefined> = {}): Promise<T[]> {
  const items: T[] = [];
  let page: string | undefined;
  do {
    const list: List<T> = await api<List<T>>(path, { signal, query: { ...query, limit: 100, page } });
    items.push(...list.items);
    page = list.next?.page;
  } while (page);
  return items;
}
