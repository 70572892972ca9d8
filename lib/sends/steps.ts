import { backoffMs } from '@/lib/backoff';
import { isPermanentRefusal, TxRejectedError } from '@/lib/chain/errors';
import type { RefBlock, SignedTransfer, TransactionStatus } from '@/lib/chain/types';
import { scannedHeads, type ScannedHeads } from '@/lib/db/chainCursors';
import type { CostPayer, Prisma, SendPurpose, Transaction, TransactionType } from '@/lib/generated/prisma/client';
import { bookSendLanded, rentalPriceOf } from '@/lib/ledger/book';
import { withMargin } from '@/lib/money/fees';
import { changeMerchantBalance } from '@/lib/merchants/balance';
import { singleton } from '@/lib/singletons';
import type { Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';

export interface PlannedSend {
  type: TransactionType;
  from: string;
  to: string;
  amountUnits: bigint;
  currency: Currency;
  /** Who pays this send's network cost (docs/worker.md, "Fees and who pays what"). */
  costPayer: CostPayer;
  signed: SignedTransfer;
  /** Energy engine columns (docs/energy.md): what pays a USDT send's energy; what a pool operation lends or stakes. */
  energy?: Partial<Pick<Transaction, 'energySource' | 'energyUnits' | 'stakeSun' | 'resource'>>;
  /**
   * Costed with the creation of the recipient's account (a TRX forward that deducts its burn from
   * what it carries, a TRX payout target whose quote counted it): one such send per recipient is in
   * flight at a time (migration 0092), as only the first pays the creation; another is built again
   * once the account exists.
   */
  createsAccount?: boolean;
  /**
   * What the send deducts from the payment it spends (its anchor), recorded on the anchor in the
   * same database transaction as the send's row: a build whose send is not stored (another round
   * stored the attempt first, another send creates the account) records nothing.
   */
  deduction?: Deduction;
}

/** The figures of what a send deducts from its payment (migration 0057): reconcile recomputes the kept cost from them. */
export interface Deduction {
  costSun: bigint;
  /** A USDT deduction's rates, at which its TRX cost was converted. */
  trxRateUsd?: string;
  usdtRateUsd?: string;
}

/** One step of a payment or payout: its purpose, and for payout targets the target index, for gas the attempt it funds. */
export interface SendStep {
  purpose: SendPurpose;
  index?: number;
  /**
   * The service address whose balance this step spends or tops up. While another payment's
   * send from it (or gas to it) is in flight, no new attempt is built: the balance it would be
   * planned on is about to change (one send in flight per address, issue 13, case 1).
   */
  address?: string;
  /**
   * Where the step sends now, when that can change between attempts (a payment released to another
   * address, a payout returned elsewhere): an attempt the node refused for good (issue 34) ends the
   * step only while it still sends to the address refused. Left out, any such refusal ends it.
   */
  to?: string;
}

export type SendOutcome =
  | { state: 'confirmed'; row: Transaction }
  /**
   * In a block of the head chain, executed, not final yet: only for a step asked with `landed`
   * (a send another send waits for: gas, a lending; issue 24). The send that follows it references
   * its block, so it can never execute on a chain without it; it is booked when final (`followOut`).
   */
  | { state: 'landed'; row: Transaction }
  /** The planner decided nothing needs sending (and, where it judged so, why: not worth it). */
  | { state: 'skipped'; reason?: string }
  | { state: 'pending' }
  /**
   * The step cannot be made: its attempts are used up, or (`refused`) the node refused it for good
   * (a permanent validation error, e.g. TRX to a smart contract; issue 34): no attempt to the same
   * address can ever be accepted, so the caller leaves the money where the merchant can act on it.
   */
  | { state: 'exhausted'; error: string; refused?: boolean };

/**
 * What a step's sends are made for: a payment (or a payout's top-up). A payment seen before its
 * block is final (`solidified` false, issue 24) binds every send made for it to that block.
 */
export type Anchor = Pick<Transaction, 'id' | 'merchantId' | 'invoiceId' | 'eventId' | 'operatorRetries' | 'solidified' | 'blockNumber' | 'blockId'>;

export interface SendOptions {
  /**
   * A confirmed send does not end the step: the planner is asked again and decides (a gas step:
   * the address must hold what the send it funds needs now, so a price that rose after the gas
   * arrived gets a top-up for the same attempt, issue 22, case 2).
   */
  topUp?: boolean;
  /** What the step's send must be able to burn now, from a fresh estimate (sun): judges an OUT_OF_ENERGY failure (see `exhausted`). */
  burnNowSun?: () => Promise<bigint>;
  /**
   * Asked before a stored send is first broadcast: a reason not to broadcast it now, or null. A send
   * kept back is never rebuilt until proven dead (it may have been broadcast by a worker that died
   * before recording it); the caller fixes what it waits for (gas) meanwhile.
   */
  beforeBroadcast?: (row: Transaction) => Promise<string | null>;
  /**
   * The step is done once its send is in a head block and executed (`landed`), not only once final:
   * for a send the next one waits for (gas, a lending), which then references its block (issue 24).
   */
  landed?: boolean;
}

const STEP_NAMES: Record<SendPurpose, string> = {
  FORWARD: 'forward',
  FORWARD_GAS: 'gas',
  REFUND: 'refund',
  REFUND_GAS: 'refundgas',
  PAYOUT_TARGET: 'target',
  PAYOUT_GAS: 'payoutgas',
  GAS_RETURN: 'gasreturn',
  PAYOUT_RETURN: 'payoutreturn',
  PAYOUT_RETURN_TRX: 'payoutreturntrx',
  PAYOUT_RETURN_GAS: 'payoutreturngas',
  FORWARD_ENERGY: 'energy',
  REFUND_ENERGY: 'refundenergy',
  FORWARD_BANDWIDTH: 'bandwidth',
  REFUND_BANDWIDTH: 'refundbandwidth',
  PAYOUT_ENERGY: 'payoutenergy',
  PAYOUT_RETURN_ENERGY: 'payoutreturnenergy',
  PAYOUT_BANDWIDTH: 'payoutbandwidth',
  ENERGY_RECLAIM: 'reclaim',
  POOL_STAKE: 'stake',
};
/** How a step is named in errors shown to merchants (failed_targets) and in send_key. */
export const stepName = (s: SendStep) => `${STEP_NAMES[s.purpose]}${s.index === undefined ? '' : `-${s.index}`}`;

export function latestSend(ctx: WorkerContext, anchorId: number, step: SendStep): Promise<Transaction | null> {
  return ctx.prisma.transaction.findFirst({
    where: { sourceId: anchorId, sendPurpose: step.purpose, sendIndex: step.index ?? null },
    orderBy: [{ sendAttempt: 'desc' }, { id: 'desc' }],
  });
}

/** The attempt a step would build next: 1 when none, the latest + 1 after a proven failure, null while one is alive. */
export function nextAttempt(row: Transaction | null): number | null {
  if (!row) return 1;
  return row.sendState === 'FAILED' ? (row.sendAttempt ?? 0) + 1 : null;
}

/**
 * Drives one step of a payment (e.g. FORWARD) to a confirmed send. The signed
 * transaction is stored before it is broadcast, and a new attempt is built only
 * once the previous one is proven dead (expired and in no block, or failed on
 * chain), so a crash at any point never sends twice and never forgets a send.
 * The unique send_key stops two workers building one step twice.
 */
export async function ensureSend(ctx: WorkerContext, anchor: Anchor, step: SendStep, plan: (refBlock: RefBlock | undefined) => Promise<PlannedSend | null>, options: SendOptions = {}): Promise<SendOutcome> {
  const first = await stepOnce(ctx, anchor, step, plan, options);
  // A confirmed send does not end a top-up step (topUp): one that turned final in this very call is followed by the
  // planner's answer now, as one found final would be. Answered "confirmed" instead, a payout's wave whose activation
  // turned final while its gas step was asked for the bytes to burn went out without that gas (BANDWITH_ERROR, issue 35).
  // Once: the planner's send, if any, is followed on the next call.
  const outcome = options.topUp && first.turnedFinal ? (await stepOnce(ctx, anchor, step, plan, options)).outcome : first.outcome;
  // Named by its step, as `exhausted` names it on the rounds after (failed_targets, held reasons).
  return outcome.state === 'exhausted' ? { ...outcome, error: `${stepName(step)}: ${outcome.error}` } : outcome;
}

/** One round of a step: builds (if due), stores and advances its send; says whether the send turned final in this round. */
async function stepOnce(ctx: WorkerContext, anchor: Anchor, step: SendStep, plan: (refBlock: RefBlock | undefined) => Promise<PlannedSend | null>, options: SendOptions): Promise<{ outcome: SendOutcome; turnedFinal: boolean }> {
  const plain = (outcome: SendOutcome) => ({ outcome, turnedFinal: false });
  let row = await latestSend(ctx, anchor.id, step);
  const attempt = nextAttempt(row) ?? (options.topUp && row?.sendState === 'CONFIRMED' ? (row.sendAttempt ?? 1) + 1 : null);
  if (attempt !== null) {
    // Seen before finality, then its block was replaced (a reorganisation): nothing is made for it until it is seen again.
    if (!anchor.solidified && anchor.blockNumber === null) return plain({ state: 'pending' });
    const spent = await exhausted(ctx, anchor, step, options.burnNowSun);
    if (spent) return plain({ state: 'exhausted', ...spent });
    if (row && waitingOutBackoff(ctx, row, row.sendAttempt ?? 1)) return plain({ state: 'pending' });
    if (step.address && (await busyElsewhere(ctx, step.address, anchor.id))) return plain({ state: 'pending' });
    const binding = await bindingBlock(ctx, anchor, step);
    if ('wait' in binding) return plain({ state: 'pending' });
    const refBlock = binding.block;
    const planned = await plan(refBlock);
    if (!planned) return plain({ state: 'skipped' });
    // A send must reference what it relies on (bindingBlock): the guard of issues 24 and 35.
    if (refBlock && !references(planned.signed, refBlock)) throw new Error(`send ${stepName(step)} of ${anchor.id} was built without reference block ${refBlock.number}`);
    // Another send of ours creates the account: this one waits, and is costed again once the account exists
    // (a second creation would never be burned, and what was deducted for it would stay at the address).
    if (planned.createsAccount && (await creatingAccount(ctx, planned.to, anchor.id))) return plain({ state: 'pending' });
    try {
      row = await ctx.prisma.$transaction(async (tx) => {
        const created = await tx.transaction.create({
          data: {
            merchantId: anchor.merchantId,
            invoiceId: anchor.invoiceId,
            type: planned.type,
            trnHash: planned.signed.txId,
            chainRef: `${planned.signed.txId}:send`,
            fromAddress: planned.from,
            toAddress: planned.to,
            amountUnits: planned.amountUnits,
            currency: planned.currency,
            eventId: anchor.eventId,
            sendState: 'SIGNED',
            signedTx: planned.signed.signedTx as object,
            expiresAt: new Date(planned.signed.expiresAt),
            // Only a uniqueness guard: written here, never parsed (the columns below say what the send is).
            sendKey: `${anchor.id}:${stepName(step)}:${attempt}`,
            sendPurpose: step.purpose,
            sendIndex: step.index ?? null,
            sendAttempt: attempt,
            costPayer: planned.costPayer,
            sourceId: anchor.id,
            createsAccount: planned.createsAccount ?? false,
            ...planned.energy,
          },
        });
        // Recorded with the send it describes, or not at all (PlannedSend.deduction).
        if (planned.deduction) await tx.transaction.update({ where: { id: anchor.id }, data: planned.deduction });
        return created;
      });
    } catch (err) {
      // Another worker built this attempt, or (migration 0092) another send creating the same account is in flight.
      if ((err as { code?: string }).code === 'P2002') return plain({ state: 'pending' });
      throw err;
    }
  }
  const before = row!.sendState;
  const outcome = await advanceSend(ctx, row!, { beforeBroadcast: options.beforeBroadcast, landed: options.landed, anchorFinal: anchor.solidified });
  return { outcome, turnedFinal: outcome.state === 'confirmed' && before !== 'CONFIRMED' };
}

/**
 * The binding rule (docs/worker.md, "A send is bound to everything it relies on"; issue 35), the one
 * place it is decided. A send built now references (TaPoS) the newest block that is not final among:
 *
 * - its anchor's block (the payment it spends, seen before finality);
 * - the blocks of its anchor's own sends out before it (its gas, its lending), each bound the same way;
 * - the blocks of every send of ours that put at the address it spends from or sends to what a send
 *   there is planned on (gas: `ACTIVATION`; energy or bandwidth lent: `DELEGATE`), **whoever made
 *   it**: a static address's forward finds another payment's lending there and lends nothing;
 * - the block of the transfer that made its recipient an account, while that is not final: a TRX
 *   send is costed without the creation on it (a third party's TRX to a merchant's fresh wallet).
 *
 * So on any branch without one of them its reference block is not there: a node refuses the send
 * for ever, it never executes there (it cannot burn a held payment's TRX or a fee kept for energy or
 * an account creation it was not costed with), and it is rebuilt once its death is proven. What has
 * no block to reference makes it wait (`wait`): another anchor's such send in flight and in no block
 * yet, a recipient made an account by a transfer the node's blocks do not show (an internal one).
 * All final: no block (the send references the head, which holds them all).
 */
export async function bindingBlock(ctx: WorkerContext, anchor: Anchor, step: SendStep): Promise<{ block?: RefBlock } | { wait: string }> {
  const blocks: RefBlock[] = [];
  const add = (number: number | null, id: string | null) => {
    if (number !== null && id !== null) blocks.push({ number, id });
  };
  if (!anchor.solidified) add(anchor.blockNumber, anchor.blockId);
  const own = await ctx.prisma.transaction.findMany({ where: { sourceId: anchor.id, sendState: 'BROADCAST', blockId: { not: null } }, select: { blockNumber: true, blockId: true } });
  for (const l of own) add(l.blockNumber, l.blockId);
  const at = [...new Set([step.address, step.to].filter((a): a is string => a !== undefined))];
  if (at.length > 0) {
    const theirs = await ctx.prisma.transaction.findMany({
      where: { toAddress: { in: at }, type: { in: ['ACTIVATION', 'DELEGATE'] }, sendState: { in: ['SIGNED', 'BROADCAST'] }, OR: [{ sourceId: null }, { sourceId: { not: anchor.id } }] },
      select: { id: true, sendPurpose: true, sourceId: true, toAddress: true, blockNumber: true, blockId: true },
    });
    const unseen = theirs.find((t) => t.blockId === null);
    // A node may count it at the head before any block holds it: there is nothing to reference yet.
    if (unseen) return { wait: `send ${unseen.id} (${unseen.sendPurpose} for ${unseen.sourceId}) to ${unseen.toAddress} is in flight and in no block yet; a send there is planned once it is` };
    for (const t of theirs) add(t.blockNumber, t.blockId);
  }
  if (step.to !== undefined && !(await madeAccountByOurs(ctx, step.to)) && (await ctx.chain.isActivated(step.to)) && !(await ctx.chain.isActivated(step.to, 'solidified'))) {
    const created = await creationBlock(ctx, step.to);
    if (!created) return { wait: `${step.to} became an account in a block that is not final, by no transfer the node's blocks show; built once that is final` };
    blocks.push(created);
  }
  return { block: blocks.reduce<RefBlock | undefined>((newest, b) => (newest === undefined || b.number > newest.number ? b : newest), undefined) };
}

/**
 * Whether TRX of ours reached `address` in a block known (an ACTIVATION row is a transfer of our gas):
 * final, the address is an account in solidified state; in a block not final, it was made an account
 * there or before, and that block is among the ones bindingBlock references (ours in flight, this
 * anchor's or another's), whose reference holds its ancestors. Either way nothing is left to ask the
 * node (issue 37: the lending and the forward right after the gas asked whether the address had become
 * an account in a block not final, and searched for the block: four requests a send).
 */
async function madeAccountByOurs(ctx: WorkerContext, address: string): Promise<boolean> {
  const ours = await ctx.prisma.transaction.count({ where: { toAddress: address, type: 'ACTIVATION', OR: [{ sendState: 'CONFIRMED' }, { sendState: 'BROADCAST', blockId: { not: null } }] } });
  return ours > 0;
}

/** The block, not final, of the first TRX transfer to `address` above the solidified head (the one that made it an account), or null. */
async function creationBlock(ctx: WorkerContext, address: string): Promise<RefBlock | null> {
  const [solid, head] = await Promise.all([ctx.chain.getConfirmedBlockNumber(), ctx.chain.getBlockNumber()]);
  for (let from = solid + 1; from <= head; from += 100) {
    const blocks = await ctx.chain.getBlocks(from, Math.min(from + 99, head));
    const found = blocks.find((b) => b.transfers.some((t) => t.token === 'TRX' && t.to === address && t.amount > 0n));
    if (found) return { number: found.number, id: found.id };
    if (blocks.length < Math.min(from + 99, head) - from + 1) return null;
  }
  return null;
}

/** Whether a signed transaction references `block` (its ref_block_bytes and ref_block_hash). */
function references(signed: SignedTransfer, block: RefBlock): boolean {
  const raw = (signed.signedTx as { raw_data?: { ref_block_bytes?: string; ref_block_hash?: string } }).raw_data;
  return raw?.ref_block_bytes === block.number.toString(16).slice(-4).padStart(4, '0') && raw.ref_block_hash === block.id.slice(16, 32);
}

/** What a send may go out on once it is in a head block (`landed`): its gas and its lending. */
const PREREQUISITES: SendPurpose[] = ['FORWARD_GAS', 'REFUND_GAS', 'FORWARD_ENERGY', 'REFUND_ENERGY', 'FORWARD_BANDWIDTH', 'REFUND_BANDWIDTH', 'PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'];

/**
 * Follows the anchor's prerequisite sends that are out and not final (its gas, its lending) to their
 * end, so each is booked when final although the step that needed it has moved on (issue 24); the
 * forward, refund or payout target itself is followed by its own step. How many are still out, and
 * of them how many are in no block yet (or failed there, not final): the step that needs them
 * cannot go on before they land.
 */
export async function followOut(ctx: WorkerContext, anchor: Anchor): Promise<{ out: number; inNoBlock: number }> {
  const rows = await ctx.prisma.transaction.findMany({ where: { sourceId: anchor.id, sendState: 'BROADCAST', sendPurpose: { in: PREREQUISITES } } });
  let out = 0;
  let inNoBlock = 0;
  for (const row of rows) {
    const outcome = await advanceSend(ctx, row, { landed: true, anchorFinal: anchor.solidified });
    if (outcome.state === 'pending' || outcome.state === 'landed') out++;
    if (outcome.state === 'pending') inNoBlock++;
  }
  return { out, inNoBlock };
}

/** The fee_limit a stored USDT call carries (sun); null for a TRX transfer. */
export function feeLimitOf(row: Pick<Transaction, 'signedTx'>): bigint | null {
  const limit = (row.signedTx as { raw_data?: { fee_limit?: number | string } } | null)?.raw_data?.fee_limit;
  return limit === undefined ? null : BigInt(limit);
}

/**
 * Whether a step has used its attempts up (null while it has not; otherwise the error to fail it
 * with). Only a send that landed and failed on chain, or a refusal no retry can fix, counts against
 * SEND_MAX_ATTEMPTS: one that expired unsent (gas wallet short, node unreachable, bandwidth) is the
 * service's to fix, so it is rebuilt with backoff for as long as it takes (issue 13, case 2). So is
 * an OUT_OF_ENERGY failure whose fee_limit is below what the chain needs now (the energy price or
 * the estimate rose after it was built; issue 22, case 2): it is rebuilt with a fresh estimate and
 * does not count. Bounded, so that a persistently wrong estimate cannot burn gas forever: it counts
 * when its fee_limit covered what a fresh estimate needs (`burnNowSun`, for the latest send), or,
 * for an earlier one, when the attempt that followed it did not carry a higher fee_limit than its
 * own with GAS_MARGIN_PERCENT (what the rebuild would carry had nothing changed).
 */
export async function exhausted(ctx: WorkerContext, anchor: Anchor, step: SendStep, burnNowSun?: () => Promise<bigint>): Promise<{ error: string; refused: boolean } | null> {
  const rows = await ctx.prisma.transaction.findMany({
    where: { sourceId: anchor.id, sendPurpose: step.purpose, sendIndex: step.index ?? null },
    orderBy: [{ sendAttempt: 'asc' }, { id: 'asc' }],
    select: { sendState: true, blockNumber: true, error: true, signedTx: true, toAddress: true },
  });
  // The latest attempt was refused for good, to where the step still sends (issue 34): the step ends now, not after more refusals.
  const latest = rows.at(-1);
  if (latest && refusedForGood(latest) && (step.to === undefined || step.to === latest.toAddress)) return { error: `${stepName(step)}: refused for good by the node: ${latest.error}`, refused: true };
  let counted = 0;
  for (const [i, row] of rows.entries()) {
    if (row.sendState !== 'FAILED' || !cannotSucceed(row)) continue;
    const limit = feeLimitOf(row);
    if (limit !== null && /OUT_OF_ENERGY/.test(row.error ?? '')) {
      const next = rows[i + 1];
      const nextLimit = next ? feeLimitOf(next) : null;
      const fixable = next ? nextLimit !== null && nextLimit > withMargin(limit, ctx.settings.GAS_MARGIN_PERCENT) : burnNowSun !== undefined && (await burnNowSun()) > limit;
      if (fixable) continue;
    }
    counted++;
  }
  // An operator's retry (npm run payment:retry) grants SEND_MAX_ATTEMPTS more.
  if (counted < ctx.settings.SEND_MAX_ATTEMPTS * (1 + anchor.operatorRetries)) return null;
  return { error: `${stepName(step)}: ${rows.at(-1)?.error ?? 'failed'}`, refused: false };
}

/**
 * Whether the send can never land, proven from solidified blocks (issue 13, case 5). A lookup
 * by id answered by a node that lags (a load-balanced provider mixes nodes) says "unknown" for a
 * transfer that landed; so the blocks themselves are read, from the block after the
 * transaction's reference block up to the first block past its expiration: immutable content
 * that a node either has or does not (a node that lacks one answers nothing, which proves
 * nothing). The proof must hold twice, in two rounds (the send row's `retries` counts them),
 * before the send is declared dead and may be rebuilt.
 */
async function provenDead(ctx: WorkerContext, row: Transaction): Promise<boolean> {
  const raw = (row.signedTx as { raw_data?: { ref_block_bytes?: string; ref_block_hash?: string } } | null)?.raw_data;
  const expiresAt = row.expiresAt?.getTime();
  if (!raw?.ref_block_bytes || expiresAt === undefined) return false;
  const solid = await ctx.chain.getConfirmedBlockNumber();
  // The reference block is the newest block at or below the head with these low 16 bits.
  let from = solid - ((solid - parseInt(raw.ref_block_bytes, 16)) & 0xffff) + 1;
  let proven = await referencesReplacedBlock(ctx, raw.ref_block_bytes, raw.ref_block_hash ?? '', solid);
  while (!proven && from <= solid) {
    const to = Math.min(from + 99, solid);
    const range = await ctx.chain.getBlockRangeTransfers(from, to);
    if (range.lastBlock === null || range.transfers.some((t) => t.txId === row.trnHash)) return false;
    if (range.lastBlockTime !== null && range.lastBlockTime >= expiresAt) {
      proven = true;
      break;
    }
    if (range.lastBlock < to) return false;
    from = range.lastBlock + 1;
  }
  if (!proven) return false;
  if (row.retries === 0) {
    // First proof: kept, and checked again next round before anything is rebuilt.
    await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] }, retries: 0 }, data: { retries: 1 } });
    return false;
  }
  return true;
}

