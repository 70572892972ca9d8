import { randomUUID } from 'node:crypto';
import type { ChainBlock, Head, Transfer } from '@/lib/chain/types';
import { Prisma, type InvoiceType, type Transaction } from '@/lib/generated/prisma/client';
import { AWAITED_MARK, HEAD_CURSOR, SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import { queryRows, sql, type PrismaRaw } from '@/lib/db/sql';
import { bookIncoming } from '@/lib/ledger/book';
import type { WorkerContext } from '@/lib/worker/context';

/** The cursor of the solidified blocks scanned (the head scanner's is lib/payments/headScan.ts). */

/** A transfer's one name: the transaction and, within it, the USDT event, the internal TRX transfer (`itx<i>`) or the TRX transfer itself. */
export const chainRefOf = (t: Pick<Transfer, 'txId' | 'logIndex' | 'internalIndex'>) => `${t.txId}:${t.internalIndex !== undefined ? `itx${t.internalIndex}` : (t.logIndex ?? 'trx')}`;

/** A transfer with the id of the block it is in. */
export type BlockTransfer = Transfer & { blockId: string };

/**
 * Blocks read, payments or top-ups recorded (new, or seen unfinal before and final now) in them,
 * and whether more blocks were there to read than one step reads: only then does the job step
 * again at once. A step that caught up sleeps its poll: stepping again at once would only ask the
 * node and the database for a block that is not there yet (issue 41: a tenth of an idle worker's
 * statements and node requests).
 */
export interface ScanResult {
  blocks: number;
  recorded: number;
  more: boolean;
}
const NOTHING: ScanResult = { blocks: 0, recorded: 0, more: false };

/** The block the solidified cursor stands at, as a step of the scanner left it. */
export interface CursorAt {
  blockNumber: number;
}

/**
 * A step of the solidified scanner: what it did, where it left the cursor (null: unknown, read it
 * next time), and the newest solidified block it read (null: none), by which the job paces its next
 * read (lib/chain/pace.ts).
 */
export interface SolidifiedScanResult extends ScanResult {
  cursor: CursorAt | null;
  head: Head | null;
}

/**
 * Scans the next confirmed blocks once: every transfer to an invoice address
 * becomes a PAYMENT row, every transfer to a merchant's top-up or activation
 * wallet a TOPUP row. Addresses are matched with one indexed lookup per batch,
 * so the cost does not grow with the number of open invoices. The rows and the
 * cursor move in one DB transaction, and chain_ref is unique, so a crash or a
 * second worker never records a transfer twice.
 */
export async function scanNextBlocks(ctx: WorkerContext, known: CursorAt | null = null): Promise<SolidifiedScanResult> {
  const { prisma, settings } = ctx;
  // Where the last step left the cursor, if the caller kept it: not read again (issue 41: once
  // every SCAN_POLL_MS). Kept wrong (another worker, or an operator's rescan, moved it), the
  // optimistic update below finds no row, and the next step reads it.
  let cursor = known ? { blockNumber: known.blockNumber } : await prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR } });
  if (!cursor) {
    // Without an explicit start block, the scan starts right after the solidified block whose state
    // the gas wallet's opening balance was read from, and that balance is booked with the cursor:
    // the ledger then holds what the wallet held before the scanner's first block, whenever it was
    // funded, and a transfer not yet final at that moment is booked once, by the scan.
    const opening = settings.SCAN_START_BLOCK === undefined ? await openingBalances(ctx) : null;
    const start = settings.SCAN_START_BLOCK ?? opening!.start;
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.chainCursor.createMany({ data: [{ name: SOLIDIFIED_CURSOR, blockNumber: start - 1 }], skipDuplicates: true });
      if (count !== 1 || !opening) return;
      const reason = `opening balance before block ${start}`;
      const rows = (['TRX', 'USDT'] as const).filter((c) => opening.units[c] > 0n);
      if (rows.length) await tx.ledgerEntry.createMany({ data: rows.map((c) => ({ address: ctx.gasWallet.address, currency: c, kind: 'OTHER_IN' as const, deltaUnits: opening.units[c], units: opening.units[c], reason })) });
      // TRX the wallet had already staked (the energy pool, docs/energy.md) is in its opening and out of its balance.
      if (opening.stakedSun > 0n) {
        await tx.ledgerEntry.createMany({
          data: [
            { address: ctx.gasWallet.address, currency: 'TRX', kind: 'OTHER_IN', deltaUnits: opening.stakedSun, units: opening.stakedSun, reason: `opening stake before block ${start}` },
            { address: ctx.gasWallet.address, currency: 'TRX', kind: 'STAKE', deltaUnits: -opening.stakedSun, units: opening.stakedSun, reason: `opening stake before block ${start}` },
          ],
        });
      }
    });
    cursor = await prisma.chainCursor.findUniqueOrThrow({ where: { name: SOLIDIFIED_CURSOR } });
  }
  const from = cursor.blockNumber + 1;
  const at = { blockNumber: cursor.blockNumber };
  const read = await nextSolidifiedBlocks(ctx, from);
  const { blocks, head } = read;
  const last = blocks.at(-1);
  if (!last) return { ...NOTHING, cursor: at, head };
  const lastBlock = last.number;
  const lastBlockTime = last.timestamp;
  const transfers: BlockTransfer[] = blocks.flatMap((b) => b.transfers.map((t) => ({ ...t, blockId: b.id })));

  const moved = await prisma.$transaction(async (tx) => {
    // Optimistic lock: if another worker advanced the cursor, this batch is theirs.
    const { count } = await tx.chainCursor.updateMany({
      where: { name: SOLIDIFIED_CURSOR, blockNumber: cursor.blockNumber },
      data: { blockNumber: lastBlock, blockTime: lastBlockTime === null ? null : new Date(lastBlockTime) },
    });
    if (count === 0) return null;
    const landed = transfers.filter((t) => t.success);
    const created = await tx.transaction.createManyAndReturn({ data: await rowsFor(tx, landed), skipDuplicates: true });
    // Payments seen earlier in the head chain (lib/payments/headScan.ts) are final now, booked like new ones.
    const finalized = await finalizeSeen(tx, landed, from, lastBlock);
    // Payments, payout top-ups and merchants' wallet top-ups arrive at service addresses: the ledger's first rows (lib/ledger).
    await bookIncoming(tx, [...created, ...finalized]);
    await bookGasWallet(ctx, tx, landed);
    // A receipt kept is work too: the send's follow books it (lib/worker/wake.ts).
    return created.length + finalized.length + (await keepFinalReceipts(tx, blocks));
  });
  // A batch another worker took (or the cursor was moved): read it again, at once.
  if (moved === null) return { ...NOTHING, more: true, cursor: null, head };
  return { blocks: lastBlock - from + 1, recorded: moved, more: read.more, cursor: { blockNumber: lastBlock }, head };
}

