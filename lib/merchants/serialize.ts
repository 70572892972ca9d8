import type { Merchant } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import type { MerchantAccountJson } from './schemas';

/** The Merchant account object of spec 2.4. */
export function merchantJson(m: Merchant): MerchantAccountJson {
  return {
    email: m.email,
    balance: tokenAmountJson(m.balanceSun),
    target_wallet_address: m.targetWalletAddress,
    topup_wallet_address: m.topupWalletAddress,
    activation_wallet_address: m.activationWalletAddress,
    activation_balance: tokenAmountJson(m.activationBalanceSun),
    aml_check: m.amlCheck,
    aml_risk_limit: Number(m.amlRiskLimit.toFixed()),
  };
}
