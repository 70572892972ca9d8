import type { RefBlock, TransferCost } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { withMargin } from '@/lib/money/fees';
import { type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { EnergyUnavailable, energyAvailable, lend } from '@/lib/energy/pool';
import { burnWithinCap, cheapestCostSun, costInUnits, energyShort, energySourceFor, energyToHold, noteWaiting } from '@/lib/energy/engine';
import { rentEnergy, rentalFor } from '@/lib/energy/rentals';
import { ensureGas, spendableTrx } from '@/lib/sends/gas';
import { ensureSend, exhausted, feeLimitOf, latestSend, nextAttempt, type PlannedSend, type SendOutcome } from '@/lib/sends/steps';
import { type Payment, toDecimal, invoiceKey } from './payment';
import { paymentFee } from '@/lib/rules/settlement';

/** Sends from an invoice address: judged worth it first, gas bought for USDT, sized at the current price, never broadcast underfunded. */
export const REFUND_NOT_WORTH_IT = 'AML failed, and returning it would cost more than it is worth';

/**
 * Whether sending this payment on costs more than it is worth (issue 13, cases 3 and 4):
 * the network cost of the forward or refund (for USDT: its gas, at current rates) against
 * what the merchant would receive or the sender get back. Judged once, before anything is
 * sent, gas included (issue 22, case 7); null when it is worth it.
 */
export async function uneconomic(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, fee: bigint): Promise<string | null> {
  if (await latestSend(ctx, p.id, { purpose })) return null;
  if (await latestSend(ctx, p.id, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: 1 })) return null;
  const worth = p.amountUnits - fee;
  const from = invoiceKey(p).address;
  const cost = await ctx.chain.estimateTransfer({ token: p.currency as Currency, from, to, amount: p.amountUnits });
  // The cheapest source's cost (with the pool: activation and bandwidth only; docs/energy.md).
  const costSun = await cheapestCostSun(ctx, from, cost);
  const costInToken = await costInUnits(ctx, p.currency as Currency, costSun);
  if (costInToken < worth) return null;
  if (purpose === 'REFUND') return REFUND_NOT_WORTH_IT;
  return uneconomicReason(p, costSun, costInToken, worth);
}

/**
 * Why a USDT send of the payment to `to` must not be made (issue 37), or null. Tether's contract
 * keeps a blacklist: a transfer from a frozen address reverts (burning the energy paid for it,
 * every attempt), and USDT sent to a frozen one can never be moved again. Asked before a new
 * attempt buys gas or energy; a send already out is followed to its end.
 */