/**
 * Keeps on their rows the receipts of our sends in flight that these final blocks hold, as the scan read them with the
 * blocks (issue 37): the send's follow books it from its row (lib/sends/steps.ts) instead of asking the node for its
 * receipt once its block is final, about three requests of a paid USDT invoice on mainnet, where every block's receipts
 * are read for its USDT transfers. Only where the block's receipts were read (a block with contract calls: on the
 * devnet, a USDT forward's); elsewhere, and for a send another worker's scan has not kept, the follow asks as before.
 * In the cursor's transaction: a follow that sees the cursor past the send's block finds the receipt on its row.
 */
async function keepFinalReceipts(tx: Prisma.TransactionClient, blocks: ChainBlock[]): Promise<number> {
  if (!blocks.some((b) => b.receipts.length > 0)) return 0;
  const inFlight = await tx.transaction.findMany({ where: { sendState: { in: ['SIGNED', 'BROADCAST'] }, finalReceipt: { equals: Prisma.DbNull } }, select: { id: true, trnHash: true } });
  if (!inFlight.length) return 0;
  const ours = new Map(inFlight.map((r) => [r.trnHash, r.id]));
  let kept = 0;
  for (const receipt of blocks.flatMap((b) => b.receipts.filter((r) => ours.has(r.id)))) {
    const { count } = await tx.transaction.updateMany({ where: { id: ours.get(receipt.id)!, sendState: { in: ['SIGNED', 'BROADCAST'] } }, data: { finalReceipt: receipt as Prisma.InputJsonObject } });
    kept += count;
  }
  return kept;
}

/** A block read as the head it was when read: by the newest one, a scanner paces its next read (lib/chain/pace.ts). */
export function headOf(block: ChainBlock): Head {
  return { number: block.number, timestamp: block.timestamp };
}

/**
 * The solidified blocks from `from` on, at most SCAN_BATCH_BLOCKS; `more`: there may be more now;
 * `head`: the newest solidified block the read saw (null: none), by which the job paces its next read.
 * With SCAN_EXTRA_CONFIRMATIONS 0 (the default), one request: the node's solidity interface answers
 * the blocks after the cursor up to its solidified head, so the head need not be asked first
 * (issue 37: the solidified head and the blocks were two requests a block). With extra
 * confirmations, the solidified head is read first, and the blocks up to that many below it.
 */
