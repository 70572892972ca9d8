import { randomUUID } from 'node:crypto';
import { format } from 'node:util';
import pino, { type Logger } from 'pino';

/** The header a request id comes in and goes out on (server.ts). */
export const REQUEST_ID_HEADER = 'x-request-id';
/** Ids a client may choose: short, printable, no spaces (anything else gets a fresh id). */
const CLIENT_REQUEST_ID = /^[\w.:@/-]{1,128}$/;

/**
 * A request's id: the caller's (a proxy's, a merchant client's) when it is sane, else a fresh one.
 * The one rule, applied by server.ts to every request.
 */
export function requestIdFrom(given: string | string[] | null | undefined): string {
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One JSON object per line on stdout (pino), for web and worker alike:
 * `{"level":30,"time":...,"service":"web","msg":...}` plus context such as
 * `reqId`. The level is LOG_LEVEL (the web section of lib/config.ts, default info). Secrets are never logged:
 * the Authorization and Cookie headers are not among the fields written.
 */
export function createLogger(service: 'web' | 'worker', level: string): Logger {
  return pino({ level, base: { service, pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * Routes console.* through the logger, so that what libraries and Next.js print
 * is JSON too (an Error argument keeps its stack in `err`).
 */
export function bridgeConsole(logger: Logger): void {
  const bridge = (level: 'info' | 'warn' | 'error' | 'debug') => (...args: unknown[]) => {
    const err = args.find((a): a is Error => a instanceof Error);
    if (err) logger[level]({ err }, format(...args.filter((a) => a !== err)));
    else logger[level](format(...args));
  };
  console.log = bridge('info');
  console.info = bridge('info');
  console.warn = bridge('warn');
  console.error = bridge('error');
  console.debug = bridge('debug');
}