export async function frozenReason(ctx: WorkerContext, p: Payment, to: string, what: string): Promise<string | null> {
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
 * Sends `amount` of the payment's token from the invoice address to `to`. USDT
 * first needs TRX at the invoice address for energy, funded from the gas wallet
 * (lib/sends/gas.ts), keyed by the send attempt it funds. Gas, fee_limit and
 * the attempt check share one estimate per round, read fresh from the node (the
 * energy price and the energy as they are now: docs/worker.md, "Sends").
 */
export async function sendFromInvoice(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, amountFor: (burnSun: bigint) => Promise<bigint>): Promise<SendOutcome> {
  const { address, privateKey } = invoiceKey(p);
  const token = p.currency as Currency;
  // `to` can change between attempts (a release to another address): a refusal for good ends the step only for the address refused.
  const step = { purpose, address, to } as const;
  if (token === 'TRX') {
    return ensureSend(ctx, p, step, async (refBlock) => {
      const cost = await ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
      const amount = await amountFor(cost.totalFeeSun);
      if (amount <= 0n) return null;
      const signed = await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount, refBlock);
      return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: token, costPayer: 'PAYMENT', signed, createsAccount: cost.createsAccount };
    });
  }
  let estimated: Promise<TransferCost> | undefined;
  const estimate = () => (estimated ??= ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits }));
  // What the send burns (energy and bandwidth); its fee_limit, and the gas the address must hold, add GAS_MARGIN_PERCENT.
  const burnNow = async () => {
    const cost = await estimate();
    return cost.energyFeeSun + cost.bandwidthFeeSun;
  };
  const feeLimitNow = async () => withMargin(await burnNow(), ctx.settings.GAS_MARGIN_PERCENT);
  // A call may use at most fee_limit / price energy, its own (lent or rented) included (java-tron's rule,
  // modelled by the devnet). So a send paid with lent or rented energy carries the energy it was lent for
  // (the estimate with ENERGY_MARGIN_PERCENT, as lent) at the price: all of it the address's own energy,
  // never more than it holds, so it can burn no TRX for energy, and none that is not gas (the address may
  // hold a customer's TRX or a kept fee: issue 23; checked again before broadcast, energyShort). An
  // estimate short of the energy then fails OUT_OF_ENERGY on lent energy and is judged as any such failure.
  const lentFeeLimit = async () => {
    const [cost, params] = await Promise.all([estimate(), ctx.chain.getChainParameters()]);
    return withMargin(cost.energy * params.energyFeeSun, ctx.settings.ENERGY_MARGIN_PERCENT);
  };
  // Burning after a partly filled rental: the whole energy's burn (see the BURN step below), all of it gas.
  const wholeBurnFeeLimit = async () => {
    const [cost, params] = await Promise.all([estimate(), ctx.chain.getChainParameters()]);
    return withMargin(cost.energy * params.energyFeeSun + cost.bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT);
  };
  const costPayer = purpose === 'FORWARD' ? 'MERCHANT' : 'SERVICE';
  // Issue 24: the send goes out once what it needs (activation, lent or rented energy) is in a head
  // block, referencing that block, instead of once it is final. Not for burning: the gas is counted
  // from the ledger (spendableTrx), which books it only when final.
  const fast = ctx.settings.FORWARD_BEFORE_FINALITY;
  const gasFor = (attempt: number, needSun: () => Promise<bigint>, energySource: 'POOL' | 'RENTAL' | 'BURN') =>
    ensureGas(ctx, p, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: attempt, address }, address, needSun, costPayer, { topUp: true, energySource, landed: fast && energySource !== 'BURN' });
  // With the pool's energy the address needs TRX only to exist (activation: the gas wallet pays the
  // 1 TRX fee, the smallest transfer suffices); bandwidth beyond its free daily allowance is lent too.
  const poolGasNeed = async () => ((await ctx.chain.isActivated(address)) ? 0n : 1n);
  // Bytes to lend: none while the free allowance (or stake) covers the send, which the estimate says by burning nothing for it.
  const bandwidthToLend = async () => ((await estimate()).bandwidthFeeSun > 0n ? (await estimate()).bandwidth : 0n);
  /** Energy and gas for one attempt from the source chosen for it (lib/energy/engine.ts); null when the send may go. */
  let source: 'POOL' | 'RENTAL' | 'BURN' = 'BURN';
  let fullLimit = false;
  const arrange = async (attempt: number, signedLimit: bigint | null): Promise<SendOutcome | null> => {
    const worth = worthOf(ctx, p, purpose);
    const choice = await energySourceFor(ctx, p, purpose, attempt, address, estimate, worth);
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
    source = choice.source;
    if (choice.source === 'BURN') {
      // A call may use at most fee_limit / price energy, its own energy included (java-tron's rule, modelled
      // by the devnet): after a partly filled rental, or with energy lent earlier still there, the address holds
      // some energy and the estimate's burn is only the rest, so the fee_limit (and the gas, which must cover
      // it) carries the whole energy's burn.
      fullLimit = ((await rentalFor(ctx, p.id, purpose, attempt))?.priceSun ?? null) !== null || (await energyAvailable(ctx, address)) > 0n;
      const gas = await gasFor(attempt, signedLimit === null ? (fullLimit ? wholeBurnFeeLimit : feeLimitNow) : async () => signedLimit, 'BURN');
      return gas.state === 'pending' || gas.state === 'exhausted' ? gas : null;
    }
    if (choice.source === 'RENTAL') {
      // Rented energy (lib/energy/rentals.ts): the provider delegates only to an account, so the gas
      // wallet activates the address first (1 sun, as for the pool); bandwidth beyond the free
      // allowance is the address's to burn, so its gas covers that.
      const rentalGas = async () => ((await ctx.chain.isActivated(address)) ? withMargin((await estimate()).bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT) : 1n);
      const gas = await gasFor(attempt, rentalGas, 'RENTAL');
      if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
      const rented = await rentEnergy(ctx, p, purpose, attempt, address, (await estimate()).energy, () => burnWithinCap(ctx, estimate));
      if (rented.state === 'waiting') {
        await noteWaiting(ctx, p, rented.reason);
        return { state: 'pending' };
      }
      // Fallen back: the next round chooses again (burn within the cap, or wait), with the reason recorded.
      if (rented.state === 'fallback') return { state: 'pending' };
      await noteWaiting(ctx, p, null);
      return null;
    }
    const gas = await gasFor(attempt, poolGasNeed, 'POOL');
    if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
    try {
      const energy = await lend(ctx, p, { purpose: purpose === 'FORWARD' ? 'FORWARD_ENERGY' : 'REFUND_ENERGY', index: attempt }, address, 'ENERGY', () => energyToHold(ctx, estimate, signedLimit), costPayer, { landed: fast, margin: false });
      if (energy.state === 'pending' || energy.state === 'exhausted') return energy;
      const bandwidth = await lend(ctx, p, { purpose: purpose === 'FORWARD' ? 'FORWARD_BANDWIDTH' : 'REFUND_BANDWIDTH', index: attempt }, address, 'BANDWIDTH', bandwidthToLend, costPayer, { landed: fast }).catch(async (err: unknown) => {
        if (!(err instanceof EnergyUnavailable)) throw err;
        // The pool's bandwidth is used up for today: the address burns its few hundred bytes instead (gas for them).
        return gasFor(attempt, async () => (await estimate()).bandwidthFeeSun, 'POOL');
      });
      if (bandwidth.state === 'pending' || bandwidth.state === 'exhausted') return bandwidth;
      await noteWaiting(ctx, p, null);
    } catch (err) {
      if (!(err instanceof EnergyUnavailable)) throw err;
      await noteWaiting(ctx, p, `waiting for energy: ${err.message}`);
      return { state: 'pending' };
    }
    return null;
  };
  const latest = await latestSend(ctx, p.id, step);
  const attempt = nextAttempt(latest);
  // The attempt a send built this round is (ensureSend numbers it the same way).
  const attemptBuilt = attempt;
  if (attempt !== null) {
    // No gas for an attempt that will not be made (issue 22, case 6): the attempt limit first.
    const spent = await exhausted(ctx, p, step, burnNow);
    if (spent) return { state: 'exhausted', ...spent };
    const notReady = await arrange(attempt, null);
    if (notReady) return notReady;
  } else if (latest?.sendState === 'SIGNED') {
    // Stored and not known to be out: before it is broadcast the address holds its energy (pool) or
    // its fee_limit in gas (burn), topped up for the same attempt if short (it is never rebuilt
    // unless proven dead: a worker that died after broadcasting it may not have recorded that).
    const limit = feeLimitOf(latest);
    if (limit !== null) {
      const notReady = await arrange(latest.sendAttempt ?? 1, limit);
      if (notReady) return notReady;
    }
  }
  const plan = async (refBlock: RefBlock | undefined): Promise<PlannedSend | null> => {
    const cost = await estimate();
    // With lent or rented energy the send burns only its bandwidth; a refund also deducts what the energy was rented for.
    const pool = source !== 'BURN';
    const rented = source === 'RENTAL' && attemptBuilt !== null ? ((await rentalFor(ctx, p.id, purpose, attemptBuilt))?.priceSun ?? 0n) : 0n;
    const amount = await amountFor(pool ? cost.bandwidthFeeSun + rented : cost.energyFeeSun + cost.bandwidthFeeSun);
    if (amount <= 0n) return null;
    return {
      type: 'TRANSFER',
      from: address,
      to,
      amountUnits: amount,
      currency: token,
      // A USDT forward's energy is the merchant's; a refund's is deducted from what is returned.
      costPayer: purpose === 'FORWARD' ? 'MERCHANT' : 'PAYMENT',
      signed: await ctx.chain.buildSignedUsdtTransfer(privateKey, to, amount, pool ? await lentFeeLimit() : fullLimit ? await wholeBurnFeeLimit() : await feeLimitNow(), refBlock),
      energy: { energySource: source, energyUnits: cost.energy },
    };
  };
  const outcome = await ensureSend(ctx, p, step, plan, { burnNowSun: burnNow, beforeBroadcast: (row) => underfunded(ctx, row) });
  if (outcome.state !== 'pending' && p.waitingReason) await noteWaiting(ctx, p, null);
  return outcome;
}

/**
 * Why a stored USDT send must not be broadcast now, or null (issue 22, case 2). Checked with a
 * new estimate, not the one it was built on: the price or the energy may have risen meanwhile.
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
