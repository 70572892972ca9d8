import type { RefBlock } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { cheapestCostSun, costInUnits, energyShort, energySourceFor, noteWaiting, sendReads, type SendReads } from '@/lib/energy/engine';
import { carryOut, feeLimitSun, paidWithLent, planSend, sendPlanCost, type SendPlan } from '@/lib/energy/plan';
import { rentalFor } from '@/lib/energy/rentals';
import { spendableTrx } from '@/lib/sends/gas';
import { ensureSend, exhausted, feeLimitOf, followKeptBack, latestSend, nextAttempt, type Deduction, type PlannedSend, type SendOutcome } from '@/lib/sends/steps';
import { type Payment, toDecimal, invoiceKey } from './payment';
import { paymentFee } from '@/lib/rules/settlement';
import { singleton } from '@/lib/singletons';
import { contractHeld } from './outcomes';

/** Sends from an invoice address: judged worth it first, gas bought for USDT, sized at the current price, never broadcast underfunded. */
export const REFUND_NOT_WORTH_IT = 'AML failed, and returning it would cost more than it is worth';

/**
 * The round's reads for sending the payment's whole amount to `to` (lib/energy/engine.ts, SendReads):
 * made by the forward or refund step once a round and handed to `uneconomic` and `sendFromInvoice`,
 * which judge the same transfer (issue 37: its estimate and the pool were read twice a round).
 */
export function invoiceSendReads(ctx: WorkerContext, p: Payment, to: string): SendReads {
  const from = invoiceKey(p).address;
  return sendReads(ctx, from, () => ctx.chain.estimateTransfer({ token: p.currency as Currency, from, to, amount: p.amountUnits }));
}

/**
 * Whether sending this payment on costs more than it is worth (issue 13, cases 3 and 4):
 * the network cost of the forward or refund (for USDT: its gas, at current rates) against
 * what the merchant would receive or the sender get back. Judged once, before anything is
 * sent, gas included (issue 22, case 7); null when it is worth it.
 */
export async function uneconomic(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', fee: bigint, reads: SendReads): Promise<string | null> {
  if (await latestSend(ctx, p.id, { purpose })) return null;
  if (await latestSend(ctx, p.id, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: 1 })) return null;
  const worth = p.amountUnits - fee;
  const cost = await reads.estimate();
  // The cheapest source's cost (with the pool: activation and bandwidth only; docs/energy.md).
  const costSun = await cheapestCostSun(ctx, invoiceKey(p).address, cost, reads);
  const costInToken = await costInUnits(ctx, p.currency as Currency, costSun);
  if (costInToken < worth) return null;
  if (purpose === 'REFUND') return REFUND_NOT_WORTH_IT;
  return uneconomicReason(p, costSun, costInToken, worth);
}

/**
 * How long a forward's or refund's attempt keeps its finding that its recipient is fit (no contract,
 * nothing frozen): about a finality period on mainnet. The attempt's gas and lending before finality
 * land within a few blocks of the check (issue 24), and its send is built in the round after; an
 * attempt that waits longer (for the pool, a rental) is checked again before it buys or sends more.
 */
export const SEND_CHECKS_KEPT_MS = 60_000;
/** At most this many findings are kept (the oldest forgotten first): a few rounds' worth of every payment in flight. */
const SEND_CHECKS_KEPT = 10_000;

/**
 * Why a new attempt of the payment's forward or refund to `to` must not be made, or null (issues
 * 34 and 37): `to` is a smart contract (TRX refused for good, USDT lost), or the USDT contract has
 * frozen the invoice address or `to`. Asked before the attempt buys gas or energy; a send already
 * out (`current`, not failed) is followed to its end. A finding of fitness is kept for the attempt
 * and that recipient for SEND_CHECKS_KEPT_MS in this process: the rounds that send the attempt's
 * gas, its lending and then build it asked the node the same three questions each (nine requests an
 * invoice, a tenth of a USDT invoice's). A recipient changed meanwhile (a merchant's new wallet, a
 * release elsewhere) is another key, checked afresh.
 */
