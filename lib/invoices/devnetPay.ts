import type { PrismaClient } from '@/lib/generated/prisma/client';
import { AppError, invalidInput, notFound } from '@/lib/errors';
import { devnetUrl, payFromFaucet } from '@/lib/devnet/faucet';
import type { Currency } from '@/lib/money/tokens';
import { loadPublicInvoice } from './loadPublic';
import { isPayable } from './payable';
import { INVOICE_NOT_FOUND } from './service';

// A static address takes any amount; this is what one demo click sends.
const STATIC_DEMO_AMOUNT = '10';

export interface DevnetPayment {
  txid: string;
  amount: string;
  currency: Currency;
}

/**
 * Development only: pays invoice `idText` from the devnet faucet in `currency` (null when the
 * request named no known token), so a person can try the whole flow without a wallet: what is
 * still missing in that token, or a demo amount on a static address. On any other chain it is
 * NOT_FOUND, as if the page's devnet-pay route did not exist (docs/payment-page.md).
 */
export async function payInvoiceFromDevnet(prisma: PrismaClient, idText: string, currency: Currency | null): Promise<DevnetPayment> {
  const url = await devnetUrl();
  if (!url) throw notFound('Not found.');
  const view = await loadPublicInvoice(prisma, idText);
  if (!view) throw notFound(INVOICE_NOT_FOUND);
  const token = view.tokens.find((t) => t.currency === currency);
  if (!token) throw invalidInput(`currency: must be one of ${view.tokens.map((t) => t.currency).join(', ')}`);
  const amount = token.missing ?? STATIC_DEMO_AMOUNT;
  if (!isPayable(view) || amount === '0') throw new AppError('CONFLICT', 'Nothing to pay on this invoice');
  try {
    const txid = await payFromFaucet(url, { address: view.address, amount, currency: token.currency });
    return { txid, amount, currency: token.currency };
  } catch (err) {
    throw new AppError('UPSTREAM_FAILED', `Devnet payment failed: ${(err as Error).message}`);
  }
}
