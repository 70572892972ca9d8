import type { Chain } from '@/lib/chain/types';
import type { Currency, PrismaClient, SendPurpose, Transaction } from '@/lib/generated/prisma/client';
import { SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';

/**
 * What reconcile compares with the chain, and what the chain did that the books have not reached
 * yet (issue 35). The ledger books only what is final: an incoming transfer when the scanner's
 * cursor passes its block, a send of ours when the worker sees it final. So the books are judged
 * against each address's balance as of a final block, never the head's (which shows transfers not
 * final, and even pending ones in no block), plus what is final there and not booked yet: the
 * transfers to service addresses in final blocks the scanner has not read, and our sends final on
 * chain the worker has not booked (a payout's sends while its wave runs, a forward whose payment's
 * row is not final yet). Each is counted from the chain itself (blocks and receipts), not from how
 * the worker would book it.
 */

/** Sends whose amount arrives at another service address and is booked with the send (the scanner skips them). */
const ARRIVES_WITH_SEND: readonly SendPurpose[] = ['FORWARD_GAS', 'REFUND_GAS', 'PAYOUT_GAS', 'PAYOUT_RETURN_GAS', 'GAS_RETURN'];
/** How far behind the chain's final block the scanner may be for reconcile to read the blocks in between itself. */
const MAX_UNREAD_BLOCKS = 5_000;
const RANGE = 100;

export const balanceKey = (address: string, currency: Currency) => `${address}:${currency}`;

/** The books at one instant: read in one snapshot, before the chain, so nothing booked is newer than the chain state read after. */
export interface Books {
  /** Sum of the ledger's deltas per `address:currency`. */
  balances: Map<string, bigint>;
  /** The newest final block the scanner has booked; null before it started. */
  scannedTo: number | null;
  /** Our sends not booked yet (stored or out). */
  unbookedSends: Transaction[];
  /** Per address, the sum of the ledger's STAKE and UNSTAKE deltas (what left its balance for stake: negative). */
  stakeDeltas: Map<string, bigint>;
}

export async function readBooks(prisma: PrismaClient): Promise<Books> {
  return prisma.$transaction(
    async (tx) => {
      const sums = await tx.ledgerEntry.groupBy({ by: ['address', 'currency'], _sum: { deltaUnits: true } });
      const cursor = await tx.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR } });
      const unbookedSends = await tx.transaction.findMany({ where: { sendPurpose: { not: null }, sendState: { in: ['SIGNED', 'BROADCAST'] } }, orderBy: { id: 'asc' } });
      const stakes = await tx.ledgerEntry.groupBy({ by: ['address'], where: { kind: { in: ['STAKE', 'UNSTAKE'] } }, _sum: { deltaUnits: true } });
      return {
        balances: new Map(sums.map((s) => [balanceKey(s.address, s.currency), s._sum.deltaUnits ?? 0n])),
        scannedTo: cursor?.blockNumber ?? null,
        unbookedSends,
        stakeDeltas: new Map(stakes.map((s) => [s.address, s._sum.deltaUnits ?? 0n])),
      };
    },
    { isolationLevel: 'RepeatableRead' },
  );
}

/**
 * An address's balances as of a final block: the final head is read before and after, and the read is
 * repeated until it did not move. On a busy node with fast blocks it may move every time: then the
 * balances are those of some block in `from`..`to`, the same at each unless the address moved in
 * between (`movedWhileRead`).
 */
export async function finalBalances(chain: Chain, address: string): Promise<{ from: number; to: number; units: Record<Currency, bigint> }> {
  for (let attempt = 1; ; attempt++) {
    const from = await chain.getConfirmedBlockNumber();
    const [trx, usdt] = await Promise.all([chain.getTrxBalance(address, 'solidified'), chain.getUsdtBalance(address, 'solidified')]);
    const to = await chain.getConfirmedBlockNumber();
    if (to === from || attempt === 20) return { from, to, units: { TRX: trx, USDT: usdt } };
  }
}

