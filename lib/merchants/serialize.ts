import type { Merchant } from '@/lib/generated/prisma/client';
import { toJsonNumber } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { MerchantAccountJson } from './schemas';

/** The Merchant account object of spec 2.4. */
export function merchantJson(m: Merchant): MerchantAccountJson {
  return {
    email: m.email,
    balance: toJsonNumber(m.balanceSun, TOKEN_DECIMALS),
    target_wallet_address: m.targetWalletAddress,
    topup_wallet_address: m.topupWalletAddress,
    activation_wallet_address: m.activationWalletAddress,
    activation_balance: toJsonNumber(m.activationBalanceSun, TOKEN_DECIMALS),
    aml_check: m.amlCheck,
    aml_risk_limit: Number(m.amlRiskLimit.toFixed()),
  };
}