export async function unfitRecipient(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', current: Transaction | null, to: string, what: string): Promise<string | null> {
  const attempt = nextAttempt(current);
  if (attempt === null) return null;
  const key = `${p.id}:${purpose}:${attempt}:${to}`;
  const passed = singleton('sendChecksPassed', () => new Map<string, number>());
  const at = passed.get(key);
  if (at !== undefined && Date.now() - at < SEND_CHECKS_KEPT_MS) return null;
  if (await ctx.chain.isContract(to)) return contractHeld(to, what);
  const frozen = await frozenReason(ctx, p, to, what);
  if (frozen) return frozen;
  passed.delete(key);
  passed.set(key, Date.now());
  if (passed.size > SEND_CHECKS_KEPT) passed.delete(passed.keys().next().value!);
  return null;
}

/**
 * Why a USDT send of the payment to `to` must not be made (issue 37), or null. Tether's contract
 * keeps a blacklist: a transfer from a frozen address reverts (burning the energy paid for it,
 * every attempt), and USDT sent to a frozen one can never be moved again. Asked before a new
 * attempt buys gas or energy; a send already out is followed to its end.
 */
async function frozenReason(ctx: WorkerContext, p: Payment, to: string, what: string): Promise<string | null> {
  if (p.currency !== 'USDT') return null;
  const { address } = invoiceKey(p);
  if (await ctx.chain.isUsdtFrozen(address)) {
    return `frozen: the USDT contract has frozen ${address}, the address this payment is at (Tether's blacklist); nothing can leave it, so nothing is sent and no energy is spent`;
  }
  if (await ctx.chain.isUsdtFrozen(to)) {
    // Held once the payment is final (hold): alerted then, once.
    if (p.solidified) console.error(`ALERT payment ${p.id}: ${what} ${to} is frozen by the USDT contract; the payment is held instead of sent there`);
    return `frozen: ${what} ${to} is frozen by the USDT contract (Tether's blacklist), so USDT sent there could never be moved; release it to another address`;
  }
  return null;
}

/** Why a forward is held as uneconomic: what it would cost, against what the payment is worth. */
const uneconomicReason = (p: Payment, costSun: bigint, costInToken: bigint, worth: bigint, how = '') =>
  `uneconomic: forwarding would cost ${toDecimal(costInToken)} ${p.currency}${p.currency === 'USDT' ? ` (${toDecimal(costSun)} TRX of network fees${how ? `, ${how}` : ''})` : ''}, not less than the ${toDecimal(worth)} ${p.currency} it is worth`;

/** What moving the payment on is worth, in its token (docs/energy.md): a forward the payment less the service fee, a refund the payment; null once the merchant released it to be forwarded as it is. */
function worthOf(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND'): bigint | null {
  if (purpose === 'REFUND') return p.amountUnits;
  if (p.releaseAction === 'FORWARD') return null;
  return p.amountUnits - paymentFee(p.amountUnits, p.invoice?.amounts.find((a) => a.currency === p.currency), ctx.forwardingFeePercent);
}

/**
 * What a build sends of the payment, and what it deducts for the send's cost when that is recorded
 * on the payment (a refund: migration 0057), written with the send's row (PlannedSend.deduction).
 */
export interface SendAmount {
  amountUnits: bigint;
  deduction?: Deduction;
}

/**
 * Sends `amount` of the payment's token from the invoice address to `to`. USDT
 * first needs TRX at the invoice address for energy, funded from the gas wallet
 * (lib/sends/gas.ts), keyed by the send attempt it funds. Gas, fee_limit and
 * the attempt check share one estimate per round (`reads`, the step's for this
 * round), read fresh from the node (the energy price and the energy as they are
 * now: docs/worker.md, "Sends").
 */