/**
 * Whether the transaction references a block the final chain does not hold (TaPoS, issue 24): its
 * reference block's height is solidified and the block there is another one. A node refuses it on
 * that chain for ever, so it can never execute, expired or not: a send bound to a payment whose
 * block a reorganisation replaced is proven dead as soon as that height is final.
 */
async function referencesReplacedBlock(ctx: WorkerContext, refBytes: string, refHash: string, solid: number): Promise<boolean> {
  const head = await ctx.chain.getBlockNumber();
  const refNumber = head - ((head - parseInt(refBytes, 16)) & 0xffff);
  if (refNumber > solid || refNumber < 0) return false;
  const id = await ctx.chain.getSolidifiedBlockId(refNumber);
  return id !== null && id.slice(16, 32) !== refHash;
}

/**
 * A send in a head block, executed, not final (or final before what it was made for): `landed` for
 * a step that asked for it, with the block it is in recorded (checked to hold it, so a later send
 * references the block the send really is in); otherwise still pending.
 */
async function landedSend(ctx: WorkerContext, row: Transaction, blockNumber: number, follow: Follow): Promise<SendOutcome> {
  if (!follow.landed) return { state: 'pending' };
  if (row.blockNumber === blockNumber && row.blockId !== null) return { state: 'landed', row };
  const blockId = await ctx.chain.getBlockIdHolding(blockNumber, row.trnHash);
  if (blockId === null) return { state: 'pending' };
  await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } }, data: { blockNumber, blockId } });
  return { state: 'landed', row: { ...row, blockNumber, blockId } };
}