async function nextSolidifiedBlocks(ctx: WorkerContext, from: number): Promise<{ blocks: ChainBlock[]; more: boolean; head: Head | null }> {
  const { chain, settings } = ctx;
  const batch = settings.SCAN_BATCH_BLOCKS;
  if (settings.SCAN_EXTRA_CONFIRMATIONS === 0) {
    const blocks = await chain.getBlocks(from, from + batch - 1, 'solidified');
    const last = blocks.at(-1);
    return { blocks, more: blocks.length === batch, head: last ? headOf(last) : null };
  }
  const head = await chain.getConfirmedHead();
  const confirmed = head.number - settings.SCAN_EXTRA_CONFIRMATIONS;
  const to = Math.min(confirmed, from + batch - 1);
  const blocks = from > to ? [] : await chain.getBlocks(from, to);
  const last = blocks.at(-1);
  return { blocks, more: last !== undefined && last.number < confirmed, head };
}

/**
 * The gas wallet's balances as of a solidified block, and that block: the solidified head is read
 * before and after the balances, and the read is repeated until it did not move in between. Not
 * the head's state: a node shows broadcast transfers there before they are in any block, so a
 * transfer pending at this moment would be in the opening balance and, once its block is scanned,
 * booked a second time.
 */
async function openingBalances(ctx: WorkerContext): Promise<{ start: number; units: Record<'TRX' | 'USDT', bigint>; stakedSun: bigint }> {
  const address = ctx.gasWallet.address;
  for (let i = 0; ; i++) {
    const before = await ctx.chain.getConfirmedBlockNumber();
    const [trx, usdt, stake] = await Promise.all([ctx.chain.getTrxBalance(address, 'solidified'), ctx.chain.getUsdtBalance(address, 'solidified'), ctx.chain.getStake(address)]);
    const stakedSun = stake.frozenSun.ENERGY + stake.frozenSun.BANDWIDTH + stake.delegatedSun.ENERGY + stake.delegatedSun.BANDWIDTH + stake.unfreezingSun;
    if ((await ctx.chain.getConfirmedBlockNumber()) === before) return { start: before + 1, units: { TRX: trx, USDT: usdt }, stakedSun };
    if (i >= 20) throw new Error('the solidified head kept moving while the gas wallet opening balance was read');
  }
}

/** How recently the head scanner must have moved its cursor for the scanner of solidified blocks to count on it. */
const HEAD_SCANNER_FRESH_MS = 10_000;

/**
 * From which block something waits for the solidified blocks to be read (issue 37), or null when
 * nothing does: while nothing does, the scanner reads them once every SCAN_IDLE_BLOCKS blocks
 * (worker/scan.ts), not once a block; while what waits is in a block not yet due to be final, it reads
 * once that block is due (at most SCAN_IDLE_BLOCKS blocks on), not each block before it. 0: the next
 * block, whichever it is. One database read, made by the scanner at each of its rounds while it
 * waits; something waits
 * - from its block, for a payment seen at the head and not final yet (its booking, statuses and
 *   webhooks wait for it); from the next, for a payment unseen since a reorganisation (this scanner
 *   may find it);
 * - from its block, for a top-up (of a payout, of a merchant's wallet) that the head scanner saw and
 *   only this scanner records, in a block the cursor has not passed (AWAITED_MARK,
 *   lib/payments/headScan.ts);
 * - from its block, for a send of ours out (SIGNED, BROADCAST) in a block: its follow reads the node
 *   once this scanner has read that block (lookDue, lib/sends/steps.ts); from the next for one in no
 *   block known once its expiration has passed by the clock: its death, if it dies, is proven by the
 *   solidified blocks past its expiration, and no block before that can prove it. Before it expires
 *   nothing is awaited for it: the head scanner and its follow find the block it lands in (then it
 *   waits from that block). Until 2026-12-02 every send read once a block from its broadcast until
 *   its follow saw its block, two or three reads a send that proved nothing (issue 37);
 * - from the next, for an open invoice's or payout's deadline passed by the clock and not yet by the
 *   scanned chain time it is judged by (`scannedUntil`): its TIMEOUT, UNDERPAID or payout's end waits
 *   for it;
 * - from the next, while the head scanner is not reading ahead of this one (off, stopped, behind, or
 *   its cursor not moved for HEAD_SCANNER_FRESH_MS): then this scanner may be the one to see a
 *   payment first.
 * On mainnet a block is final 19 blocks after it is made: read once a block from the payment on,
 * the scanner asked the node about 20 times for each payment's finality, every one of them but the
 * last for blocks that held nothing awaited.
 */
