import type { ChainBlock, Head } from '@/lib/chain/types';
import { execute, queryRows, sql, type PrismaRaw } from '@/lib/db/sql';
import { AWAITED_MARK, HEAD_CURSOR, SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import type { WorkerContext } from '@/lib/worker/context';
import { chainRefOf, headOf, rowsFor, type BlockTransfer, type ScanResult } from './scan';

const MAX_BLOCKS = 100;

/** A step of the head scanner: what it did, and the newest block it read (null: none), by which the job paces its next read. */
export interface HeadScanResult extends ScanResult {
  head: Head | null;
}

/**
 * Reads the blocks above the solidified head once (issue 24) and records every payment to an
 * invoice address in them as a PAYMENT row that is not final yet (`solidified` false, with the
 * block it is in): the payments job screens and forwards it at once, each send bound to its
 * block, and the scanner of solidified blocks (scan.ts) books it when its block is final. Nothing
 * else is recorded from the head: top-ups of payouts and of merchants' wallets wait for finality.
 *
 * A reorganisation is seen when the next block's parent is not the block the cursor holds: the
 * whole unsolidified window is then read again, and a payment seen in a block the chain no
 * longer holds is unseen again (no block) or moved to the block it is in now.
 */
export async function scanHead(ctx: WorkerContext): Promise<HeadScanResult> {
  const NOTHING: HeadScanResult = { blocks: 0, recorded: 0, more: false, head: null };
  const { prisma, chain } = ctx;
  const [solid, cursor] = await Promise.all([
    prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR } }),
    prisma.chainCursor.findUnique({ where: { name: HEAD_CURSOR } }),
  ]);
  // The scanner of solidified blocks starts first: it books the gas wallet's opening balance with its cursor.
  if (!solid) return NOTHING;
  const following = cursor !== null && cursor.blockNumber > solid.blockNumber && cursor.blockId !== null;
  const next = following ? cursor.blockNumber + 1 : solid.blockNumber + 1;
  // The blocks after the cursor, as many as there are: no request for the head first (issue 37: the
  // head and the blocks were two requests a block). None: the next block is not made yet.
  let blocks = await chain.getBlocks(next, next + MAX_BLOCKS - 1);
  if (blocks.length === 0) return NOTHING;
  let reread = !following;
  if (following && blocks[0]!.parentId !== cursor.blockId) {
    reread = true;
    // The block the cursor holds is not on the chain any more: read the whole window again.
    console.warn(`head scan: block ${cursor.blockNumber} (${cursor.blockId}) was replaced by a reorganisation; reading from block ${solid.blockNumber + 1} again`);
    blocks = await chain.getBlocks(solid.blockNumber + 1, solid.blockNumber + MAX_BLOCKS);
    if (blocks.length === 0) return NOTHING;
  }
  const last = blocks.at(-1)!;
  // The newest block read is the head, unless the range was full (then there may be more: read again at once).
  const head = headOf(last);
  const more = blocks.length === MAX_BLOCKS;
  if (!contiguous(blocks)) return { ...NOTHING, head }; // the node reorganised while it answered: next round
  // Our sends first: a crash before the cursor moves reads these blocks again.
  const landed = await markSends(ctx.prisma, blocks, reread);
  const recorded = await record(ctx, blocks);
  return { blocks: blocks.length, recorded: Math.max(recorded, landed > 0 ? 1 : 0), more, head };
}

/** Each block's parent is the block before it. */
const contiguous = (blocks: ChainBlock[]) => blocks.every((b, i) => i === 0 || b.parentId === blocks[i - 1]!.id);

/**
 * Records the blocks' payments; returns how many payments it recorded or moved, or 1 for top-ups it
 * only marked (0 when only the cursor moved): either is work for another job (the job wakes them).
 */
