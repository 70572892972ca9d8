import { sqlPool } from '@/lib/db/client';
import { invoicesWithAmounts } from '@/lib/db/rows';
import { config } from '@/lib/config';
import { addressFromXpub } from '@/lib/chain/keys';
import { NO_ACCOUNT_PREPARED } from '@/lib/merchants/accounts';
import { Prisma, type InvoiceStatus, type Merchant, type PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { AppError, fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { amountDue, convertUnits, usdToTokenUnits, withMargin } from '@/lib/money/fees';
import { cheapestUsdtForwardCost } from '@/lib/energy/status';
import { RATE_DECIMALS, TOKEN_DECIMALS, USD_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { RateSource } from '@/lib/rates/source';
import type { CreateInvoiceInput } from './schemas';
import type { InvoiceRecord } from './serialize';
import type { InvoiceOwner } from './list';

export type { InvoiceOwner };
import { CANCELABLE } from './states';
import { changeInvoiceStatus } from './transitions';
import { singleton } from '@/lib/singletons';

export const INVOICE_NOT_FOUND = 'No Invoice matches the given query.';
const NO_TARGET_WALLET = "User's target wallet address is not set";
// Static-address invoices never expire; expired_at is still a timestamp for clients that parse it.
const STATIC_ADDRESS_LIFETIME_MS = 100 * 365 * 86_400_000;

/**
 * A fresh HD address for a new invoice of the merchant (payment or payout) and its index. The
 * index comes from one sequence (migration 0041), so nothing is locked: a merchant's creations
 * run in parallel (issue 16; before, an UPDATE of the merchant row handed out indexes). The
 * address derives from the merchant's account xpub: the web holds no mnemonic and stores no
 * private key; the worker derives the key when it signs (lib/payments/process.ts). An index
 * whose invoice insert then fails, or that a stopped process had not handed out, is skipped,
 * never handed out twice.
 */
export async function allocateInvoiceAddress(prisma: PrismaClient, merchant: Pick<Merchant, 'id' | 'accountXpub'>) {
  if (!merchant.accountXpub) throw new AppError('UNAVAILABLE', NO_ACCOUNT_PREPARED);
  const addressIndex = await nextAddressIndex(prisma);
  return { address: addressFromXpub(merchant.accountXpub, 'invoice', addressIndex), addressIndex };
}

/**
 * Indexes are taken from the sequence INDEX_BLOCK at a time and handed out by this process, so
 * a creation makes no round trip for its index (issue 16). Each database (client) has its own
 * block: the sequence is per database.
 */
const INDEX_BLOCK = 32;

async function nextAddressIndex(prisma: PrismaClient): Promise<number> {
  const indexBlocks = singleton('invoiceIndexBlocks', () => new WeakMap());
  let block = indexBlocks.get(prisma);
  if (!block) indexBlocks.set(prisma, (block = { spare: [], refill: null }));
  const b = block;
  while (b.spare.length === 0) {
    b.refill ??= queryRows<{ index: number }>(prisma, sql`SELECT nextval('invoice_address_index_seq')::int AS index FROM generate_series(1, ${INDEX_BLOCK}::int)`)
      .then((rows) => void b.spare.push(...rows.map((r) => r.index).sort((x, y) => x - y)))
      .finally(() => (b.refill = null));
    await b.refill;
  }
  return b.spare.shift()!;
}

/**
 * The invoice and its per-token rows in one statement, a named (prepared) statement on pg (issue
 * 16: Prisma's nested create made six round trips, BEGIN, two INSERTs, two SELECTs and COMMIT,
 * at six times the CPU). The counters' triggers (migration 0040) fire as for any INSERT.
 */
const CREATE_INVOICE_SQL = `
  WITH invoice AS (
    INSERT INTO invoices (merchant_id, type, amount_usd, currencies, order_id, address, address_index, client_commission,
                          webhook_url, redirect_url, description, expired_at, created_at, updated_at, underpayment_tolerance_percent)
    VALUES ($1, $2::"InvoiceType", $3::numeric, $4::text[]::"Currency"[], $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $18::numeric)
    RETURNING id
  ), amounts AS (
    INSERT INTO invoice_currencies (invoice_id, currency, rate_usd, due_units, fee_units)
    SELECT invoice.id, a.currency::"Currency", a.rate::numeric, a.due::bigint, a.fee::bigint
      FROM invoice, unnest($14::text[], $15::text[], $16::text[], $17::text[]) AS a(currency, rate, due, fee)
  )
  SELECT id FROM invoice`;

export async function createInvoice(prisma: PrismaClient, rates: RateSource, merchant: Merchant, input: CreateInvoiceInput): Promise<InvoiceRecord> {
  if (!merchant.targetWalletAddress) throw invalidInput(NO_TARGET_WALLET);
  const c = config();
  const quotes = await Promise.all(input.currencies.map((currency) => rates.quote(currency)));
  const amounts = quotes.map((q) => {
    const base = usdToTokenUnits(input.amountMicros, parseScaled(q.rateUsd, RATE_DECIMALS));
    const { dueUnits, feeUnits } = amountDue(base, c.FORWARDING_FEE_PERCENT, input.clientCommission);
    return { currency: q.currency, rateUsd: q.rateUsd, dueUnits, feeUnits };
  });
  if (input.type === 'SINGLE') {
    const trxRate = quotes.find((q) => q.currency === 'TRX')?.rateUsd ?? (await rates.quote('TRX')).rateUsd;
    // With the energy pool (or rented energy) able to pay a forward, a USDT forward costs its activation (and the rental) only (docs/energy.md).
    const cheapest = amounts.some((a) => a.currency === 'USDT') ? await cheapestUsdtForwardCost(prisma) : null;
    refuseBelowForwardingCost(amounts, input, trxRate, c, cheapest);
  }
  const createdAt = new Date();
  const expiredAt = new Date(createdAt.getTime() + (input.type === 'SINGLE' ? (input.expiryMinutes ?? c.DEFAULT_EXPIRY_MINUTES) * 60_000 : STATIC_ADDRESS_LIFETIME_MS));

  const { address, addressIndex } = await allocateInvoiceAddress(prisma, merchant);
  const amountUsd = input.type === 'SINGLE' ? formatScaled(input.amountMicros, USD_DECIMALS) : null;
  // The merchant's tolerance as it is now decides this invoice's status for good (migration 0093); only a SINGLE invoice has an amount to fall short of.
  const tolerance = input.type === 'SINGLE' ? merchant.underpaymentTolerancePercent : new Prisma.Decimal(0);
  // One statement writes the invoice and its per-token rows (CREATE_INVOICE_SQL): atomic
  // without a transaction, one round trip where Prisma's nested create made six, through pg.
  const { rows } = await sqlPool(prisma).query({
    name: 'invoice-create',
    text: CREATE_INVOICE_SQL,
    values: [
      merchant.id, input.type, amountUsd, input.currencies, input.orderId ?? null, address, addressIndex, input.clientCommission,
      input.webhookUrl ?? null, input.redirectUrl ?? null, input.description ?? null, expiredAt, createdAt,
      amounts.map((a) => a.currency), amounts.map((a) => a.rateUsd), amounts.map((a) => a.dueUnits.toString()), amounts.map((a) => a.feeUnits.toString()),
      tolerance.toFixed(),
    ],
  });
  const id = (rows[0] as { id: number }).id;
  // The record as the row now stands, from what was written: every column of the model must be
  // named here (the type says so), and test/api/api-create-invoice.test.ts compares the answer with
  // the invoice read back.
  return {
    id,
    merchantId: merchant.id,
    type: input.type,
    status: 'ACTIVE',
    amountUsd: amountUsd === null ? null : new Prisma.Decimal(amountUsd),
    currencies: input.currencies,
    orderId: input.orderId ?? null,
    address,
    addressIndex,
    privateKeyEnc: null,
    clientCommission: input.clientCommission,
    underpaymentTolerancePercent: tolerance,
    webhookUrl: input.webhookUrl ?? null,
    redirectUrl: input.redirectUrl ?? null,
    description: input.description ?? null,
    customerEmail: null,
    targetWallets: null,
    failedTargets: null,
    leaseOwner: null,
    leaseUntil: null,
    costUnits: null,
    costCurrency: null,
    quotedEnergySource: null,
    networkCostSun: 0n,
    expiredAt,
    createdAt,
    updatedAt: createdAt,
    amounts: amounts.map((a) => ({ invoiceId: id, currency: a.currency, rateUsd: new Prisma.Decimal(a.rateUsd), dueUnits: a.dueUnits, feeUnits: a.feeUnits, receivedUnits: 0n, forwardedUnits: 0n })),
    merchant: { email: merchant.email },
  };
}

/**
 * A SINGLE invoice must be worth more, in each token it accepts, than the most forwarding its
 * payment can cost (FORWARD_MAX_COST_*; a USDT forward's TRX converted at the invoice's rates).
 * Below that, the worker would hold the full payment as uneconomic (docs/worker.md, "Held
 * funds"): the customer pays, the merchant receives nothing and the invoice never completes.
 */
function refuseBelowForwardingCost(
  amounts: { currency: Currency; rateUsd: string; dueUnits: bigint; feeUnits: bigint }[],
  input: Pick<CreateInvoiceInput, 'amountMicros' | 'clientCommission'>,
  trxRateUsd: string,
  c: ReturnType<typeof config>,
  cheapestUsdt: { costSun: bigint; source: 'POOL' | 'RENTAL' } | null,
): void {
  const amountMicros = input.amountMicros;
  const refused: { message: string; minimum: string }[] = [];
  for (const a of amounts) {
    const worth = a.dueUnits - a.feeUnits;
    let cost = parseScaled(c.FORWARD_MAX_COST_TRX, TOKEN_DECIMALS);
    let costText = `up to ${c.FORWARD_MAX_COST_TRX} TRX`;
    if (a.currency === 'USDT') {
      const costSun = cheapestUsdt === null ? parseScaled(c.FORWARD_MAX_COST_USDT_IN_TRX, TOKEN_DECIMALS) : withMargin(cheapestUsdt.costSun, c.GAS_MARGIN_PERCENT);
      cost = convertUnits(costSun, parseScaled(trxRateUsd, RATE_DECIMALS), parseScaled(a.rateUsd, RATE_DECIMALS));
      const source = cheapestUsdt === null ? '' : cheapestUsdt.source === 'POOL' ? ' with the energy pool' : ' with rented energy';
      costText = `up to ${formatScaled(costSun, TOKEN_DECIMALS)} TRX of network fees${source}, ${formatScaled(cost, TOKEN_DECIMALS)} USDT at current rates`;
    }
    if (worth > cost) continue;
    refused.push({
      message: `${formatScaled(amountMicros, USD_DECIMALS)} USD leaves the merchant ${formatScaled(worth, TOKEN_DECIMALS)} ${a.currency}, not more than forwarding a ${a.currency} payment can cost (${costText}); such a payment would be held, not forwarded`,
      minimum: `The minimum for ${a.currency} is ${centsText(minimumCents(a.rateUsd, cost, c.FORWARDING_FEE_PERCENT, input.clientCommission))} USD.`,
    });
  }
  if (refused.length === 0) return;
  // The detail and errors stay as they were for API clients; `reason` is the short form the dashboard shows (issue 26).
  const err = fieldErrors({ amount: [refused[0]!.message] });
  throw new AppError(err.code, err.detail, { fieldErrors: err.fieldErrors, reason: refused.map((r) => r.minimum).join(' ') });
}

const MICROS_PER_CENT = 10n ** BigInt(USD_DECIMALS - 2);

/**
 * The smallest amount, in whole cents, that leaves the merchant more than `costUnits` of the
 * token at `rateUsd`, with the fee split exactly as createInvoice makes it. What an amount
 * leaves never shrinks as the amount grows, so the first cent past the cost is found by
 * doubling, then halving the interval.
 */
function minimumCents(rateUsd: string, costUnits: bigint, feePercent: string, clientCommission: boolean): bigint {
  const rate = parseScaled(rateUsd, RATE_DECIMALS);
  const leaves = (cents: bigint) => {
    const { dueUnits, feeUnits } = amountDue(usdToTokenUnits(cents * MICROS_PER_CENT, rate), feePercent, clientCommission);
    return dueUnits - feeUnits > costUnits;
  };
  let high = 1n;
  while (!leaves(high)) high *= 2n;
  let low = high / 2n; // does not leave enough (or is 0)
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (leaves(mid)) high = mid;
    else low = mid;
  }
  return high;
}

function centsText(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

export async function getInvoice(prisma: PrismaClient, merchant: InvoiceOwner, id: number): Promise<InvoiceRecord> {
  // The caller's merchant is known: its e-mail is not read again with the invoice (one query
  // fewer). Read through pg, not Prisma's client (lib/db/rows.ts: a sixth of the CPU).
  const [invoice] = await invoicesWithAmounts(sqlPool(prisma), merchant.id, [id]);
  if (!invoice) throw notFound(INVOICE_NOT_FOUND);
  return { ...invoice, merchant: { email: merchant.email } };
}

/** Whether the invoice is this merchant's: the dashboard's invoice page is a 404 otherwise, for an unknown id alike. */
export async function merchantHasInvoice(prisma: PrismaClient, merchantId: number, id: number): Promise<boolean> {
  return (await prisma.invoice.findFirst({ where: { id, merchantId }, select: { id: true } })) !== null;
}

/**
 * What keeps an open invoice from being canceled (issue 22, case 8; docs/api.md): money that
 * arrived for it. A SINGLE invoice with any payment detected (being forwarded, settled in
 * part, held) would otherwise end CANCELED showing money received and forwarded, with no
 * webhook. Held dust is the exception: it stays at the address whatever the status, and
 * otherwise 1 sun from anyone would make any invoice uncancelable. A static (MULTIPLE) address
 * can be retired once no payment of it is still being moved. A mass payout's top-up is
 * committed to its targets.
 */
export const CANCEL_BLOCKED: Prisma.InvoiceWhereInput = {
  OR: [
    // A payment seen before finality blocks it too (money is on its way); one dropped after a reorganisation never arrived.
    { type: 'SINGLE', transactions: { some: { type: 'PAYMENT', NOT: [{ paymentState: 'HELD', heldReason: { startsWith: 'dust:' } }, { paymentState: 'DROPPED' }] } } },
    { type: 'MULTIPLE', transactions: { some: { type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] } } } },
    { type: 'MULTIPLE_TRANSFER', transactions: { some: { type: 'TOPUP' } } },
  ],
};

/** Whether the merchant may cancel the invoice now: its status allows it and nothing blocks it (the dashboard's Cancel button). */
export async function isCancelable(prisma: PrismaClient, invoice: { id: number; status: InvoiceStatus }): Promise<boolean> {
  return CANCELABLE.includes(invoice.status) && (await prisma.invoice.count({ where: { id: invoice.id, NOT: CANCEL_BLOCKED } })) === 1;
}

/**
 * Cancels an open invoice; the conditional update (status and CANCEL_BLOCKED in one statement)
 * makes a race with the worker safe: a payment recorded after it is held as "invoice canceled".
 */
export async function cancelInvoice(prisma: PrismaClient, merchant: InvoiceOwner, id: number): Promise<InvoiceRecord> {
  const current = await getInvoice(prisma, merchant, id);
  const canceled = await prisma.$transaction((tx) => changeInvoiceStatus(tx, current, 'CANCELED', { where: { merchantId: merchant.id, NOT: CANCEL_BLOCKED } }));
  if (!canceled) throw invalidInput('Invoice cannot be canceled');
  return getInvoice(prisma, merchant, id);
}
