import { Type } from 'typebox';

/** A stream of server-sent events, not JSON: each event names what changed (`comment`, `review`, `change-request`). */
export const EventStreamAnswer = {
  description:
    'Server-sent events: `comment` ({changeRequest, comment, action}), `review` and `change-request` ({changeRequest, action}); a comment line every 25 seconds',
  content: { 'text/event-stream': { schema: Type.String() } },
};