async function record(ctx: WorkerContext, blocks: ChainBlock[]): Promise<number> {
  const last = blocks.at(-1)!;
  const cursor = { blockNumber: last.number, blockId: last.id, blockTime: new Date(last.timestamp) };
  const transfers: BlockTransfer[] = blocks.flatMap((b) => b.transfers.filter((t) => t.success).map((t) => ({ ...t, blockId: b.id })));
  // Most blocks hold no payment of ours and no height we recorded one at: then only the cursor moves,
  // without a transaction (every block, every few hundred ms: it must cost next to nothing).
  const [candidates, recordedThere] = await Promise.all([
    rowsFor(ctx.prisma, transfers),
    ctx.prisma.transaction.count({ where: { solidified: false, type: 'PAYMENT', blockNumber: { gte: blocks[0]!.number, lte: last.number } } }),
  ]);
  // A top-up (of a payout, of a merchant's wallet) is recorded only once final, by the scanner of solidified
  // blocks: marked, so that scanner reads once a block until it is past it (issue 37; scan.ts, finalityAwaited).
  const topUpAt = candidates.filter((r) => r.type !== 'PAYMENT').reduce((n, r) => Math.max(n, r.blockNumber ?? -1), -1);
  if (topUpAt >= 0) await markAwaited(ctx.prisma, topUpAt);
  const marked = topUpAt >= 0 ? 1 : 0;
  if (!candidates.some((r) => r.type === 'PAYMENT') && recordedThere === 0) {
    await ctx.prisma.chainCursor.upsert({ where: { name: HEAD_CURSOR }, create: { name: HEAD_CURSOR, ...cursor }, update: cursor });
    return marked;
  }
  const recorded = await ctx.prisma.$transaction(async (tx) => {
    // The solidified scanner's cursor, held for this transaction: a block it has booked (or books
    // meanwhile) is its own, so a payment is never recorded unfinal in a block already final.
    const [solid] = await queryRows<{ block_number: number }>(tx, sql`SELECT block_number FROM chain_cursors WHERE name = ${SOLIDIFIED_CURSOR} FOR SHARE`);
    const window = blocks.filter((b) => b.number > (solid?.block_number ?? Infinity));
    if (window.length === 0) return 0;
    const inWindow = transfers.filter((t) => t.blockNumber >= window[0]!.number);
    const rows = (await rowsFor(tx, inWindow))
      .filter((r) => r.type === 'PAYMENT')
      .map((r) => {
        const t = inWindow.find((x) => chainRefOf(x) === r.chainRef)!;
        return { ...r, solidified: false, expiresAt: t.expiration === undefined ? null : new Date(t.expiration) };
      });
    if (rows.length) await tx.transaction.createMany({ data: rows, skipDuplicates: true });
    // Seen before (in another block, or unseen since a reorganisation): it is in this one now.
    for (const r of rows) await tx.transaction.updateMany({ where: { chainRef: r.chainRef, solidified: false, paymentState: { not: 'DROPPED' } }, data: { blockNumber: r.blockNumber, blockId: r.blockId } });
    // Seen in one of these heights before, and not in the block there now: unseen again.
    await tx.transaction.updateMany({
      where: { solidified: false, type: 'PAYMENT', blockNumber: { gte: window[0]!.number, lte: last.number }, chainRef: { notIn: rows.map((r) => r.chainRef) } },
      data: { blockNumber: null, blockId: null },
    });
    await tx.chainCursor.upsert({ where: { name: HEAD_CURSOR }, create: { name: HEAD_CURSOR, ...cursor }, update: cursor });
    return Math.max(1, rows.length);
  });
  return Math.max(recorded, marked);
}

/**
 * Marks our sends in flight that these blocks hold, executed, as in their block (number and id),
 * as a follow's look of the send would (lib/sends/steps.ts, advanceSend): the follow then asks the
 * node nothing of it until that block can be final, and a step waiting for its gas or its lending
 * to land has the block's id without reading the block (issue 37: a receipt and a block read a
 * send, before, some six requests of a paid USDT invoice). A send that failed in its block is left
 * to its follow, which reads what it burned. Where the window was read again (`reread`: the first
 * read, or after a reorganisation), a send marked at one of its heights (with a block id: seen
 * executed there, by this scanner or a follow) that no block there holds now is in no block again: what referenced its old block is dead, and what waits for it waits.
 * How many rows it changed: a send landed is work for the jobs that wait for it.
 */
async function markSends(prisma: PrismaRaw, blocks: ChainBlock[], reread: boolean): Promise<number> {
  const hashes = blocks.flatMap((b) => b.executed);
  const numbers = blocks.flatMap((b) => b.executed.map(() => b.number));
  const ids = blocks.flatMap((b) => b.executed.map(() => b.id));
  let changed = 0;
  if (hashes.length > 0) {
    changed += await execute(
      prisma,
      sql`UPDATE transactions t SET block_number = v.number, block_id = v.id
          FROM unnest(${hashes}::text[], ${numbers}::int[], ${ids}::text[]) AS v(hash, number, id)
          WHERE t.trn_hash = v.hash AND t.send_state IN ('SIGNED', 'BROADCAST') AND t.block_id IS DISTINCT FROM v.id`,
    );
  }
  if (reread) {
    changed += await execute(
      prisma,
      sql`UPDATE transactions SET block_number = NULL, block_id = NULL
          WHERE send_state IN ('SIGNED', 'BROADCAST') AND block_id IS NOT NULL AND block_number BETWEEN ${blocks[0]!.number} AND ${blocks.at(-1)!.number}
            AND NOT (trn_hash = ANY(${hashes}::text[]))`,
    );
  }
  return changed;
}

/** Marks `block` as holding something the scanner of solidified blocks alone records (lib/db/chainCursors.ts, AWAITED_MARK); the mark only moves up. */
async function markAwaited(prisma: PrismaRaw, block: number): Promise<void> {
  await execute(
    prisma,
    sql`INSERT INTO chain_cursors (name, block_number, updated_at) VALUES (${AWAITED_MARK}, ${block}, now())
        ON CONFLICT (name) DO UPDATE SET block_number = GREATEST(chain_cursors.block_number, EXCLUDED.block_number), updated_at = now()`,
  );
}
