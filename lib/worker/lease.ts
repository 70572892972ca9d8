import { execute, queryRows, Sql, sql } from '@/lib/db/sql';
import type { WorkerContext } from './context';
import { workerWakeup } from './wake';

/** The tables whose rows a worker claims: payments (and top-ups) in `transactions`, payouts in `invoices`. */
export type LeasedTable = 'transactions' | 'invoices';

/**
 * Claims one due row no other worker holds: `lease_owner`/`lease_until` set in
 * one UPDATE over a `FOR UPDATE SKIP LOCKED` pick, so two workers never claim
 * the same row and a crashed worker's claim runs out after LEASE_SECONDS.
 * `due` is the table's own condition (a trusted SQL fragment).
 */
export async function claimOne(ctx: WorkerContext, table: LeasedTable, due: Sql): Promise<number | null> {
  const t = Sql.raw(`"${table}"`);
  const rows = await queryRows<{ id: number }>(ctx.prisma, sql`
    UPDATE ${t} SET lease_owner = ${ctx.owner}, lease_until = now() + make_interval(secs => ${ctx.settings.LEASE_SECONDS})
    WHERE id = (
      SELECT id FROM ${t}
      WHERE (${due}) AND (lease_until IS NULL OR lease_until < now())
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id`);
  return rows[0]?.id ?? null;
}

/** Keeps a long step's claim alive. */
export async function extendLease(ctx: WorkerContext, table: LeasedTable, id: number): Promise<void> {
  const t = Sql.raw(`"${table}"`);
  await execute(ctx.prisma, sql`UPDATE ${t} SET lease_until = now() + make_interval(secs => ${ctx.settings.LEASE_SECONDS}) WHERE id = ${id} AND lease_owner = ${ctx.owner}`);
}

/** Releases a claim; the row is due again after `delayMs` (a poll interval, or a backoff). */
async function releaseLease(ctx: WorkerContext, table: LeasedTable, id: number, delayMs: number): Promise<void> {
  const t = Sql.raw(`"${table}"`);
  await execute(ctx.prisma, sql`UPDATE ${t} SET lease_owner = NULL, lease_until = now() + make_interval(secs => ${delayMs / 1000}) WHERE id = ${id} AND lease_owner = ${ctx.owner}`);
}

/**
 * Claims due rows one at a time and runs `step` on each, releasing each claim
 * afterwards (after `step`'s returned delay, default a poll interval, so a waiting row does not spin).
 */
export async function workThrough(
  ctx: WorkerContext,
  table: LeasedTable,
  due: Sql,
  max: number,
  step: (id: number) => Promise<number | void>,
): Promise<number> {
  let done = 0;
  for (; done < max; done++) {
    const id = await claimOne(ctx, table, due);
    if (id === null) break;
    let delayMs = ctx.settings.WORKER_POLL_MS;
    try {
      delayMs = (await step(id)) ?? delayMs;
    } finally {
      await releaseLease(ctx, table, id, delayMs);
      // Due again then: its job is woken for it, however long it sleeps when idle (lib/worker/wake.ts).
      workerWakeup().after(delayMs);
    }
  }
  return done;
}