/** Whether a send of another anchor, costed with creating `to`'s account, is in flight. */
async function creatingAccount(ctx: WorkerContext, to: string, anchorId: number): Promise<boolean> {
  const other = await ctx.prisma.transaction.findFirst({ where: { toAddress: to, createsAccount: true, sendState: { in: ['SIGNED', 'BROADCAST'] }, sourceId: { not: anchorId } }, select: { id: true } });
  return other !== null;
}

/** Whether another payment or payout has a send in flight from `address`, or gas in flight to it. */
async function busyElsewhere(ctx: WorkerContext, address: string, anchorId: number): Promise<boolean> {
  const other = await ctx.prisma.transaction.findFirst({
    where: { sendState: { in: ['SIGNED', 'BROADCAST'] }, sourceId: { not: anchorId }, OR: [{ fromAddress: address }, { toAddress: address, type: 'ACTIVATION' }] },
    select: { id: true },
  });
  return other !== null;
}

/**
 * A send that can never succeed as made: it landed and failed on chain, or the node refused it for
 * good (isPermanentRefusal, lib/chain/errors.ts: TRX to a contract or to itself...). A short balance,
 * bandwidth, expiry or an unreachable node are not among them.
 */
const refusedForGood = (r: Pick<Transaction, 'sendState' | 'blockNumber' | 'error'>) => r.sendState === 'FAILED' && r.blockNumber === null && isPermanentRefusal(r.error);
export const cannotSucceed = (r: Pick<Transaction, 'blockNumber' | 'error'>) => r.blockNumber !== null || isPermanentRefusal(r.error);

