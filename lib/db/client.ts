import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { config } from '@/lib/config';
import { singleton } from '@/lib/singletons';

// The pg pool under each client: Prisma's adapter uses it, and so do the API's per-request reads
// that skip Prisma's client (lib/db/rows.ts, issue 16), on the same connections. It is kept on
// the client under a registry symbol: the web process loads this module twice (server.ts's API
// router and Next's bundle) and both must find the pool of the one shared client.
const POOL = Symbol.for('tron-invoicing.sqlPool');

export function createPrisma(connectionString: string): PrismaClient {
  const pool = new pg.Pool({ connectionString });
  // An idle connection that breaks (the server restarted) is dropped by pg and replaced at the
  // next query; without a listener the error would end the process.
  pool.on('error', () => undefined);
  // The pool's listener covers idle connections only: one it is closing (the pool ends it and
  // forgets it before the socket is closed) has none, and a server that stops at that moment
  // ("terminating connection due to administrator command") would end the process. Every
  // connection gets its own; a query in flight still rejects with the error.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  Object.defineProperty(client, POOL, { value: pool });
  return client;
}

/** The pg pool of a client made by createPrisma (not of a transaction's client). */
export function sqlPool(prisma: PrismaClient): pg.Pool {
  const pool = (prisma as unknown as Record<symbol, pg.Pool | undefined>)[POOL];
  if (!pool) throw new Error('sqlPool: not a client made by createPrisma (a transaction client has no pool of its own)');
  return pool;
}

/** The process's client (lib/singletons.ts: one for every copy of lib/ in the process). */
export function db(): PrismaClient {
  return singleton('db', () => createPrisma(config().DATABASE_URL));
}

export type { PrismaClient };