/** Whether a movement at `address` lies after `from` and up to `to`: a balance read in between is of an unknown one of them. */
export const movedWhileRead = (movements: Movement[], address: string, from: number, to: number) => movements.some((m) => m.address === address && m.block > from && m.block <= to);

/** A change of an address's balance the books do not hold yet, in final block `block`. */
export interface Movement {
  address: string;
  currency: Currency;
  deltaUnits: bigint;
  block: number;
}

export interface Unbooked {
  movements: Movement[];
  /** Our sends final on chain, not booked yet. */
  sendsFinal: number;
  /** Transfers to service addresses in final blocks the scanner has not read yet. */
  transfersUnread: number;
  /** Set when the scanner is too far behind to read the blocks in between here. */
  tooFarBehind: string | null;
}

/**
 * What is final on chain up to block `upTo` and not in `books`. `scannerBooks` are the addresses whose
 * incoming transfers the scanner books (invoice addresses, merchants' wallets, the gas wallet).
 */
export async function unbookedUpTo(chain: Chain, prisma: PrismaClient, books: Books, upTo: number, scannerBooks: Set<string>): Promise<Unbooked> {
  const movements: Movement[] = [];
  const move = (address: string, currency: Currency, deltaUnits: bigint, block: number) => {
    if (deltaUnits !== 0n) movements.push({ address, currency, deltaUnits, block });
  };
  let sendsFinal = 0;
  for (const send of books.unbookedSends) {
    const status = await chain.getTransactionStatus(send.trnHash);
    // In a final block: `failed` in a block still burned its fee; pending (not final) and unknown changed no final balance.
    if (status.blockNumber === null || status.blockNumber > upTo || status.status === 'pending' || status.status === 'unknown') continue;
    sendsFinal++;
    const at = status.blockNumber;
    move(send.fromAddress, 'TRX', -status.feeSun, at);
    if (status.status !== 'confirmed') continue;
    move(send.fromAddress, 'TRX', status.withdrawnSun, at);
    if (send.type === 'STAKE') move(send.fromAddress, 'TRX', -(send.stakeSun ?? 0n), at);
    else {
      move(send.fromAddress, send.currency, -send.amountUnits, at);
      if (send.sendPurpose && ARRIVES_WITH_SEND.includes(send.sendPurpose)) move(send.toAddress, send.currency, send.amountUnits, at);
    }
  }

  let transfersUnread = 0;
  const from = (books.scannedTo ?? upTo) + 1;
  if (upTo - from + 1 > MAX_UNREAD_BLOCKS) {
    return { movements, sendsFinal, transfersUnread, tooFarBehind: `the scanner has booked the chain up to block ${books.scannedTo}, ${upTo - from + 1} final blocks behind: start the worker, let it catch up and run reconcile again` };
  }
  for (let start = from; start <= upTo; start += RANGE) {
    const end = Math.min(upTo, start + RANGE - 1);
    const { transfers, lastBlock } = await chain.getBlockRangeTransfers(start, end);
    if (lastBlock !== end) throw new Error(`the node returned final blocks ${start}..${lastBlock ?? 'none'} of ${start}..${end}`);
    const arriving = transfers.filter((t) => t.success && scannerBooks.has(t.to));
    if (arriving.length === 0) continue;
    // A gas send of ours arrives booked with the send (counted above while unbooked); any other transfer is the scanner's to book.
    const withSend = new Set(
      (await prisma.transaction.findMany({ where: { trnHash: { in: arriving.map((t) => t.txId) }, OR: [{ sendPurpose: { in: [...ARRIVES_WITH_SEND] } }, { type: 'ACTIVATION' }] }, select: { trnHash: true } })).map((r) => r.trnHash),
    );
    for (const t of arriving.filter((x) => !withSend.has(x.txId))) {
      transfersUnread++;
      move(t.to, t.token, t.amount, t.blockNumber);
    }
  }
  return { movements, sendsFinal, transfersUnread, tooFarBehind: null };
}
