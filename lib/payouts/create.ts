import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { chain } from '@/lib/chain';
import { config } from '@/lib/config';
import { gasWalletAddress } from '@/lib/merchants/accounts';
import { payoutEnergyStatus } from '@/lib/energy/status';
import type { Merchant, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { invoiceInclude, type InvoiceRecord } from '@/lib/invoices/serialize';
import { allocateInvoiceAddress } from '@/lib/invoices/service';
import { formatScaled, toJsonNumber } from '@/lib/money/decimal';
import { tokenAmountJson, USD_DECIMALS } from '@/lib/money/tokens';
import { rateSource } from '@/lib/rates';
import type { QuoteDeps, PayoutQuote } from './estimate';
import type { PayoutEstimateJson, PayoutTarget } from './schemas';
import type { PayoutTargetJson } from '@/lib/invoices/storedTargets';

/** The web process's quoting inputs: the configured node, rates, fee and margin, and (read through `prisma`) the gas wallet to simulate from and the pool's published energy. */
export async function apiQuoteDeps(prisma: PrismaClient): Promise<QuoteDeps> {
  const c = config();
  return {
    chain: chain(),
    rates: rateSource(),
    // From account 0's xpub (lib/merchants/accounts.ts): the web holds no mnemonic.
    estimateFrom: await gasWalletAddress(prisma),
    feePercent: c.FORWARDING_FEE_PERCENT,
    marginPercent: c.GAS_MARGIN_PERCENT,
    energyMarginPercent: c.ENERGY_MARGIN_PERCENT,
    // What the energy pool can lend now and what rented energy costs, as the worker last published it (docs/energy.md, "Payouts").
    energy: await payoutEnergyStatus(prisma),
  };
}

/** The list as stored on the invoice and echoed by the API: amounts as exact JSON numbers. */
const targetsJson = (targets: PayoutTarget[]): PayoutTargetJson[] => targets.map((t) => ({ address: t.address, amount: tokenAmountJson(t.units) }));

/**
 * The mass payout cost estimate of spec 2.6, plus the parts it is made of:
 * cost = service_fee + network_fee raised by GAS_MARGIN_PERCENT;
 * topup_amount = sum of the amounts + cost + activation_cost.
 */
export function estimateJson(q: PayoutQuote): PayoutEstimateJson {
  return {
    amount: toJsonNumber(q.amountMicros, USD_DECIMALS),
    currency: q.currency,
    target_wallets: targetsJson(q.targets),
    need_energy: Number(q.energy),
    need_bandwidth: Number(q.bandwidth),
    cost: tokenAmountJson(q.costUnits),
    activation_cost: tokenAmountJson(q.activationUnits),
    service_fee: tokenAmountJson(q.serviceFeeUnits),
    network_fee: tokenAmountJson(q.networkFeeUnits),
    accounts_to_activate: q.accountsToActivate,
    topup_amount: tokenAmountJson(q.topupUnits),
    energy_source: q.energySource,
  };
}

/**
 * A MULTIPLE_TRANSFER invoice (spec 4.5) with a fresh temporary top-up address.
 * `currencies_amounts` asks for the quote's top-up; the payout loop sends once
 * that much has arrived, or the invoice times out at `expired_at`.
 */
export async function createPayout(prisma: PrismaClient, merchant: Merchant, q: PayoutQuote, by: AuditBy): Promise<InvoiceRecord> {
  const address = await allocateInvoiceAddress(prisma, merchant);
  // The payout and its audit row (who asked, to which addresses, how much) commit together.
  return prisma.$transaction(async (tx) => {
    const payout = await tx.invoice.create({ data: payoutData(merchant.id, q, address), include: invoiceInclude });
    await recordAudit(tx, by, { merchantId: merchant.id, action: 'payout_created', subject: payout.id, after: { currency: q.currency, target_wallets: targetsJson(q.targets), topup_amount: tokenAmountJson(q.topupUnits) } });
    return payout;
  });
}

/**
 * The row of a new payout at `address` (allocateInvoiceAddress), for a caller that writes it in its
 * own transaction (a refund's payout, lib/refunds/service.ts), with its description.
 */
export function payoutData(merchantId: number, q: PayoutQuote, address: { address: string; addressIndex: number }, description: string | null = null) {
  const createdAt = new Date();
  return {
    merchantId,
    type: 'MULTIPLE_TRANSFER' as const,
    amountUsd: formatScaled(q.amountMicros, USD_DECIMALS),
    currencies: [q.currency],
    ...address,
    clientCommission: false,
    description,
    targetWallets: targetsJson(q.targets),
    createdAt,
    expiredAt: new Date(createdAt.getTime() + config().DEFAULT_EXPIRY_MINUTES * 60_000),
    amounts: { create: [{ currency: q.currency, rateUsd: q.rateUsd, dueUnits: q.topupUnits, feeUnits: q.costUnits + q.activationUnits }] },
    quotedEnergySource: q.energySource,
    // Each target's state row (PENDING), moved from here on only by changeTargetState (lib/payouts/targets.ts).
    payoutTargets: { create: q.targets.map((t, index) => ({ index, address: t.address, amountUnits: t.units })) },
  } satisfies Prisma.InvoiceUncheckedCreateInput;
}
