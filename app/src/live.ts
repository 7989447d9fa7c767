/**
 * Live updates of a change request: the app listens to its events (server-sent, GET .../events) and counts, per kind
 * (comments, reviews, the change request itself), the events heard, so that a view reads again what changed when
 * its count moves, without reloading the page. EventSource reconnects by itself; after a reconnection everything is
 * read again, since events sent meanwhile were missed.
 */
import { useEffect, useState } from 'preact/hooks';
import { BASE } from './api.js';

export interface LiveCounts {
  comment: number;
  review: number;
  'change-request': number;
}

const KINDS = ['comment', 'review', 'change-request'] as const;
const NONE: LiveCounts = { comment: 0, review: 0, 'change-request': 0 };

export function useChangeRequestEvents(spaceId: string, number: string): LiveCounts {
  const [counts, setCounts] = useState<LiveCounts>(NONE);
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`${BASE}/v1/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(number)}/events`);
    let opened = false;
    source.onopen = () => {
      // A reconnection: what happened while the stream was down was not heard.
      if (opened) setCounts((c) => ({ comment: c.comment + 1, review: c.review + 1, 'change-request': c['change-request'] + 1 }));
      opened = true;
    };
    for (const kind of KINDS) source.addEventListener(kind, () => setCounts((c) => ({ ...c, [kind]: c[kind] + 1 })));
    return () => source.close();
  }, [spaceId, number]);
  return counts;
}
