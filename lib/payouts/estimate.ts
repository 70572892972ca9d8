import { ChainError } from '@/lib/chain/errors';
import { batchCost, transferCost, type ResourceBudget } from '@/lib/chain/costs';
import type { BatchCost, Chain, ChainParameters, TransferRequest } from '@/lib/chain/types';
import { AppError } from '@/lib/errors';
import { divCeil, parseScaled } from '@/lib/money/decimal';
import { convertUnits, percentOf, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { RateSource } from '@/lib/rates/source';
import type { EnergySource } from '@/lib/generated/prisma/client';
import { rentalPriceFor } from '@/lib/energy/status';
import type { PayoutRequest, PayoutTarget } from './schemas';

export interface QuoteDeps {
  chain: Chain;
  rates: RateSource;
  /**
   * The address the node simulates the transfers from (the service gas wallet).
   * A USDT transfer() reverts unless its sender holds the amount; when this
   * address holds no USDT, `usdtSimulationSender` finds one that does.
   */
  estimateFrom: string;
  /** Service fee on the amount sent (FORWARDING_FEE_PERCENT). */
  feePercent: string;
  /** Safety margin on the network fee (GAS_MARGIN_PERCENT). */
  marginPercent: string;
  /** Energy lent or rented beyond the estimate (ENERGY_MARGIN_PERCENT): what the pool must be able to lend. */
  energyMarginPercent?: string;
  /**
   * What the energy engine can pay with now, as the worker last published it (lib/energy/status.ts),
   * or null/absent (the quote assumes burning). A USDT payout is quoted with the cheapest source
   * the run will use (docs/energy.md, "Payouts"): the pool when what it can lend beyond the next
   * hour's expected need of other sends covers the payout's energy with the margin (no energy or
   * bandwidth burned, the temporary address activated with the pool's staked bandwidth); else
   * rented energy when the provider's price scaled to the payout's energy is below burning; else
   * burning.
   */
  energy?: { poolEnergy: bigint | null; rentalColdSendPriceSun: bigint | null } | null;
}

/** What a payout will cost, all token amounts in base units of `currency`. */
export interface PayoutQuote {
  currency: Currency;
  /** USD per token used for `amountMicros` and for converting TRX fees to USDT. */
  rateUsd: string;
  targets: PayoutTarget[];
  /** Sum of the target amounts. */
  sendUnits: bigint;
  /** Their USD value (spec: `amount`). */
  amountMicros: bigint;
  energy: bigint;
  bandwidth: bigint;
  /** Targets that are not accounts yet; a TRX send to them pays the activation. */
  accountsToActivate: number;
  /** Network fee of the payout's transfers as estimated, in sun, without margin. */
  networkFeeSun: bigint;
  /** The same in the payout's token, still without margin. */
  networkFeeUnits: bigint;
  serviceFeeUnits: bigint;
  /** Service fee plus the network fee with margin: the payout's `cost`. */
  costUnits: bigint;
  /** Activating the temporary address; only USDT payouts pay it (the gas wallet's first transfer creates it). */
  activationUnits: bigint;
  /** What the merchant tops up: amounts + cost + activation. */
  topupUnits: bigint;
  /** What the quote counts on for a USDT payout's energy (the run follows it); null for TRX. */
  energySource: EnergySource | null;
}

const ONE_UNIT = 1n;
/** Balance reads in flight at once when looking among the targets for a USDT holder. */
const BALANCE_READS = 8;

/**
 * The sender to simulate USDT transfers from. Each transfer is simulated for 1
 * base unit: its energy depends on whether the recipient already holds USDT
 * (a zero storage slot made non-zero costs about twice as much), not on the
 * amount nor on who sends it, so any holder gives the payout's figures. In
 * order: the gas wallet if it holds some; a holder the chain layer finds (the
 * token's deployer, or a party to a recent USDT transfer); the target holding
 * the most. Balances are read with constant calls, which need no funded caller,
 * so an estimate never depends on the service holding the token. Null: nobody
 * found holds USDT.
 */
async function usdtSimulationSender(chain: Chain, gasWallet: string, targets: PayoutTarget[]): Promise<string | null> {
  if ((await chain.getUsdtBalance(gasWallet)) >= ONE_UNIT) return gasWallet;
  const found = await chain.findUsdtHolder(ONE_UNIT);
  if (found) return found;
  let best: { address: string; units: bigint } | null = null;
  for (let i = 0; i < targets.length; i += BALANCE_READS) {
    const slice = targets.slice(i, i + BALANCE_READS);
    const balances = await Promise.all(slice.map((t) => chain.getUsdtBalance(t.address)));
    slice.forEach((t, j) => {
      if (balances[j]! >= ONE_UNIT && (!best || balances[j]! > best.units)) best = { address: t.address, units: balances[j]! };
    });
  }
  return (best as { address: string } | null)?.address ?? null;
}

/** Sun a transfer that creates an account burns besides bandwidth (system fee + create-account fee). */
const accountCreationSun = (p: ChainParameters) => p.createAccountSystemFeeSun + p.createAccountFeeSun;

/**
 * The chain layer's estimate of each transfer (node energy, size as built,
 * whether the recipient is an account), re-costed in order against `budget`:
 * what the paying address will really have, not what the simulating one has.
 */
export async function estimateTransfers(chain: Chain, transfers: TransferRequest[], budget: ResourceBudget): Promise<BatchCost> {
  const [params, batch] = await Promise.all([chain.getChainParameters(), chain.estimateBatch(transfers)]);
  return batchCost(batch.transfers.map((t) => transferCost(t, budget, params)));
}

/**
 * Prices a payout with the chain layer's real estimation (node energy
 * estimates, the size of each transaction as built, which targets are not yet
 * accounts), then re-costs every transfer as the temporary address will pay
 * it: a fresh account with only the free daily bandwidth and nothing staked,
 * whatever the simulating address has.
 */
export async function quotePayout(deps: QuoteDeps, request: PayoutRequest): Promise<PayoutQuote> {
  const { chain, rates } = deps;
  const { currency, target_wallets: targets } = request;
  try {
    // A target that is itself the sender is simulated as a transfer to itself: it holds USDT, so it costs what paying a holder costs.
    const from = currency === 'USDT' ? await usdtSimulationSender(chain, deps.estimateFrom, targets) : deps.estimateFrom;
    if (from === null) {
      throw new AppError('UNAVAILABLE', 'USDT payouts cannot be estimated: no address holding USDT was found on the chain to simulate transfers from; try again later');
    }
    const [params, quote, trx] = await Promise.all([chain.getChainParameters(), rates.quote(currency), rates.quote('TRX')]);
    const fresh = { freeBandwidth: params.freeBandwidthBytes, stakedBandwidth: 0n, stakedEnergy: 0n };
    const batch = await estimateTransfers(
      chain,
      targets.map((t) => ({ token: currency, from, to: t.address, amount: currency === 'USDT' ? ONE_UNIT : t.units })),
      fresh,
    );
    // The energy the run would lend or rent: the estimate with ENERGY_MARGIN_PERCENT, and a unit per send (lib/energy/waves.ts).
    const energyNeed = withMargin(batch.energy + BigInt(targets.length), deps.energyMarginPercent ?? '10');
    const energy = currency === 'USDT' ? deps.energy : null;
    // The pool pays: nothing burned but the activations; the run waits for the pool rather than burn (docs/energy.md).
    const pooled = energy?.poolEnergy != null && energy.poolEnergy >= energyNeed;
    const rentSun = !pooled && energy?.rentalColdSendPriceSun != null ? rentalPriceFor(energy.rentalColdSendPriceSun, energyNeed) : null;
    const rented = rentSun !== null && rentSun < batch.energyFeeSun;
    const networkFeeSun = pooled ? batch.activationFeeSun : rented ? rentSun + batch.bandwidthFeeSun + batch.activationFeeSun : batch.totalFeeSun;
    const energySource: EnergySource | null = currency !== 'USDT' ? null : pooled ? 'POOL' : rented ? 'RENTAL' : 'BURN';
    const rate = parseScaled(quote.rateUsd, RATE_DECIMALS);
    const toToken = (sun: bigint) => (currency === 'TRX' ? sun : convertUnits(sun, parseScaled(trx.rateUsd, RATE_DECIMALS), rate));
    const sendUnits = targets.reduce((sum, t) => sum + t.units, 0n);
    const serviceFeeUnits = percentOf(sendUnits, deps.feePercent);
    const costUnits = serviceFeeUnits + toToken(withMargin(networkFeeSun, deps.marginPercent));
    const activationUnits = currency === 'USDT' ? toToken(pooled ? params.createAccountSystemFeeSun : accountCreationSun(params)) : 0n;
    return {
      currency,
      rateUsd: quote.rateUsd,
      targets,
      sendUnits,
      amountMicros: divCeil(sendUnits * rate, 10n ** BigInt(RATE_DECIMALS)),
      energy: batch.energy,
      bandwidth: batch.bandwidth,
      accountsToActivate: batch.accountsCreated,
      networkFeeSun,
      networkFeeUnits: toToken(networkFeeSun),
      serviceFeeUnits,
      costUnits,
      activationUnits,
      topupUnits: sendUnits + costUnits + activationUnits,
      energySource,
    };
  } catch (err) {
    if (err instanceof ChainError) throw new AppError('UNAVAILABLE', `The Tron node could not estimate the payout (${err.message}); try again later`);
    throw err;
  }
}