/** Wait before rebuilding a send that expired unsent: doubling from SEND_RETRY_BASE_MS, at most SEND_RETRY_MAX_MS. */
function retryBackoffMs(ctx: WorkerContext, attempt: number): number {
  return backoffMs({ baseMs: ctx.settings.SEND_RETRY_BASE_MS, capMs: ctx.settings.SEND_RETRY_MAX_MS, jitter: 0 }, attempt - 1);
}

/**
 * A send proven dead that may be made again, but not yet: the wait after its `attempt`-th try (retryBackoffMs)
 * has not passed since it was marked FAILED. One that cannot succeed is never made again, so it waits for nothing.
 */
export function waitingOutBackoff(ctx: WorkerContext, row: Pick<Transaction, 'sendState' | 'blockNumber' | 'error' | 'updatedAt'>, attempt: number): boolean {
  return row.sendState === 'FAILED' && !cannotSucceed(row) && Date.now() < row.updatedAt.getTime() + retryBackoffMs(ctx, attempt);
}

/** Keeps the first cause a node gave (e.g. `balance is not sufficient`) when a later refusal would hide it. */
const withCause = (row: Transaction, error: string) => (row.error && !error.includes(row.error) ? `${error}; first refused: ${row.error}` : error);

async function markFailed(ctx: WorkerContext, row: Transaction, error: string, landed?: { blockNumber: number | null; burnedSun: bigint }, forGood = false): Promise<void> {
  const burnedSun = landed?.burnedSun ?? 0n;
  if (forGood) console.error(`ALERT send ${row.id} (${row.sendPurpose} for payment ${row.sourceId}) refused for good by the node: ${error}; nothing is sent to ${row.toAddress} again, the money stays where the merchant can act on it`);
  else if (!landed) console.error(`ALERT send ${row.id} (${row.sendPurpose} for payment ${row.sourceId}) never landed: ${withCause(row, error)}; it will be rebuilt with backoff`);
  await ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.transaction.updateMany({
      where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } },
      data: { sendState: 'FAILED', error: withCause(row, error), feeSun: burnedSun, blockNumber: landed?.blockNumber ?? null },
    });
    // A send that failed in a block still burned its fee (issue 13, case 12); the ledger records it.
    if (count === 1 && burnedSun > 0n) await bookSendLanded(tx, row, burnedSun, false, { error });
  });
}

