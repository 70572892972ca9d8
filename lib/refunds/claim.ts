import { NETWORKS } from '@/lib/networks';
import { chain as defaultChain } from '@/lib/chain';
import type { Chain } from '@/lib/chain/types';
import { chainConfig } from '@/lib/config';
import { AppError, invalidInput, notFound } from '@/lib/errors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { publicMerchant, type PublicMerchant } from '@/lib/invoices/publicView';
import { allocateInvoiceAddress } from '@/lib/invoices/service';
import { tokenAmountText, type Currency } from '@/lib/money/tokens';
import { notifyRefundClaimed } from '@/lib/notify/refundClaimed';
import { parseOrThrow } from '@/lib/validation';
import { isRefundClaimKey } from './claimKey';
import { claimRefundSchema, type RefundStatus } from './schemas';
import { quoteRefund, refuseBadRefundAddress, REFUND_NOT_FOUND, writeRefundPayout } from './service';
import { tellRefund } from './events';
import { changeRefundState } from './states';
import { refundInclude, refundStatus, refundTrnHash, type RefundRecord } from './view';
import { heldCommittedTo, releaseCommitted } from './held';

/**
 * What the customer sees at a refund's claim link (`/payment/refund/<id>?k=<key>`, docs/refunds.md): what
 * is refunded, by whom, to where once entered, and how far it has gone. Nothing of the merchant's
 * records (their note, the payout, the top-up, what it costs them).
 */
export interface RefundClaimView {
  id: number;
  invoice: number;
  status: RefundStatus;
  currency: Currency;
  amount: string;
  /** Where it goes, once entered (by the customer, or by the merchant when they gave it). */
  address: string | null;
  /** Whether the page asks for the address now. */
  claimable: boolean;
  /** The transfer to the customer, once sent, and where to see it. */
  sent: { trn_hash: string; explorer_url: string | null } | null;
  merchant: PublicMerchant | null;
}

const ADDRESS_SET = 'This refund already has its address; it cannot be changed.';

/** Characters compared at each end: poisoning addresses are made to match a few at each end. */
const LOOKALIKE_ENDS = 4;

/**
 * Addresses the invoice saw (its payers, and whoever sent it anything, dust included) that share
 * their first and last characters with `address` but are not it: the mark of address poisoning, a
 * look-alike sent dust so that it appears in the customer's history beside their own.
 */
export function lookalikes(address: string, seen: readonly string[]): string[] {
  const ends = (a: string) => `${a.slice(0, LOOKALIKE_ENDS + 1)}…${a.slice(-LOOKALIKE_ENDS)}`;
  return [...new Set(seen)].filter((s) => s !== address && ends(s) === ends(address));
}

async function claimable(prisma: PrismaClient, id: number, key: string | null): Promise<RefundRecord & { merchant: Parameters<typeof publicMerchant>[0] }> {
  const refund = Number.isSafeInteger(id) && isRefundClaimKey(id, key) ? await prisma.refund.findFirst({ where: { id, claim: true }, include: { ...refundInclude, merchant: { select: { storeName: true, supportEmail: true, supportUrl: true, logoUrl: true } } } }) : null;
  // A wrong key is as an unknown id: the link opens nothing without it.
  if (!refund) throw notFound(REFUND_NOT_FOUND);
  return refund;
}

function claimView(r: Awaited<ReturnType<typeof claimable>>): RefundClaimView {
  const { status } = refundStatus(r);
  const trnHash = refundTrnHash(r);
  const explorerTx = NETWORKS[chainConfig().network].explorerTx;
  return {
    id: r.id,
    invoice: r.invoiceId,
    status,
    currency: r.currency,
    amount: tokenAmountText(r.amountUnits),
    address: r.address,
    claimable: status === 'WAITING_ADDRESS',
    sent: trnHash ? { trn_hash: trnHash, explorer_url: explorerTx ? `${explorerTx}${trnHash}` : null } : null,
    merchant: publicMerchant(r.merchant),
  };
}

/** The refund id in the link's path; anything else opens nothing (NaN, found by no query). */
const refundIdOf = (idText: string) => (/^\d{1,9}$/.test(idText) ? Number(idText) : NaN);

export async function loadRefundClaim(prisma: PrismaClient, idText: string, key: string | null): Promise<RefundClaimView> {
  return claimView(await claimable(prisma, refundIdOf(idText), key));
}

/**
 * The customer enters their address (`POST /payment/refund/<id>/claim?k=<key>`): once, never changed after
 * (400). Refused as any money target is (400 `address`: a checksum, a contract, frozen USDT; 503
 * when the node cannot tell). An address that looks like one the invoice saw but is not it is
 * answered 409 (`reason: address_lookalike`) until sent again with `confirm: true`. Then the
 * refund's payout is created and the merchant is asked to top it up.
 */
export async function claimRefund(prisma: PrismaClient, idText: string, key: string | null, body: unknown, node: () => Chain = defaultChain): Promise<RefundClaimView> {
  const refund = await claimable(prisma, refundIdOf(idText), key);
  const { address, confirm } = parseOrThrow(claimRefundSchema, body);
  const status = refundStatus(refund).status;
  if (status === 'CANCELED') throw invalidInput('The merchant canceled this refund.');
  if (status !== 'WAITING_ADDRESS') throw invalidInput(ADDRESS_SET);
  const seen = await prisma.transaction.findMany({ where: { invoiceId: refund.invoiceId, type: 'PAYMENT' }, select: { fromAddress: true } });
  const alike = lookalikes(address, seen.map((s) => s.fromAddress));
  if (alike.length > 0 && confirm !== true) {
    throw new AppError('CONFLICT', `This address looks like ${alike.join(', ')}, which sent money to this invoice, but it is not the same address. Check every character against your wallet; if it is right, confirm to use it.`, { reason: 'address_lookalike' });
  }
  await refuseBadRefundAddress(node(), refund.currency, 'address', address);
  const quote = await quoteRefund(prisma, refund.currency, address, refund.amountUnits);
  const payoutAddress = await allocateInvoiceAddress(prisma, { id: refund.merchantId, accountXpub: (await prisma.merchant.findUniqueOrThrow({ where: { id: refund.merchantId }, select: { accountXpub: true } })).accountXpub });
  // Held money kept for the refund (docs/refunds.md "Funded from held money"), its release costed to the payout's own address.
  const held = await heldCommittedTo(prisma, node(), refund.id, payoutAddress.address);
  await prisma.$transaction(async (tx) => {
    const payoutId = await writeRefundPayout(tx, refund.merchantId, refund.invoiceId, quote, payoutAddress);
    // Two claims at once, or a claim and a cancel: the later finds the refund moved, and its payout is rolled back with it.
    if (!(await changeRefundState(tx, refund, { to: 'PAYOUT', address, payoutId }))) throw invalidInput(ADDRESS_SET);
    // Released into the payout in the same transaction: the payout and the money on its way to it are one step.
    await releaseCommitted(tx, refund.id, held, payoutAddress.address);
    // The opt-in refund.claimed webhook, and an e-mail to the merchant (where SMTP is configured): the merchant can now top the refund up.
    await tellRefund(tx, refund.id, 'refund.claimed');
    // What is left to top up once the held money kept for it has arrived (0 when it covers everything).
    const heldBrings = held.reduce((sum, h) => sum + h.amountUnits - h.costUnits, 0n);
    const topupUnits = quote.topupUnits > heldBrings ? quote.topupUnits - heldBrings : 0n;
    await notifyRefundClaimed(tx, { ...refund, address, topupAddress: payoutAddress.address, topupUnits });
  });
  return loadRefundClaim(prisma, idText, key);
}
