import pg from 'pg';
import { backoffMs } from '@/lib/backoff';
import { WAKE_CHANNEL } from './wake';

/** Reconnecting after a lost connection: from a second, doubling to half a minute. */
const RECONNECT = { baseMs: 1_000, capMs: 30_000, jitter: 0.5 };

export interface Listener {
  stop(): Promise<void>;
}

/**
 * Listens on WAKE_CHANNEL (lib/worker/wake.ts) with a connection of its own and calls `onWork` for
 * each announcement: work the web or a script made (a held payment released, a payout's return
 * asked for, a webhook sent again) is started at once, not at the jobs' next idle round. A lost
 * connection is made again with backoff, and `onWork` is called once it is back, for what was
 * announced meanwhile; until then the jobs' idle rounds find the work.
 */
export function listenForWork(databaseUrl: string, onWork: () => void): Listener {
  let client: pg.Client | undefined;
  let stopped = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    const lost = (err?: Error) => {
      if (client !== c) return;
      client = undefined;
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      if (stopped) return;
      const wait = backoffMs(RECONNECT, failures++);
      console.error(`worker: listening for work on ${WAKE_CHANNEL} stopped (${err?.message ?? 'connection ended'}); again in ${wait} ms`);
      retry = setTimeout(() => void connect(), wait);
    };
    client = c;
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', () => onWork());
    try {
      await c.connect();
      await c.query(`LISTEN ${WAKE_CHANNEL}`);
      failures = 0;
      onWork();
    } catch (err) {
      lost(err as Error);
    }
  };
  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
