import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import type { Currency, Merchant, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { chain as defaultChain } from '@/lib/chain';
import type { Chain } from '@/lib/chain/types';
import { AppError, fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { allocateInvoiceAddress, cancelInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { tokenAmountJson, tokenAmountText } from '@/lib/money/tokens';
import { refuseContractTargets, refuseFrozenTargets } from '@/lib/rules/receivers';
import { apiQuoteDeps, payoutData } from '@/lib/payouts/create';
import { quotePayout, type PayoutQuote } from '@/lib/payouts/estimate';
import { parseOrThrow } from '@/lib/validation';
import { createRefundSchema, type RefundJson } from './schemas';
import { tellRefund } from './events';
import { changeRefundState } from './states';
import { claimUrl, COMMITTED_STATUSES, refundInclude, refundJson, refundStatus, type RefundRecord } from './view';
import { refundStatusInclude } from '@/lib/rules/refundStatus';
import { commitHeld, freeCommitted, heldForInvoice, heldToFund } from './held';
import { queueRefundClaimMail } from '@/lib/notify/customer';

/*
 * A merchant's refunds of a sale (issue 36, docs/refunds.md). A refund is funded by the merchant,
 * since the service forwarded the sale to them: once its address is known it becomes a one-target
 * mass payout (no service fee, the network cost on top) that the merchant tops up, and the payout
 * engine sends it (energy, TaPoS, retries, ledger, reconcile) and returns its leftovers on request.
 */

export const REFUND_NOT_FOUND = 'No Refund matches the given query.';

/** An address new to the network: what a refund costs to an address not known yet is quoted to it, the dearest case. */
const newAddress = () => TronWeb.address.fromHex(`41${randomBytes(20).toString('hex')}`);

/** The address checks every money target passes (issue 34, 37): not a contract; for USDT, not frozen by Tether. Named as `field`. */
export async function refuseBadRefundAddress(node: Chain, currency: Currency, field: string, address: string): Promise<void> {
  await refuseContractTargets(node, { [field]: address });
  if (currency === 'USDT') await refuseFrozenTargets(node, { [field]: address });
}

/** The refund's payout quoted: one target, no service fee, the network cost and activation on top. */
export async function quoteRefund(prisma: PrismaClient, currency: Currency, address: string, units: bigint): Promise<PayoutQuote> {
  const deps = await apiQuoteDeps(prisma);
  return quotePayout({ ...deps, feePercent: '0' }, { currency, target_wallets: [{ address, units }] });
}

/** Writes the refund's payout in the caller's transaction (its address allocated before, outside it). */
export async function writeRefundPayout(tx: Prisma.TransactionClient, merchantId: number, invoiceId: number, quote: PayoutQuote, address: { address: string; addressIndex: number }): Promise<number> {
  const payout = await tx.invoice.create({ data: payoutData(merchantId, quote, address, `Refund of invoice #${invoiceId}`), select: { id: true } });
  return payout.id;
}

/** A refund's request checked against its invoice, for creating it and for estimating it alike: 404, a mass payout, the body, a token the invoice never took. */
async function refundRequest(prisma: PrismaClient, merchant: Merchant, invoiceId: number, body: unknown) {
  const sale = await saleOf(prisma, merchant, invoiceId);
  if (sale.type === 'MULTIPLE_TRANSFER') throw invalidInput('A mass payout cannot be refunded; only SINGLE and MULTIPLE invoices can.');
  const input = parseOrThrow(createRefundSchema, body);
  if (!sale.currencies.includes(input.currency)) throw fieldErrors({ currency: [`Invoice #${sale.id} does not take ${input.currency}; it received nothing in it to refund.`] });
  return { sale, input };
}

async function saleOf(prisma: PrismaClient, merchant: Pick<Merchant, 'id'>, invoiceId: number) {
  const invoice = await prisma.invoice.findFirst({ where: { id: invoiceId, merchantId: merchant.id }, select: { id: true, type: true, currencies: true } });
  if (!invoice) throw notFound(INVOICE_NOT_FOUND);
  return invoice;
}

/**
 * `POST /v1/api/payment/{id}/refund`. Checked in this order: the invoice (404 another merchant's),
 * a mass payout (400), the token (400 `currency` when the invoice never took it), the address
 * (400 `address`: a contract, frozen USDT; 503 when the node cannot tell), then, under a lock of
 * the invoice's row so two refunds at once cannot both pass, the amount against what the invoice
 * received in the token less its other refunds still standing (400 `amount`).
 */
/**
 * `fromHeld`: whether money the service holds for the invoice may fund the refund. Held money then
 * leaves to the refund's address without a top-up, which is what releasing it needs a right for:
 * an API key without `payouts:write` makes refunds the merchant tops up (docs/api.md, "Key scopes").
 */
export async function createRefund(prisma: PrismaClient, merchant: Merchant, invoiceId: number, body: unknown, by: AuditBy, node: () => Chain = defaultChain, fromHeld = true): Promise<RefundJson> {
  const { sale, input } = await refundRequest(prisma, merchant, invoiceId, body);
  const address = input.address ?? null;
  let payout: { quote: PayoutQuote; address: { address: string; addressIndex: number } } | null = null;
  if (address !== null) {
    await refuseBadRefundAddress(node(), input.currency, 'address', address);
    const quote = await quoteRefund(prisma, input.currency, address, input.amount);
    payout = { quote, address: await allocateInvoiceAddress(prisma, merchant) };
  }
  // Money the service still holds for the invoice in the token funds the refund first (docs/refunds.md
  // "Funded from held money"), released into the payout's address; for a claim link, estimated to an
  // address new to the network until the customer's is known.
  const to = payout?.address.address ?? newAddress();
  const held = fromHeld ? await heldToFund(prisma, node(), sale.id, input.currency, () => to, async () => payout?.quote.topupUnits ?? (await quoteRefund(prisma, input.currency, newAddress(), input.amount)).topupUnits) : [];
  const id = await prisma.$transaction(async (tx) => {
    await refuseOverRefund(tx, sale.id, input.currency, input.amount);
    const refund = await tx.refund.create({
      data: { merchantId: merchant.id, invoiceId: sale.id, currency: input.currency, amountUnits: input.amount, claim: address === null, reason: input.reason || null },
      select: { id: true, state: true },
    });
    if (payout && address !== null) {
      const payoutId = await writeRefundPayout(tx, merchant.id, sale.id, payout.quote, payout.address);
      await changeRefundState(tx, refund, { to: 'PAYOUT', address, payoutId });
    }
    // Committed under the invoice's lock, in the refund's transaction: released into the payout now when it exists, kept for it otherwise.
    await commitHeld(tx, refund.id, held, payout?.address.address ?? null);
    // The opt-in refund.created webhook, stored if and only if the refund is; so is its audit row.
    await tellRefund(tx, refund.id, 'refund.created');
    await recordAudit(tx, by, { merchantId: merchant.id, action: 'refund_created', subject: refund.id, after: { invoice_id: sale.id, currency: input.currency, amount: tokenAmountJson(input.amount), address, ...(held.length > 0 && { funded_from_held: held.map((h) => h.trnHash) }) } });
    // Without an address, the claim link to the customer's e-mail where one was given on the payment page.
    if (address === null) await queueRefundClaimMail(tx, { id: refund.id, invoiceId: sale.id, amountUnits: input.amount, currency: input.currency }, claimUrl(refund.id));
    return refund.id;
  });
  return refundJson(await prisma.refund.findUniqueOrThrow({ where: { id }, include: refundInclude }));
}

/**
 * Refuses an amount above what the invoice received in `currency` less its other refunds still
 * standing (waiting, sending or sent; a failed or canceled one gave nothing). The invoice's row is
 * locked first, in the caller's transaction, so concurrent refunds are counted one after another.
 */
async function refuseOverRefund(tx: Prisma.TransactionClient, invoiceId: number, currency: Currency, units: bigint): Promise<void> {
  await queryRows(tx, sql`SELECT id FROM invoices WHERE id = ${invoiceId} FOR UPDATE`);
  refuseAbove(invoiceId, currency, units, await refundable(tx, invoiceId, currency));
}

/** 400 `amount` when `units` is more than what is left to refund (the rule of refuseOverRefund, and of the estimate without the lock). */
function refuseAbove(invoiceId: number, currency: Currency, units: bigint, { received, held, committed }: Refundable): void {
  const total = received + held;
  if (total === 0n) throw fieldErrors({ amount: [`Invoice #${invoiceId} has received no ${currency} to refund.`] });
  if (committed + units > total) {
    const left = total > committed ? total - committed : 0n;
    // The held part is named only when there is one: the message is otherwise as it always was.
    const heldPart = held > 0n ? ` (${tokenAmountText(held)} of it held by the service)` : '';
    throw fieldErrors({
      amount: [`At most ${tokenAmountText(left)} ${currency} can be refunded: invoice #${invoiceId} received ${tokenAmountText(total)} ${currency}${heldPart}, and ${tokenAmountText(committed)} is refunded or being refunded.`],
    });
  }
}

interface Refundable {
  /** What its booked payments brought (`received_units`). */
  received: bigint;
  /** What the service holds for it, or released into a refund (lib/refunds/held.ts): received too, never forwarded. */
  held: bigint;
  /** What its refunds still standing take (waiting, sending or sent). */
  committed: bigint;
}

/** What the invoice received in `currency` (booked, and held by the service), and how much of it its refunds still standing take. */
async function refundable(db: Prisma.TransactionClient | PrismaClient, invoiceId: number, currency: Currency): Promise<Refundable> {
  const row = await db.invoiceCurrency.findUnique({ where: { invoiceId_currency: { invoiceId, currency } }, select: { receivedUnits: true } });
  const others = await db.refund.findMany({ where: { invoiceId, currency }, include: refundStatusInclude });
  const committed = others.filter((r) => COMMITTED_STATUSES.includes(refundStatus(r).status)).reduce((sum, r) => sum + r.amountUnits, 0n);
  return { received: row?.receivedUnits ?? 0n, held: await heldForInvoice(db, invoiceId, currency), committed };
}

/** What is left to refund in each token the invoice takes (the dashboard's refund dialog offers these). */
export async function refundableAmounts(prisma: PrismaClient, merchant: Pick<Merchant, 'id'>, invoiceId: number): Promise<Partial<Record<Currency, number>>> {
  const sale = await saleOf(prisma, merchant, invoiceId);
  if (sale.type === 'MULTIPLE_TRANSFER') return {};
  const left = await Promise.all(
    sale.currencies.map(async (currency) => {
      const { received, held, committed } = await refundable(prisma, sale.id, currency);
      return [currency, tokenAmountJson(received + held > committed ? received + held - committed : 0n)] as const;
    }),
  );
  return Object.fromEntries(left);
}

/**
 * What a refund would cost the merchant before it is made (the dashboard's dialog shows it before
 * the merchant confirms): the same checks as creating one but the lock, and the quote of its
 * payout. Without an address (a claim link), quoted to an address new to the network, the dearest
 * case (a new account for TRX, a first USDT balance for USDT): `cost` is then at most that.
 */
export async function estimateRefund(prisma: PrismaClient, merchant: Merchant, invoiceId: number, body: unknown, node: () => Chain = defaultChain) {
  const { sale, input } = await refundRequest(prisma, merchant, invoiceId, body);
  refuseAbove(sale.id, input.currency, input.amount, await refundable(prisma, sale.id, input.currency));
  if (input.address) await refuseBadRefundAddress(node(), input.currency, 'address', input.address);
  const to = input.address ?? newAddress();
  const quote = await quoteRefund(prisma, input.currency, to, input.amount);
  // Held money would fund it first (as createRefund does): released into the payout's address, new to the network.
  const held = await heldToFund(prisma, node(), sale.id, input.currency, newAddress, async () => quote.topupUnits);
  const heldBrings = held.reduce((sum, h) => sum + h.amountUnits - h.costUnits, 0n);
  const heldCost = held.reduce((sum, h) => sum + h.costUnits, 0n);
  const cost = quote.costUnits + quote.activationUnits + heldCost;
  const topup = quote.topupUnits > heldBrings ? quote.topupUnits - heldBrings : 0n;
  return {
    currency: input.currency,
    amount: tokenAmountJson(input.amount),
    cost: tokenAmountJson(cost),
    topup_amount: tokenAmountJson(topup),
    held_amount: tokenAmountJson(held.reduce((sum, h) => sum + h.amountUnits, 0n)),
    address_known: Boolean(input.address),
  };
}

/** `GET /v1/api/payment/{id}/refunds`: the invoice's refunds, oldest first (404 another merchant's invoice). */
export async function listRefunds(prisma: PrismaClient, merchant: Pick<Merchant, 'id'>, invoiceId: number): Promise<RefundJson[]> {
  await saleOf(prisma, merchant, invoiceId);
  const rows = await prisma.refund.findMany({ where: { invoiceId, merchantId: merchant.id }, include: refundInclude, orderBy: { id: 'asc' } });
  return rows.map(refundJson);
}

async function refundOf(prisma: PrismaClient, merchant: Pick<Merchant, 'id'>, id: number): Promise<RefundRecord> {
  const refund = await prisma.refund.findFirst({ where: { id, merchantId: merchant.id }, include: refundInclude });
  if (!refund) throw notFound(REFUND_NOT_FOUND);
  return refund;
}

/** `GET /v1/api/refund/{id}`. */
export async function getRefund(prisma: PrismaClient, merchant: Pick<Merchant, 'id'>, id: number): Promise<RefundJson> {
  return refundJson(await refundOf(prisma, merchant, id));
}

/**
 * `DELETE /v1/api/refund/{id}/cancel`: a refund waiting for its address is canceled; one waiting
 * for its top-up is canceled with its payout (until the top-up has arrived, as any payout); one
 * sending, sent, failed or canceled cannot be (400). Its amount can then be refunded again.
 */
export async function cancelRefund(prisma: PrismaClient, merchant: Merchant, id: number): Promise<RefundJson> {
  const refund = await refundOf(prisma, merchant, id);
  const { status } = refundStatus(refund);
  const refused = invalidInput(`Refund cannot be canceled: it is ${status}.`);
  if (status === 'WAITING_ADDRESS') {
    const canceled = await prisma.$transaction(async (tx) => {
      if (!(await changeRefundState(tx, refund, { to: 'CANCELED' }))) return false;
      // The held payments kept for it are free again, to release or to fund another refund.
      await freeCommitted(tx, refund.id);
      return true;
    });
    if (!canceled) throw refused;
  } else if (status === 'WAITING_FUNDS' && refund.payoutId !== null) {
    // Held money on its way to the payout (or there) cannot be called back: the refund goes on, or fails and its payout's money is returned.
    if (refund.heldFunds.some((h) => h.paymentState !== 'HELD')) throw invalidInput('Refund cannot be canceled: the held money funding it is being sent to it.');
    try {
      await cancelInvoice(prisma, merchant, refund.payoutId);
    } catch (err) {
      if (err instanceof AppError) throw refused;
      throw err;
    }
    // Freed once the payout is canceled; a refund that no longer stands frees them anyway, should this not run.
    await freeCommitted(prisma, refund.id);
  } else {
    throw refused;
  }
  return getRefund(prisma, merchant, id);
}