export async function sendFromInvoice(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, amountFor: (burnSun: bigint) => Promise<SendAmount>, reads: SendReads): Promise<SendOutcome> {
  const { address, privateKey } = invoiceKey(p);
  const token = p.currency as Currency;
  // `to` can change between attempts (a release to another address): a refusal for good ends the step only for the address refused.
  const step = { purpose, address, to } as const;
  if (token === 'TRX') {
    return ensureSend(ctx, p, step, async (refBlock) => {
      const cost = await ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
      const { amountUnits, deduction } = await amountFor(cost.totalFeeSun);
      if (amountUnits <= 0n) return null;
      const signed = await ctx.chain.buildSignedTrxTransfer(privateKey, to, amountUnits, refBlock);
      return { type: 'TRANSFER', from: address, to, amountUnits, currency: token, costPayer: 'PAYMENT', signed, createsAccount: cost.createsAccount, deduction };
    });
  }
  const estimate = reads.estimate;
  const cost = async () => sendPlanCost(await estimate());
  // What the send burns (energy and bandwidth): judges an OUT_OF_ENERGY failure.
  const burnNow = async () => {
    const c = await estimate();
    return c.energyFeeSun + c.bandwidthFeeSun;
  };
  const latest = await latestSend(ctx, p.id, step);
  const attempt = nextAttempt(latest);
  // The attempt's plan (lib/energy/plan.ts): for the attempt to build, or for the stored one not yet out, whose
  // address must hold its energy (pool) or its fee_limit in gas (burn) before it is broadcast, topped up for
  // the same attempt if short (it is never rebuilt unless proven dead: a worker that died after broadcasting
  // it may not have recorded that).
  if (attempt !== null) {
    // No gas for an attempt that will not be made (issue 22, case 6): the attempt limit first.
    const spent = await exhausted(ctx, p, step, burnNow);
    if (spent) return { state: 'exhausted', ...spent };
  }
  const stored = latest?.sendState === 'SIGNED' ? feeLimitOf(latest) : null;
  const planned = attempt !== null || stored !== null ? await planAttempt(ctx, p, purpose, attempt ?? latest?.sendAttempt ?? 1, reads, stored) : null;
  const notReady = planned === null ? null : 'needs' in planned ? await carryOut(ctx, p, planned, address, cost, purpose === 'FORWARD' ? 'MERCHANT' : 'SERVICE', undefined, reads) : planned;
  if (notReady) {
    // The stored send waits with its plan, kept back: followed, so that it expires and is proven dead if the plan
    // cannot be ready again in time (rented energy the provider took back early), and the next attempt plans afresh.
    if (stored !== null && notReady.state === 'pending') await followKeptBack(ctx, p, latest!);
    return notReady;
  }
  // No plan when a send of the attempt is out (ensureSend follows it, nothing is built), or when another worker's
  // send of the attempt died between our read and ensureSend's: built burning, as it always was; its check before
  // broadcast (underfunded) keeps it back until its gas is there.
  const used = planned !== null && 'needs' in planned ? planned : BURNING;
  const build = async (refBlock: RefBlock | undefined): Promise<PlannedSend | null> => {
    const c = await estimate();
    // With lent or rented energy the send burns only its bandwidth; a refund also deducts what the energy was rented for.
    const rented = used.source === 'RENTAL' && attempt !== null ? ((await rentalFor(ctx, p.id, purpose, attempt))?.priceSun ?? 0n) : 0n;
    const { amountUnits, deduction } = await amountFor(paidWithLent(used) ? c.bandwidthFeeSun + rented : c.energyFeeSun + c.bandwidthFeeSun);
    if (amountUnits <= 0n) return null;
    return {
      type: 'TRANSFER',
      from: address,
      to,
      amountUnits,
      currency: token,
      // A USDT forward's energy is the merchant's; a refund's is deducted from what is returned.
      costPayer: purpose === 'FORWARD' ? 'MERCHANT' : 'PAYMENT',
      signed: await ctx.chain.buildSignedUsdtTransfer(privateKey, to, amountUnits, await feeLimitSun(ctx, used.feeLimit, c), refBlock),
      energy: { energySource: used.source, energyUnits: c.energy },
      deduction,
    };
  };
  const outcome = await ensureSend(ctx, p, step, build, { burnNowSun: burnNow, beforeBroadcast: (row) => underfunded(ctx, row) });
  if (outcome.state !== 'pending' && p.waitingReason) await noteWaiting(ctx, p, null);
  return outcome;
}

const BURNING: SendPlan = { source: 'BURN', feeLimit: 'BURN', needs: [] };

