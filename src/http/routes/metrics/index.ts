/**
 * `GET /metrics`, for an operator's monitoring (Prometheus's text format): how long this process's event loop was
 * held, and how late its timers ran, since the last read (src/event-loop.ts). Registered only when
 * QUIRE_METRICS_TOKEN is set, and answered only to `Authorization: Bearer <that token>`; not part of the API.
 */
import crypto from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Delays, EventLoopMonitor } from '../../../event-loop.js';
import { errorBody } from '../../plugins/errors.js';

export interface MetricsDeps {
  monitor: EventLoopMonitor;
  token: string;
}

const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
const seconds = (ms: number) => (ms / 1000).toFixed(6);

/** A summary's lines: its quantiles (1: the longest), sum and count. */
function summaryLines(name: string, help: string, delays: Delays): string[] {
  return [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} summary`,
    `${name}{quantile="0.5"} ${seconds(delays.p50Ms)}`,
    `${name}{quantile="0.99"} ${seconds(delays.p99Ms)}`,
    `${name}{quantile="1"} ${seconds(delays.maxMs)}`,
    `${name}_sum ${seconds(delays.sumMs)}`,
    `${name}_count ${delays.samples}`,
  ];
}

export const metricsRoutes: FastifyPluginAsync<MetricsDeps> = async (app, { monitor, token }) => {
  const expected = digest(`Bearer ${token}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!crypto.timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      return reply.status(401).send(errorBody(401, 'authorization: /metrics takes the bearer token set in QUIRE_METRICS_TOKEN'));
    }
    const report = monitor.read();
    const lines = [
      ...summaryLines('quire_event_loop_held_seconds', 'Time the event loop spent running between two 10 ms samples (waits for a CPU taken out), since the last read of /metrics.', report.held),
      ...summaryLines('quire_event_loop_delay_seconds', 'How late the 10 ms sampling timer ran (waits for a CPU included), since the last read of /metrics.', report.delay),
      ...summaryLines('quire_event_loop_core_wait_seconds', 'Time the event loop thread was ready to run but had no CPU between two 10 ms samples, since the last read of /metrics.', report.coreWait),
      '# HELP quire_event_loop_stalls_total Times the event loop was held over 100 ms (each is logged at warn level).',
      '# TYPE quire_event_loop_stalls_total counter',
      `quire_event_loop_stalls_total ${report.stalls}`,
      '',
    ];
    return reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8').header('cache-control', 'no-store').send(lines.join('\n'));
  });
};