export async function finalityAwaited(prisma: PrismaRaw): Promise<number | null> {
  const [row] = await queryRows<{ from: number | null }>(
    prisma,
    sql`SELECT LEAST(
      (SELECT min(COALESCE(block_number, 0)) FROM transactions WHERE NOT solidified AND type = 'PAYMENT' AND payment_state <> 'DROPPED'),
      (SELECT min(COALESCE(block_number, 0)) FROM transactions WHERE send_state IN ('SIGNED', 'BROADCAST')
        AND (block_number IS NOT NULL OR expires_at IS NULL OR expires_at <= now())),
      CASE WHEN NOT EXISTS (
        SELECT 1 FROM chain_cursors m JOIN chain_cursors h ON h.name = ${HEAD_CURSOR}
        WHERE m.name = ${SOLIDIFIED_CURSOR} AND h.block_number > m.block_number AND h.updated_at > now() - make_interval(secs => ${HEAD_SCANNER_FRESH_MS / 1000})
      ) THEN 0 END,
      (SELECT a.block_number FROM chain_cursors m JOIN chain_cursors a ON a.name = ${AWAITED_MARK}
        WHERE m.name = ${SOLIDIFIED_CURSOR} AND a.block_number > m.block_number),
      CASE WHEN EXISTS (
        SELECT 1 FROM invoices i JOIN chain_cursors m ON m.name = ${SOLIDIFIED_CURSOR}
        WHERE i.status = 'ACTIVE' AND i.expired_at <= now() AND (m.block_time IS NULL OR i.expired_at >= m.block_time)
      ) THEN 0 END
    ) AS "from"`,
  );
  // No answer (no row): as if the next block were awaited.
  return row ? row.from : 0;
}

/**
 * The chain time every payment up to which is recorded: the time of the last
 * scanned block (the epoch before the first scan). Deadlines (invoice expiry,
 * underpayment, payout top-up) are judged by it, so a payment made before a
 * deadline, but final and scanned after it, still counts as on time.
 */
export async function scannedUntil(prisma: Pick<Prisma.TransactionClient, 'chainCursor'>): Promise<Date> {
  const cursor = await prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR }, select: { blockTime: true } });
  return cursor?.blockTime ?? new Date(0);
}

/**
 * The gas wallet is a service address too: what is paid into it (its funding) and what
 * leaves it other than our own sends (an operator's sweep) are recorded, so its
 * balance reconciles. Our own gas sends are booked when they confirm.
 */
async function bookGasWallet(ctx: WorkerContext, tx: Prisma.TransactionClient, transfers: Transfer[]): Promise<void> {
  const gasWallet = ctx.gasWallet.address;
  const touching = transfers.filter((t) => t.to === gasWallet || t.from === gasWallet);
  if (touching.length === 0) return;
  const ours = new Set((await tx.transaction.findMany({ where: { trnHash: { in: touching.map((t) => t.txId) }, sendState: { not: null } }, select: { trnHash: true } })).map((r) => r.trnHash));
  const entries: Prisma.LedgerEntryCreateManyInput[] = [];
  for (const t of touching.filter((x) => !ours.has(x.txId))) {
    const reason = chainRefOf(t);
    if (t.to === gasWallet) {
      entries.push({ address: gasWallet, currency: t.token, kind: 'OTHER_IN', deltaUnits: t.amount, units: t.amount, reason });
      continue;
    }
    entries.push({ address: gasWallet, currency: t.token, kind: 'SWEEP', deltaUnits: -t.amount, units: t.amount, reason });
    // What the network burned for it (rare: an operator moving funds), so the wallet still reconciles.
    const { feeSun } = await ctx.chain.getTransactionStatus(t.txId);
    if (feeSun > 0n) entries.push({ address: gasWallet, currency: 'TRX', kind: 'NETWORK_COST', deltaUnits: -feeSun, units: feeSun, reason });
  }
  if (entries.length) await tx.ledgerEntry.createMany({ data: entries });
}

/**
 * Payments recorded from the head chain before finality (issue 24) whose transfers are in these
 * solidified blocks: now final (`solidified`), returned to be booked. Those seen in one of these
 * blocks and not in it now were in a block a reorganisation replaced: unseen again (no block) until
 * the head scanner or this scan finds them in a later one, or they are dropped (lib/payments/process.ts).
 */
