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

/**
 * How long the database lets a session of ours sit in an open transaction with no statement (ms)
 * before it ends the session, rolling the transaction back. A process frozen inside a transaction
 * (SIGSTOP, a VM paused, a host cut off with its socket open) otherwise keeps its row locks for as
 * long as it is frozen: a worker frozen in its scan's transaction held the solidified cursor's row,
 * and the worker that took the scan over waited on it, so nothing became final anywhere. No
 * transaction of ours is idle that long while its process lives: Prisma ends its interactive
 * transactions after 5 s, and the raw ones (a listing's snapshot) run statements back to back.
 */
const IDLE_IN_TRANSACTION_MS = 30_000;

/**
 * Names for Prisma's statements, so each connection parses and plans a statement once and runs it
 * again by name (pg keeps the connection's prepared statements): PostgreSQL spent about a third of
 * its CPU on parsing and planning the same statements again at every poll (issue 41). A name
 * per distinct text, for data statements only (a DDL or session statement is run as sent), and
 * no more than STATEMENT_NAMES of them in a process: a text past those is run unnamed, so no
 * connection holds more prepared statements than that.
 */
const STATEMENT_NAMES = 500;
function statementName(query: { sql: string }): string {
  const statementNames = singleton('prismaStatementNames', () => new Map<string, string>());
  const known = statementNames.get(query.sql);
  if (known !== undefined) return known;
  // '' is no name to pg (lib/query.js tests `this.name`): the statement is sent unnamed.
  if (statementNames.size >= STATEMENT_NAMES || !/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(query.sql)) return '';
  const name = `prisma-${statementNames.size}`;
  statementNames.set(query.sql, name);
  return name;
}

export function createPrisma(connectionString: string): PrismaClient {
  const pool = new pg.Pool({ connectionString, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS });
  // An idle connection that breaks (the server restarted) is dropped by pg and replaced at the
  // next query; without a listener the error would end the process.
  pool.on('error', () => undefined);
  // The pool's listener covers idle connections only: one it is closing (the pool ends it and
  // forgets it before the socket is closed) has none, and a server that stops at that moment
  // ("terminating connection due to administrator command") would end the process. Every
  // connection gets its own; a query in flight still rejects with the error.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true, statementNameGenerator: statementName }) });
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