/**
 * Follows a stored send one round without broadcasting it, the anchor's waiting reason recorded as
 * why (noteWaiting, lib/energy/engine.ts): for a send whose attempt's plan is not ready (its rented energy taken back early by the provider, its lending or gas
 * not there, its delegation not final). Not followed at all, such a send stayed SIGNED for as long as
 * the plan waited, and for ever where the plan could not be ready again (a rental cannot be given up
 * once a send it paid for is built: lib/energy/rentals.ts). Followed, it expires, is proven dead, and
 * the next attempt is planned afresh; whether a dead worker broadcast it anyway the chain says, as for
 * any send followed.
 */
export const followKeptBack = (ctx: WorkerContext, anchor: Anchor & Pick<Transaction, 'waitingReason'>, row: Transaction): Promise<SendOutcome> =>
  advanceSend(ctx, row, { beforeBroadcast: () => Promise.resolve(anchor.waitingReason ?? 'what it needs is not ready yet'), anchorFinal: anchor.solidified });

/** Follows a stored send one round (broadcast, landed, proven dead): for sends built outside a step (an operator's stake). */
export const followSend = (ctx: WorkerContext, row: Transaction, beforeBroadcast?: SendOptions['beforeBroadcast']): Promise<SendOutcome> => advanceSend(ctx, row, { beforeBroadcast, anchorFinal: true });

