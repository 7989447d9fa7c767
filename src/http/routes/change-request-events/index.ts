/**
 * A change request's events as server-sent events (a Quire extension): the app listens on the change request it
 * shows, and reads again what an event names. Each event is only a name and ids: the reader reads the comment or the
 * change request through the API, with its own permissions. Who may listen is who may read the change request; that is
 * checked again on every event and heartbeat, with the credential the stream was opened with (a revoked token, a
 * session signed out), so a reader who lost access is cut off then.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import type { EventBus } from '../../../events/bus.js';
import { callerOf, credentialCheck } from '../../plugins/auth.js';
import { ErrorResponses } from '../../schemas.js';
import { getChangeRequest } from '../../../domain/change-requests/change-requests.js';
import type { ChangeRequestEvent } from '../../../domain/events.js';
import { InvalidArgument } from '../../../domain/errors.js';
import { ChangeRequestParams } from '../change-requests/schema.js';
import { EventStreams } from '../../event-streams.js';
import { EventStreamAnswer } from './schema.js';

/** How long a new stream waits for the bus to hear other processes (Redis) before it opens anyway. */
const BUS_READY_MS = 2000;

/** The routes' dependencies and the bus whose events they send. */
export interface EventRouteDeps extends RouteDeps {
  events: EventBus;
}

export const changeRequestEventRoutes: FastifyPluginAsyncTypebox<EventRouteDeps> = async (app, { ctx, events }) => {
  const streams = new EventStreams();
  // Before the server stops taking connections: open streams would otherwise hold `quire serve` until readers go.
  app.addHook('preClose', (done) => {
    streams.closeAll();
    done();
  });

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/events',
    {
      schema: {
        operationId: 'streamChangeRequestEvents',
        tags: ['change-requests'],
        params: ChangeRequestParams,
        response: { 200: EventStreamAnswer, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { spaceId, changeRequestId } = request.params;
      // As reading the change request: 404 where it cannot be seen.
      const { changeRequest } = await getChangeRequest(ctx, caller, spaceId, changeRequestId);
      if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
        throw new InvalidArgument('accept: this operation answers text/event-stream only (server-sent events, as EventSource asks)');
      }
      await Promise.race([events.ready().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, BUS_READY_MS).unref())]);
      // From here to the stream's start nothing waits: two requests cannot both pass the cap and then exceed it.
      streams.admit(caller.user.id);

      // Events are checked and sent one at a time, in the order they came.
      let queue = Promise.resolve();
      const credentialStands = credentialCheck(ctx, request);
      const stillAllowed = async () => (await credentialStands()) && getChangeRequest(ctx, caller, spaceId, changeRequest.id).then(() => true, () => false);
      const handle = (event?: ChangeRequestEvent) => {
        queue = queue.then(async () => {
          if (!(await stillAllowed())) {
            stream.end();
            return;
          }
          if (event) {
            const { kind, action, commentId } = event;
            stream.send(kind, { changeRequest: event.changeRequestId, action, ...(commentId ? { comment: commentId } : {}) });
          }
        });
        // A failed write ends this stream, never the process (the chain is observed by nobody else).
        queue = queue.catch(() => stream.end());
      };
      const unsubscribe = events.subscribe(changeRequest.id, (event) => handle(event));
      reply.hijack();
      const stream = streams.start(caller.user.id, reply.raw, { onBeat: () => handle(), onEnd: unsubscribe });
    },
  );
};