/** The steps a forward's or a refund's attempt keeps its prerequisites under. */
const PREREQUISITES = {
  FORWARD: { gas: 'FORWARD_GAS', energy: 'FORWARD_ENERGY', bandwidth: 'FORWARD_BANDWIDTH' },
  REFUND: { gas: 'REFUND_GAS', energy: 'REFUND_ENERGY', bandwidth: 'REFUND_BANDWIDTH' },
} as const;

/**
 * The plan of one attempt of a forward or refund (lib/energy/plan.ts), from the source the energy
 * engine chooses for it (lib/energy/engine.ts), or the outcome when there is none to carry out:
 * it waits for energy, or it is held as not worth any source the service has.
 */
async function planAttempt(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', attempt: number, reads: SendReads, signedLimit: bigint | null): Promise<SendPlan | SendOutcome> {
  const { address } = invoiceKey(p);
  const worth = worthOf(ctx, p, purpose);
  const choice = await energySourceFor(ctx, p, purpose, attempt, address, reads, worth);
  if (choice.source === 'WAIT') {
    await noteWaiting(ctx, p, choice.reason);
    return { state: 'pending' };
  }
  if (choice.source === 'HOLD') {
    // Never while a send of the attempt is stored (it may be out): it waits for its energy instead.
    if (signedLimit !== null) {
      await noteWaiting(ctx, p, `waiting for energy: the stored send's energy is not there, and ${choice.how} would cost more than the payment is worth`);
      return { state: 'pending' };
    }
    // Not worth it by any source the service has, and no pool to wait for: held as uneconomic (the merchant may release it).
    await noteWaiting(ctx, p, null);
    return { state: 'skipped', reason: uneconomicReason(p, choice.costSun, await costInUnits(ctx, p.currency as Currency, choice.costSun), worth ?? 0n, choice.how) };
  }
  const steps = PREREQUISITES[purpose];
  return planSend(ctx, p.id, choice.source, {
    address,
    gas: { purpose: steps.gas, index: attempt, address },
    energy: { purpose: steps.energy, index: attempt },
    bandwidth: { purpose: steps.bandwidth, index: attempt },
    rental: { purpose, attempt },
    // Issue 24: the send goes out once what it needs is in a head block, referencing that block, instead of once it is final.
    landed: ctx.settings.FORWARD_BEFORE_FINALITY,
    // Its stored send is checked before broadcast (underfunded) and its gas topped up for the same attempt.
    burnTopUp: true,
    signedFeeLimitSun: signedLimit,
  });
}

/**
 * Why a stored USDT send must not be broadcast now, or null (issue 22, case 2). Checked with a
 * new estimate, not the one it was built on: the price or the energy may have risen meanwhile, even
 * within the round that built it (a slow store; test/chain/energy-pool.test.ts, "the energy price
 * rises after a forward paid with lent energy is signed"), so not the round's either.
 * A fee_limit below what the send burns now would run OUT_OF_ENERGY and burn it all: the send is
 * kept back until it expires and is proven dead, then rebuilt at the new price. An address
 * holding less than the fee_limit (gas that arrived before the price rose) is topped up first.
 */
async function underfunded(ctx: WorkerContext, row: Transaction): Promise<string | null> {
  const limit = feeLimitOf(row);
  if (limit === null) return null;
  if (row.energySource === 'POOL' || row.energySource === 'RENTAL') return energyShort(ctx, row);
  const cost = await ctx.chain.estimateTransfer({ token: row.currency as Currency, from: row.fromAddress, to: row.toAddress, amount: row.amountUnits, feeLimitSun: limit });
  const burn = cost.energyFeeSun + cost.bandwidthFeeSun;
  if (limit < burn) return `its fee_limit of ${toDecimal(limit)} TRX is below the ${toDecimal(burn)} TRX it would burn now (the energy price or its energy rose since it was built); rebuilt once it is proven dead`;
  const have = await spendableTrx(ctx, row.fromAddress);
  if (have < limit) return `the address holds ${toDecimal(have)} TRX of gas, less than its fee_limit of ${toDecimal(limit)} TRX; topped up first`;
  return null;
}