/**
 * What a follow of a send last learnt from the node (`getTransactionStatus`), per process
 * (lib/singletons.ts), by txid: the scanners' newest block then (`head`, lib/db/chainCursors.ts),
 * when (ms), what it said (`final`: confirmed and booked, or failed in a final block: its row says so
 * from now on), and the block it
 * was in (null: none).
 */
export interface SendLook {
  head: number;
  at: number;
  status: TransactionStatus['status'] | 'final';
  blockNumber: number | null;
}

/**
 * A send not looked at for this long is looked at whatever the scanners say: a scanner stopped or
 * behind (its cursors then do not move) delays a send's end by at most this, and a send that left
 * its block in a reorganisation is seen before the height is final when that comes sooner.
 */
const LOOK_AT_LEAST_EVERY_MS = 90_000;
/**
 * Cursors no scanner has moved for this long (five mainnet blocks) say nothing of the chain: the
 * worker is stopped (an operator's `npm run energy` following its stake alone) or its scanners
 * cannot read; a send is then looked at whenever it is followed, judged by the node's own
 * solidified head, as before issue 37 (the solidified cursor, left behind, would never make it final).
 */
const SCANNERS_STILL_MS = 15_000;

const sendLooks = () => singleton('sendLooks', () => new Map<string, SendLook>());

/**
 * The scanners' cursors, read from the database at most once per SCANNED_HEADS_FRESH_MS for a
 * database client: a round of the sends job follows every send in flight, and each read them
 * before (one query per send per round, on the follow's hot path). A read this young is older
 * than no block the scanners could have booked in between that matters: at worst a look waits
 * for the next round, never is skipped for good.
 */
const SCANNED_HEADS_FRESH_MS = 250;

function currentScannedHeads(prisma: WorkerContext['prisma'], now: number): Promise<ScannedHeads | null> {
  const memo = singleton('scannedHeadsRead', () => new WeakMap());
  const kept = memo.get(prisma);
  if (kept && now - kept.at < SCANNED_HEADS_FRESH_MS) return kept.read;
  const read = scannedHeads(prisma);
  // A failed read is not kept: the next follow asks again.
  read.catch(() => {
    if (memo.get(prisma)?.read === read) memo.delete(prisma);
  });
  memo.set(prisma, { at: now, read });
  return read;
}

