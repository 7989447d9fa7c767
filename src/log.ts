/**
 * The process's logger (pino, the one Fastify is built on). On a terminal the lines are for people (pino-pretty:
 * time, level, message); elsewhere, or with QUIRE_LOG_FORMAT=json, one JSON object per line for log collectors.
 */
import { pino, type Logger } from 'pino';
import type { Config } from '../config/index.js';

export type { Logger };

/** A logger writing to stdout (servers: `quire serve`, `quire worker`) or stderr (commands whose stdout is their answer). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const fd = to === 'stdout' ? 1 : 2;
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && (to === 'stdout' ? process.stdout : process.stderr).isTTY === true);
  if (!pretty) return pino({ level: config.logLevel }, pino.destination({ fd, sync: true }));
  return pino({
    level: config.logLevel,
    transport: { target: 'pino-pretty', options: { destination: fd, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true } },
  });
}

/** An error as a log field: its message, one line (the reason; the stack rarely helps the people reading logs). */
export function errorField(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
