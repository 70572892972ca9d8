import { ChainError } from '@/lib/chain/errors';
import { batchCost, transferCost, type ResourceBudget } from '@/lib/chain/costs';
import type { BatchCost, Chain, ChainParameters, TransferRequest } from '@/lib/chain/types';
import { ApiError } from '@/lib/http/errors';
import { divCeil, parseScaled } from '@/lib/money/decimal';
import { convertUnits, percentOf, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { RateSource } from '@/lib/rates/source';
import type { PayoutRequest, PayoutTarget } from './schemas';

export interface QuoteDeps {
  chain: Chain;
  rates: RateSource;
  /**
   * A funded address the node can simulate the transfers from (the service gas
   * wallet). For USDT it must hold at least one base unit: each transfer is
   * simulated for 1 unit, since energy depends on the recipient, not the amount.
   */
  estimateFrom: string;
  /** Service fee on the amount sent (FORWARDING_FEE_PERCENT). */
  feePercent: string;
  /** Safety margin on the network fee (GAS_MARGIN_PERCENT). */
  marginPercent: string;
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
}

const ONE_UNIT = 1n;

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
    if (currency === 'USDT' && (await chain.getUsdtBalance(deps.estimateFrom)) < ONE_UNIT) {
      throw new ApiError(503, 'USDT payouts cannot be estimated: the service gas wallet must hold some USDT to simulate transfers; try again later');
    }
    const [params, quote, trx] = await Promise.all([chain.getChainParameters(), rates.quote(currency), rates.quote('TRX')]);
    const fresh = { freeBandwidth: params.freeBandwidthBytes, stakedBandwidth: 0n, stakedEnergy: 0n };
    const batch = await estimateTransfers(
      chain,
      targets.map((t) => ({ token: currency, from: deps.estimateFrom, to: t.address, amount: currency === 'USDT' ? ONE_UNIT : t.units })),
      fresh,
    );
    const networkFeeSun = batch.totalFeeSun;
    const rate = parseScaled(quote.rateUsd, RATE_DECIMALS);
    const toToken = (sun: bigint) => (currency === 'TRX' ? sun : convertUnits(sun, parseScaled(trx.rateUsd, RATE_DECIMALS), rate));
    const sendUnits = targets.reduce((sum, t) => sum + t.units, 0n);
    const serviceFeeUnits = percentOf(sendUnits, deps.feePercent);
    const costUnits = serviceFeeUnits + toToken(withMargin(networkFeeSun, deps.marginPercent));
    const activationUnits = currency === 'USDT' ? toToken(accountCreationSun(params)) : 0n;
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
    };
  } catch (err) {
    if (err instanceof ChainError) throw new ApiError(503, `The Tron node could not estimate the payout (${err.message}); try again later`);
    throw err;
  }
}