/**
 * Whether a send looked at before may stand otherwise now (issue 37: every send in flight was
 * looked at every worker round, two requests each, 300 of a paid USDT invoice's 430): judged by how
 * far the scanners have read (no request). In no block at the last look: once the scanners have
 * read a newer block (it may be in that one; the re-broadcast of an unknown send follows the look,
 * so it too is once a block). In a block, not final: once that block can be final (the scanner of
 * solidified blocks has read it), when the receipt is read once. Final while its anchor was not:
 * once the anchor is. And at least every LOOK_AT_LEAST_EVERY_MS, and every time while the scanners' heads are
 * unknown or still (SCANNERS_STILL_MS).
 * What the look decides is as before: a reorganisation that took the send out of its block is seen
 * at the next look (a send that followed it references its block and cannot execute without it).
 */
function lookDue(look: SendLook, scanned: ScannedHeads | null, anchorFinal: boolean, now: number): boolean {
  if (!scanned || now - look.at >= LOOK_AT_LEAST_EVERY_MS) return true;
  if (look.status === 'final') return true;
  if (look.blockNumber === null) return scanned.head > look.head;
  if (look.status === 'confirmed') return anchorFinal;
  return (scanned.solidified?.number ?? -1) >= look.blockNumber;
}

/** Keeps what a look learnt; forgets a send that is final (its row says so from now on), and the oldest beyond a bound. */
function keepLook(looks: Map<string, SendLook>, txId: string, look: SendLook): void {
  if (look.status === 'final') {
    looks.delete(txId);
    return;
  }
  looks.delete(txId);
  looks.set(txId, look);
  // Insertion order is the order of the last look: the first is the longest unlooked-at, a send long over.
  if (looks.size > 10_000) looks.delete(looks.keys().next().value!);
}

/**
 * The send's receipt as the scanner of solidified blocks kept it with its final block (keepFinalReceipts,
 * lib/payments/scan.ts; issue 37), or null: from the row as the caller read it, or read again once the scanners are
 * past the block the send was seen in (that scan kept it in the transaction that moved its cursor). A query of the
 * database instead of one of the node.
 */
async function keptReceipt(ctx: WorkerContext, row: Transaction, blockNumber: number | null, scanned: ScannedHeads | null): Promise<Prisma.JsonValue> {
  // `?? null`: a row a raw query read may not carry the column.
  if ((row.finalReceipt ?? null) !== null) return row.finalReceipt;
  if (blockNumber === null || (scanned?.solidified?.number ?? -1) < blockNumber) return null;
  return (await ctx.prisma.transaction.findUnique({ where: { id: row.id }, select: { finalReceipt: true } }))?.finalReceipt ?? null;
}

interface Follow {
  beforeBroadcast?: SendOptions['beforeBroadcast'];
  /** Report a send in a head block, executed, as `landed` (SendOptions.landed). */
  landed?: boolean;
  /**
   * Whether what the send was made for is final. A send for a payment not final is never booked:
   * its block is after the payment's, and the payment is booked first (lib/payments/scan.ts).
   */
  anchorFinal: boolean;
}

