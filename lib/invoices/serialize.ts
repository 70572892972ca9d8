import { paymentUrl } from './linkKey';
import type { Invoice, InvoiceCurrency, Prisma } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { parseFailedTargets, parseStoredTargets } from './storedTargets';
import { isoMicro } from '@/lib/time';
import type { InvoiceJson } from './schemas';

export type { InvoiceJson } from './schemas';

export type InvoiceRecord = Invoice & { amounts: InvoiceCurrency[]; merchant: { email: string } };

/** Relations every invoice response needs; pass to Prisma's `include`. */
export const invoiceInclude = { amounts: true, merchant: { select: { email: true } } } as const;

/**
 * The invoice columns invoiceJson reads. The list selects only these: not the encrypted key, the
 * worker's lease or the bookkeeping columns, which a page of 300 would otherwise fetch and
 * convert 300 times for nothing (issue 16).
 */
export const invoiceJsonColumns = {
  id: true, status: true, type: true, amountUsd: true, currencies: true, costUnits: true, networkCostSun: true, orderId: true, address: true, clientCommission: true,
  webhookUrl: true, redirectUrl: true, description: true, targetWallets: true, failedTargets: true, expiredAt: true, createdAt: true,
} as const satisfies Prisma.InvoiceSelect;

/** What invoiceJson needs: those columns, the currency rows and the merchant's contact. */
export type InvoiceJsonSource = Pick<Invoice, keyof typeof invoiceJsonColumns> & { amounts: InvoiceCurrency[]; merchant: { email: string } };

function perCurrency(invoice: InvoiceJsonSource, pick: (row: InvoiceCurrency) => bigint): Record<string, number> {
  return Object.fromEntries(
    invoice.currencies.map((c) => {
      const row = invoice.amounts.find((a) => a.currency === c);
      return [c, tokenAmountJson(row ? pick(row) : 0n)];
    }),
  );
}

/** The Invoice object of spec 2.1: every field, in the spec's order. */
export function invoiceJson(invoice: InvoiceJsonSource): InvoiceJson {
  const payout = invoice.type === 'MULTIPLE_TRANSFER';
  return {
    id: invoice.id,
    status: invoice.status,
    type: invoice.type,
    // The spec's shape, /payment/<id>, plus the link key (lib/invoices/linkKey.ts, docs/payment-page.md).
    paymentURL: paymentUrl(invoice.id),
    amount: invoice.amountUsd ? Number(invoice.amountUsd.toFixed()) : 0,
    currencies: invoice.currencies,
    // A payout's field table names a single `currency` (spec 2.1 note); it is given beside the list.
    ...(payout && { currency: invoice.currencies[0] }),
    currencies_amounts: perCurrency(invoice, (a) => a.dueUnits),
    transfer_amounts: {
      input: perCurrency(invoice, (a) => a.receivedUnits),
      output: perCurrency(invoice, (a) => a.forwardedUnits),
    },
    cost: invoice.costUnits === null ? null : tokenAmountJson(invoice.costUnits),
    // An addition to the spec (docs/api.md): the network's cost, not the service fee `cost` is.
    network_cost_trx: tokenAmountJson(invoice.networkCostSun),
    order_id: invoice.orderId,
    address: invoice.address,
    // Both spellings: the spec's tables say client_comission, its samples client_commission.
    client_comission: invoice.clientCommission,
    client_commission: invoice.clientCommission,
    webhook_url: invoice.webhookUrl,
    redirect_url: invoice.redirectUrl,
    description: invoice.description,
    merchant_contact: invoice.merchant.email,
    // Stored by lib/payouts/create.ts as targetsJson(): the list the API echoes.
    target_wallets: payout ? parseStoredTargets(invoice.targetWallets) : {},
    // Targets a payout could not pay (status ERROR); their amounts stay at the top-up address.
    ...(payout && { failed_targets: parseFailedTargets(invoice.failedTargets) }),
    expired_at: isoMicro(invoice.expiredAt),
    created_at: isoMicro(invoice.createdAt),
  };
}

