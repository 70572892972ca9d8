import { parseScaled } from '@/lib/money/decimal';
import { convertUnits, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS } from '@/lib/money/tokens';
import type { RateSource } from './source';

/** A network cost paid in TRX, as a USDT payment pays it: the sun with the margin, its USDT units, and the rates used. */
export interface GasInUsdt {
  /** `burnSun` with the margin: what is set aside in TRX. */
  gasSun: bigint;
  /** `gasSun` in USDT base units at `trxRateUsd` / `usdtRateUsd`, rounded up. */
  units: bigint;
  trxRateUsd: string;
  usdtRateUsd: string;
}

/**
 * The one conversion of a network cost into USDT: `burnSun` raised by `marginPercent`
 * (GAS_MARGIN_PERCENT), at the current rates, rounded up. A forward's worth rule, a held
 * payment's refund, a refund funded from held money and a payout's excess return all judge and
 * deduct a USDT send's cost with it, so they never disagree on what the same send costs.
 */
export async function gasInUsdt(rates: RateSource, burnSun: bigint, marginPercent: string): Promise<GasInUsdt> {
  const [trx, usdt] = await Promise.all([rates.quote('TRX'), rates.quote('USDT')]);
  const gasSun = withMargin(burnSun, marginPercent);
  return { gasSun, units: convertUnits(gasSun, parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS)), trxRateUsd: trx.rateUsd, usdtRateUsd: usdt.rateUsd };
}