async function advanceSend(ctx: WorkerContext, row: Transaction, follow: Follow): Promise<SendOutcome> {
  const { beforeBroadcast } = follow;
  if (row.sendState === 'CONFIRMED') return { state: 'confirmed', row };
  const expiresAt = row.expiresAt?.getTime();
  let refusal: string | null = null;
  let permanent = false;
  // Not broadcast now, and not re-broadcast below: it goes out once the reason is gone, or expires
  // and is proven dead (then rebuilt). Whether a dead worker broadcast it anyway the chain says below.
  const keptBack = row.sendState === 'SIGNED' && beforeBroadcast ? await beforeBroadcast(row) : null;
  if (keptBack) {
    if (!row.error) {
      console.warn(`send ${row.id} (${row.sendPurpose} for payment ${row.sourceId}) not broadcast: ${keptBack}`);
      await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: 'SIGNED' }, data: { error: keptBack } });
    }
  } else if (row.sendState === 'SIGNED') {
    try {
      await ctx.chain.broadcast(row.signedTx as never);
      await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: 'SIGNED' }, data: { sendState: 'BROADCAST', error: null } });
    } catch (err) {
      if (!(err instanceof TxRejectedError)) throw err;
      // A refusal is not proof it never lands: a worker killed after broadcasting and before
      // recording it finds its own transaction refused as a duplicate or expired, though it
      // is in a block. The chain decides below, as for any send in flight.
      refusal = `${err.code}: ${err.nodeMessage}`;
      permanent = err.permanent;
    }
  }
  // Looked at only when the node could say something new (issue 37; `lookDue`): a send just
  // broadcast is in no block before the next one, and one in a block changes only once that block
  // can be final. A refusal is looked into at once: the chain says whether it is in a block anyway.
  const now = Date.now();
  // Cursors no scanner moves say nothing of the chain (SCANNERS_STILL_MS): neither when to look nor what is final.
  const cursors = await currentScannedHeads(ctx.prisma, now);
  const scanned = cursors && now - cursors.movedAt < SCANNERS_STILL_MS ? cursors : null;
  const looks = sendLooks();
  const look = looks.get(row.trnHash);
  // Broadcast for the first time in this process: looked at from the next block on. (A caller that
  // passes the same row again, still SIGNED as it read it, finds the look kept and goes on below.)
  if (refusal === null && row.sendState === 'SIGNED' && !keptBack && !look) {
    keepLook(looks, row.trnHash, { head: scanned?.head ?? 0, at: now, status: 'unknown', blockNumber: null });
    return { state: 'pending' };
  }
  // Seen executed in a block the scanners read (markSends, lib/payments/headScan.ts), or by a look in another process,
  // since this process last looked: in a block, not final yet, without asking the node (issue 37: a receipt, and for a
  // step waiting for it to land a read of the block, of every send). Its block's finality is looked at as after a look
  // that found it there; a reorganisation that took it out the scanner unmarks, and the look at finality sees.
  if (refusal === null && scanned && row.blockId !== null && row.blockNumber !== null && look?.blockNumber !== row.blockNumber && (scanned.solidified?.number ?? -1) < row.blockNumber) {
    keepLook(looks, row.trnHash, { head: scanned.head, at: now, status: 'pending', blockNumber: row.blockNumber });
    return landedSend(ctx, row, row.blockNumber, follow);
  }
  if (refusal === null && look && !lookDue(look, scanned, follow.anchorFinal, now)) {
    return look.status !== 'unknown' && look.status !== 'failed' && look.blockNumber !== null ? landedSend(ctx, row, look.blockNumber, follow) : { state: 'pending' };
  }
  // Its receipt, where the scanner of solidified blocks kept it with its final block (lib/payments/scan.ts), is not asked again.
  const kept = await keptReceipt(ctx, row, look?.blockNumber ?? row.blockNumber, scanned);
  const status = kept !== null ? ctx.chain.receiptStatus(kept) : await ctx.chain.getTransactionStatus(row.trnHash, expiresAt, scanned?.solidified ?? undefined);
  keepLook(looks, row.trnHash, { head: scanned?.head ?? 0, at: now, status: (status.status === 'confirmed' && follow.anchorFinal) || (status.status === 'failed' && status.solidified) ? 'final' : status.status, blockNumber: status.blockNumber });
  if (status.blockNumber !== null && status.blockNumber !== row.blockNumber && (status.status !== 'confirmed' || !follow.anchorFinal)) {
    // The block it is in, for the scanner of solidified blocks: it reads for this send once that block is due, not
    // each block before it (finalityAwaited, lib/payments/scan.ts; issue 37). Only the number: a step that asked
    // for `landed` records the block's id too, checked to hold the send (landedSend), as what later sends reference.
    await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] }, blockId: null }, data: { blockNumber: status.blockNumber } });
  }
  if ((status.status === 'pending' || (status.status === 'confirmed' && !follow.anchorFinal)) && status.blockNumber !== null) return landedSend(ctx, row, status.blockNumber, follow);
  if (status.status === 'unknown' && (row.blockId !== null || row.blockNumber !== null)) {
    // It was in a head block that a reorganisation replaced: not landed any more (what referenced that block is dead).
    await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } }, data: { blockNumber: null, blockId: null } });
  }
  switch (status.status) {
    case 'confirmed': {
      const confirmed = await ctx.prisma.$transaction(async (tx) => {
        const { count } = await tx.transaction.updateMany({
          where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } },
          data: { sendState: 'CONFIRMED', feeSun: status.feeSun, blockNumber: status.blockNumber, error: null, energyUsed: status.energyUsed, bandwidthUsed: status.bandwidthUsed, ...(row.type === 'WITHDRAW' ? { stakeSun: status.withdrawnSun } : {}) },
        });
        if (count === 1) {
          await bookSendLanded(tx, row, status.feeSun, true, { withdrawnSun: status.withdrawnSun });
          // What the network burned is charged to whoever the send's purpose says pays it.
          if (row.costPayer === 'MERCHANT' && row.merchantId !== null) {
            await changeMerchantBalance(tx, { merchantId: row.merchantId, balance: 'ACTIVATION', kind: 'NETWORK_FEE', deltaSun: -status.feeSun, transactionId: row.id });
            // Energy rented for the attempt is its network cost too (docs/energy.md, "Rented energy").
            await changeMerchantBalance(tx, { merchantId: row.merchantId, balance: 'ACTIVATION', kind: 'ENERGY_RENTAL', deltaSun: -(await rentalPriceOf(tx, row)), transactionId: row.id });
          }
        }
        return tx.transaction.findUniqueOrThrow({ where: { id: row.id } });
      });
      return { state: 'confirmed', row: confirmed };
    }
    case 'failed':
      // Landed but the contract call failed: nothing moved, so another attempt is safe once final.
      if (status.solidified) await markFailed(ctx, row, `failed on chain: ${status.result ?? ''} ${status.message ?? ''}`.trim(), { blockNumber: status.blockNumber, burnedSun: status.feeSun });
      return { state: 'pending' };
    case 'unknown':
      if (refusal !== null && permanent) {
        // Invalid for what it is (TRX to a smart contract...; issue 34): no node accepts it, now or later, and it is in
        // no block; nor would any rebuild to this address be accepted. Ended at once with one alert, not retried until
        // it expires (hundreds of alerts, then more attempts): the caller leaves the money where the merchant can act.
        await markFailed(ctx, row, refusal, undefined, true);
        return { state: 'exhausted', error: `refused for good by the node: ${refusal}`, refused: true };
      }
      if (status.expired) {
        if (await provenDead(ctx, row)) await markFailed(ctx, { ...row, error: row.error ?? keptBack ?? refusal }, refusal ?? 'expired without entering a block');
      } else if (refusal !== null) {
        console.error(`ALERT send ${row.id} (${row.sendPurpose} for payment ${row.sourceId}) refused by the node: ${refusal}; retrying until it lands or expires`);
        // The first refusal is the root cause; later ones (e.g. expiration) are kept beside it by withCause.
        if (!row.error) await ctx.prisma.transaction.update({ where: { id: row.id }, data: { error: refusal } });
      }
      // The node may have dropped it; sending the same signed bytes again is harmless.
      else if (!keptBack) await ctx.chain.broadcast(row.signedTx as never).catch(() => undefined);
      return { state: 'pending' };
    default:
      return { state: 'pending' };
  }
}