async function finalizeSeen(tx: Prisma.TransactionClient, transfers: BlockTransfer[], from: number, to: number): Promise<Transaction[]> {
  // Few rows: the payments of the last minute or so, and those unseen since a reorganisation.
  const pending = await tx.transaction.findMany({ where: { solidified: false, type: 'PAYMENT', paymentState: { not: 'DROPPED' } }, select: { id: true, chainRef: true, blockNumber: true } });
  if (pending.length === 0) return [];
  const byRef = new Map(transfers.map((t) => [chainRefOf(t), t]));
  const finalized: Transaction[] = [];
  for (const p of pending) {
    const t = byRef.get(p.chainRef);
    if (!t) continue;
    const [row] = await tx.transaction.updateManyAndReturn({ where: { id: p.id, solidified: false }, data: { solidified: true, blockNumber: t.blockNumber, blockId: t.blockId } });
    if (row) finalized.push(row);
  }
  const gone = pending.filter((p) => !byRef.has(p.chainRef) && p.blockNumber !== null && p.blockNumber >= from && p.blockNumber <= to).map((p) => p.id);
  if (gone.length) await tx.transaction.updateMany({ where: { id: { in: gone }, solidified: false }, data: { blockNumber: null, blockId: null } });
  return finalized;
}

/**
 * The rows the transfers make: a PAYMENT to an invoice (a TOPUP to a mass payout's address), a
 * TOPUP to a merchant's top-up or activation wallet; nothing for our own gas sends.
 */
export async function rowsFor(tx: Prisma.TransactionClient, transfers: BlockTransfer[]): Promise<Prisma.TransactionCreateManyInput[]> {
  if (transfers.length === 0) return [];
  const recipients = [...new Set(transfers.map((t) => t.to))];
  // One array parameter, not one parameter a recipient: under ten times mainnet's traffic a block
  // has about 3,000 recipients, and Prisma's IN list of them cost 23-77 ms of CPU and 125-231 ms
  // of wall time for the two reads, against 14-22 and 64-70 ms this way (issue 37).
  const [invoices, merchants] = await Promise.all([
    queryRows<{ id: number; merchantId: number; address: string; type: InvoiceType }>(tx, sql`SELECT id, merchant_id AS "merchantId", address, type FROM invoices WHERE address = ANY(${recipients}::text[])`),
    queryRows<{ id: number; topupWalletAddress: string; activationWalletAddress: string }>(
      tx,
      sql`SELECT id, topup_wallet_address AS "topupWalletAddress", activation_wallet_address AS "activationWalletAddress" FROM merchants WHERE topup_wallet_address = ANY(${recipients}::text[]) OR activation_wallet_address = ANY(${recipients}::text[])`,
    ),
  ]);
  const invoiceByAddress = new Map(invoices.map((i) => [i.address, i]));
  const merchantByWallet = new Map(merchants.flatMap((m) => [[m.topupWalletAddress, m.id] as const, [m.activationWalletAddress, m.id] as const]));
  // Under mainnet traffic a block holds hundreds of transfers and almost never one to us (issue 37):
  // only those that reached one of our addresses are looked up by their transaction.
  const ourAddressHits = transfers.filter((t) => invoiceByAddress.has(t.to) || merchantByWallet.has(t.to));
  if (ourAddressHits.length === 0) return [];
  // Our own gas sends to an invoice address are not payments (the ledger books them when they
  // confirm). Any other send of ours that lands on an invoice address (a forward or payout whose
  // target is another invoice's address) is a payment to that invoice like any other (issue 13, case 8).
  const ours = await tx.transaction.findMany({ where: { trnHash: { in: [...new Set(ourAddressHits.map((t) => t.txId))] }, sendState: { not: null }, type: 'ACTIVATION' }, select: { trnHash: true } });
  const ourTx = new Set(ours.map((o) => o.trnHash));

  return ourAddressHits.flatMap((t): Prisma.TransactionCreateManyInput[] => {
    if (ourTx.has(t.txId)) return [];
    const base = { trnHash: t.txId, chainRef: chainRefOf(t), fromAddress: t.from, toAddress: t.to, amountUnits: t.amount, currency: t.token, blockNumber: t.blockNumber, blockId: t.blockId };
    const invoice = invoiceByAddress.get(t.to);
    if (invoice) {
      // A mass payout's top-up is handled by the payout flow, not forwarded.
      const payout = invoice.type === 'MULTIPLE_TRANSFER';
      return [{ ...base, merchantId: invoice.merchantId, invoiceId: invoice.id, type: payout ? 'TOPUP' : 'PAYMENT', paymentState: payout ? null : 'DETECTED', eventId: randomUUID() }];
    }
    const merchantId = merchantByWallet.get(t.to);
    return merchantId === undefined ? [] : [{ ...base, merchantId, type: 'TOPUP', paymentState: 'DETECTED', eventId: randomUUID() }];
  });
}
