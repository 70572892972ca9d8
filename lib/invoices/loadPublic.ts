import { NETWORKS } from '@/lib/networks';
import { chainConfig } from '@/lib/config';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { chainProgress } from '@/lib/db/chainCursors';
import { parseId } from '@/lib/schemas/id';
import { confirmedTopUpUnits } from './topUps';
import { receiptEmailsOffered } from './customerEmail';
import { isPaymentLinkKey } from './linkKey';
import { limitedView, publicInvoiceView, type PublicInvoice } from './publicView';
import { unconfirmedBalances } from './unconfirmedBalances';

const MAX_PAYMENTS = 50;

/**
 * The public view of invoice `idText` (for a mass payout: its top-up page),
 * or null for an unknown or malformed id. Without the paymentURL's key `k`
 * only the limited view (docs/payment-page.md).
 */
export async function loadPublicInvoice(prisma: PrismaClient, idText: string, linkKey: string | null = null): Promise<PublicInvoice | null> {
  const id = parseId(idText);
  if (id === null) return null;
  const invoice = await prisma.invoice.findUnique({
    where: { id },
    select: {
      id: true,
      type: true,
      status: true,
      amountUsd: true,
      currencies: true,
      orderId: true,
      address: true,
      redirectUrl: true,
      description: true,
      expiredAt: true,
      clientCommission: true,
      underpaymentTolerancePercent: true,
      customerEmail: true,
      amounts: { select: { currency: true, dueUnits: true, feeUnits: true, receivedUnits: true } },
      // The profile only: the page must never see the merchant's e-mail, keys or webhook URL.
      merchant: { select: { storeName: true, supportEmail: true, supportUrl: true, logoUrl: true } },
      transactions: {
        // Seen in a block, final or not (issue 24: "seen, confirming" within a block); not one a reorganisation took out.
        where: { type: 'PAYMENT', NOT: { paymentState: 'DROPPED' }, OR: [{ solidified: true }, { blockNumber: { not: null } }] },
        select: { trnHash: true, currency: true, amountUnits: true, paymentState: true, heldReason: true, createdAt: true, blockNumber: true, solidified: true },
        orderBy: { id: 'desc' },
        // A static address can collect payments for years; the page shows the latest.
        take: MAX_PAYMENTS,
      },
    },
  });
  if (!invoice) return null;
  const { transactions: payments, merchant, customerEmail, ...rest } = invoice;
  const payout = invoice.type === 'MULTIPLE_TRANSFER';
  const payoutToken = invoice.currencies[0];
  const toppedUp = payout && payoutToken ? await confirmedTopUpUnits(prisma, invoice.id, payoutToken) : 0n;
  // Only while nothing is booked does the node say more than the worker's rows. A payout sends
  // nothing before a confirmed top-up, so until then its balance is exactly what was topped up.
  const readChain = invoice.status === 'ACTIVE' && (payout ? toppedUp === 0n : invoice.type === 'SINGLE' && payments.length === 0);
  const unconfirmed = readChain ? await unconfirmedBalances(invoice.address, invoice.currencies) : null;
  // How far the worker has read the chain, only while some payment waits for finality (two rows, no node call).
  const chain = payments.some((p) => !p.solidified && p.blockNumber !== null) ? await chainProgress(prisma) : null;
  const view = publicInvoiceView({ invoice: rest, merchant, payments, toppedUp, unconfirmed, chain, explorerTx: NETWORKS[chainConfig().network].explorerTx, ...(receiptEmailsOffered() && { receiptEmail: customerEmail }), now: new Date() });
  return isPaymentLinkKey(invoice.id, linkKey) ? view : limitedView(view);
}
