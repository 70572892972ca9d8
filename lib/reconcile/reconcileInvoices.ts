import type { Chain, TransactionStatus, Transfer } from '@/lib/chain/types';
import type { Invoice, InvoiceCurrency, LedgerEntry, PayoutReturn, PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { convertUnits } from '@/lib/money/fees';
import { RATE_DECIMALS, tokenUnits } from '@/lib/money/tokens';
import { paymentFee, statusAfterPayments } from '@/lib/rules/settlement';
import { unfoldedByInvoice, unfoldedNetworkCostsQuery } from '@/lib/ledger/networkCost';
import { parseStoredTargets } from '@/lib/invoices/storedTargets';

/** The rules the engine was configured with (lib/config.ts), which the proof applies to its own sums. */
export interface ReconcileRules {
  forwardingFeePercent: string;
  topupFeePercent: string;
  tolerancePercent: string;
  toleranceMaxUsd: string;
}

type Receipts = (txId: string) => Promise<TransactionStatus>;
type Inv = Invoice & { amounts: InvoiceCurrency[]; payoutReturn: PayoutReturn | null };
const fmt = (n: bigint) => n.toString();
const sumOf = (rows: readonly { amountUnits: bigint }[]) => rows.reduce((s, r) => s + r.amountUnits, 0n);
const rateOf = (d: { toFixed(): string }) => parseScaled(d.toFixed(), RATE_DECIMALS);

/**
 * What was reported or owed, recomputed from payment rows, ledger rows and chain
 * receipts, never from the column being checked (docs/worker.md, "The ledger"):
 * per payment, the fee kept; per SINGLE/MULTIPLE invoice, `transfer_amounts`,
 * `cost` and status; per payout, every target paid exactly once on chain.
 */
export async function proveInvoices(prisma: PrismaClient, chain: Chain, receipt: Receipts, rules: ReconcileRules): Promise<{ mismatches: string[]; invoicesChecked: number; payoutsChecked: number }> {
  const mismatches: string[] = [];
  // One snapshot of the rows checked and of what they are checked against: read one query at a time, a send
  // confirmed, or a network cost folded from its delta into the invoice's column (lib/ledger/networkCost.ts),
  // between two reads would be counted on one side only, a mismatch that is not there.
  const [invoices, rows, kept, rentals, unfoldedRows] = await prisma.$transaction(
    [
      prisma.invoice.findMany({ include: { amounts: true, payoutReturn: true }, orderBy: { id: 'asc' } }),
      prisma.transaction.findMany({ where: { invoiceId: { not: null } }, orderBy: { id: 'asc' } }),
      prisma.ledgerEntry.findMany({ where: { kind: 'FEE_KEPT' } }),
      // Rentals paid for the invoice's sends, by invoice (a rental is booked on its payment or payout top-up).
      prisma.energyRental.findMany({ where: { priceSun: { not: null } }, select: { priceSun: true, payment: { select: { invoiceId: true } } } }),
      // Booked and not folded into the column yet: counted with it.
      unfoldedNetworkCostsQuery(prisma),
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  const keptOf = new Map<number, LedgerEntry[]>();
  for (const e of kept) if (e.paymentId !== null) keptOf.set(e.paymentId, [...(keptOf.get(e.paymentId) ?? []), e]);
  const byInvoice = new Map<number, Transaction[]>();
  for (const r of rows) byInvoice.set(r.invoiceId!, [...(byInvoice.get(r.invoiceId!) ?? []), r]);
  const sendsOf = (rowsOfInvoice: Transaction[], paymentId: number, purpose: string) => rowsOfInvoice.filter((r) => r.sourceId === paymentId && r.sendPurpose === purpose && r.sendState === 'CONFIRMED');
  const rentedFor = new Map<number, bigint>();
  for (const r of rentals) if (r.payment.invoiceId !== null) rentedFor.set(r.payment.invoiceId, (rentedFor.get(r.payment.invoiceId) ?? 0n) + r.priceSun!);
  const unfolded = unfoldedByInvoice(unfoldedRows);

  let invoicesChecked = 0;
  let payoutsChecked = 0;
  for (const invoice of invoices) {
    const mine = byInvoice.get(invoice.id) ?? [];
    const networkCost = await proveNetworkCost(invoice, mine, rentedFor.get(invoice.id) ?? 0n, unfolded.get(invoice.id) ?? 0n, receipt);
    if (networkCost) mismatches.push(networkCost);
    if (invoice.type === 'MULTIPLE_TRANSFER') {
      payoutsChecked++;
      mismatches.push(...(await provePayout(invoice, mine, receipt, chain)));
      continue;
    }
    invoicesChecked++;
    const payments = mine.filter((r) => r.type === 'PAYMENT');
    const settled = payments.filter((p) => p.paymentState === 'SETTLED');
    const feeKept = (p: Transaction) => (keptOf.get(p.id) ?? []).reduce((s, e) => s + e.units, 0n);
    const where = `invoice ${invoice.id}`;

    // Per payment: the fee kept is the fee rule applied to what arrived; a refund keeps what its recorded figures say.
    for (const p of payments) {
      const row = invoice.amounts.find((a) => a.currency === p.currency);
      if (p.paymentState === 'SETTLED') {
        const fee = paymentFee(p.amountUnits, row, rules.forwardingFeePercent);
        if (feeKept(p) !== fee) mismatches.push(`${where} payment ${p.id}: FEE_KEPT ${fmt(feeKept(p))} ${p.currency}, the fee rule gives ${fmt(fee)}`);
        if ((p.feeUnits ?? 0n) !== fee) mismatches.push(`${where} payment ${p.id}: fee_units ${fmt(p.feeUnits ?? 0n)} ${p.currency}, the fee rule gives ${fmt(fee)}`);
        const forwards = sendsOf(mine, p.id, 'FORWARD');
        if (forwards.length !== 1) mismatches.push(`${where} payment ${p.id}: SETTLED with ${forwards.length} confirmed forwards`);
      }
      if (p.paymentState === 'REFUNDED') mismatches.push(...(await proveRefund(where, p, sendsOf(mine, p.id, 'REFUND'), feeKept(p), receipt)));
    }

    // transfer_amounts: received is what settled payments in an accepted token brought, forwarded what their confirmed forwards carried.
    for (const a of invoice.amounts) {
      const counted = settled.filter((p) => p.currency === a.currency);
      const received = sumOf(counted);
      const forwarded = counted.reduce((s, p) => s + sumOf(sendsOf(mine, p.id, 'FORWARD')), 0n);
      if (a.receivedUnits !== received) mismatches.push(`${where} transfer_amounts ${a.currency} input: reported ${fmt(a.receivedUnits)}, its settled payments brought ${fmt(received)}`);
      if (a.forwardedUnits !== forwarded) mismatches.push(`${where} transfer_amounts ${a.currency} output: reported ${fmt(a.forwardedUnits)}, its confirmed forwards carried ${fmt(forwarded)}`);
    }

    // cost: the fees kept from settled payments, each converted to the cost currency at the invoice's fixed rates (as settle() does, payment by payment).
    const costCurrency = invoice.costCurrency;
    const booked = payments.filter((p) => p.paymentState === 'SETTLED' || p.paymentState === 'REFUNDED');
    let cost = 0n;
    for (const p of settled) cost += p.currency === costCurrency ? feeKept(p) : convertFee(feeKept(p), invoice.amounts, p.currency, costCurrency);
    if ((invoice.costUnits ?? 0n) !== cost) mismatches.push(`${where} cost: reported ${fmt(invoice.costUnits ?? 0n)} ${costCurrency ?? ''}, the fees kept from its settled payments make ${fmt(cost)}`.replace('  ', ' '));
    if (costCurrency !== null && !booked.some((p) => p.currency === costCurrency)) mismatches.push(`${where} cost currency ${costCurrency}: no booked payment in it`);

    if (invoice.type === 'SINGLE') {
      const problem = statusProblem(invoice, settled, payments, rules);
      if (problem) mismatches.push(`${where} status ${invoice.status}: ${problem}`);
    }
  }
  return { mismatches, invoicesChecked, payoutsChecked };
}

/**
 * `network_cost_trx` (an addition to the spec, migration 0082): what the network cost for the
 * invoice's sends, recomputed from the chain's receipts of every send of it that is in a block
 * (confirmed, or failed on chain, which burns too) and the prices of the energy rented for them,
 * never from the ledger rows that keep the column (the column and what is booked but not folded
 * in yet are the figure reported).
 */
async function proveNetworkCost(invoice: Inv, rows: Transaction[], rentedSun: bigint, unfoldedSun: bigint, receipt: Receipts): Promise<string | null> {
  let burnedSun = 0n;
  for (const s of rows) {
    if (s.sendPurpose === null || !(s.sendState === 'CONFIRMED' || (s.sendState === 'FAILED' && s.blockNumber !== null))) continue;
    const r = await receipt(s.trnHash);
    if (r.status === 'confirmed' || r.status === 'failed') burnedSun += r.feeSun;
  }
  if (invoice.networkCostSun + unfoldedSun === burnedSun + rentedSun) return null;
  return `invoice ${invoice.id} network_cost: reported ${fmt(invoice.networkCostSun)} sun (and ${fmt(unfoldedSun)} booked, not yet folded in), its sends burned ${fmt(burnedSun)} sun on chain and its rentals cost ${fmt(rentedSun)}`;
}

/**
 * Whether a SINGLE invoice's status agrees with its payments. The paid share is
 * recomputed from the settled payments (statusAfterPayments is the rule, fed
 * with these sums), and each status is judged by what can produce it:
 * - COMPLETED / OVERPAID / UNDERPAID: the share is within / above / below (and above 0) the tolerance;
 * - ACTIVE: the share is below the tolerance (the customer may still pay the rest);
 * - TIMEOUT: nothing counted; CANCELED: nothing counted but what the merchant released after the cancel;
 * - AML_FAILED: a payment that alone would have paid it (within the tolerance or above) was refunded after its AML check (not a merchant's release);
 * - ERROR: a payment failed for good (FAILED, or retried by an operator after it had).
 */
function statusProblem(invoice: Inv, settled: Transaction[], payments: Transaction[], rules: ReconcileRules): string | null {
  const shareOf = (counted: Transaction[]) => {
    const amounts = invoice.amounts.map((a) => ({ dueUnits: a.dueUnits, receivedUnits: sumOf(counted.filter((p) => p.currency === a.currency)) }));
    // With status TIMEOUT the rule answers the band alone: OVERPAID, COMPLETED, UNDERPAID (something) or TIMEOUT (nothing).
    return statusAfterPayments({ ...invoice, status: 'TIMEOUT' }, amounts, rules.tolerancePercent, invoice.expiredAt, rules.toleranceMaxUsd);
  };
  const band = shareOf(settled);
  const describe = (b: string) => ({ OVERPAID: 'paid above the tolerance', COMPLETED: 'paid within the tolerance', UNDERPAID: 'paid below the tolerance', TIMEOUT: 'nothing counted' })[b] ?? b;
  const said = `its settled payments say ${describe(band)}`;
  switch (invoice.status) {
    case 'COMPLETED':
    case 'OVERPAID':
    case 'UNDERPAID':
      return band === invoice.status ? null : said;
    case 'ACTIVE':
      return band === 'UNDERPAID' || band === 'TIMEOUT' ? null : said;
    case 'TIMEOUT':
      return band === 'TIMEOUT' ? null : said;
    case 'CANCELED':
      return shareOf(settled.filter((p) => p.releaseAction === null)) === 'TIMEOUT' ? null : `${said}, not by a merchant's release`;
    case 'AML_FAILED':
      // Only a flagged payment that would have paid the invoice ends it (issue 22, case 5): a smaller one is returned and the invoice stays open.
      return payments.some((p) => p.paymentState === 'REFUNDED' && p.releaseAction === null && shareOf([p]) !== 'TIMEOUT' && shareOf([p]) !== 'UNDERPAID')
        ? null
        : 'no payment that would have paid it was refunded after an AML check';
    case 'ERROR':
      return payments.some((p) => p.paymentState === 'FAILED' || p.operatorRetries > 0) ? null : 'no payment failed';
    default:
      return null;
  }
}

// As settle() converts a fee paid in the other token: at the invoice's fixed rates, 0 when a rate is missing.
function convertFee(fee: bigint, amounts: InvoiceCurrency[], from: string, to: string | null): bigint {
  const fromRow = amounts.find((a) => a.currency === from);
  const toRow = amounts.find((a) => a.currency === to);
  if (!fromRow || !toRow) return 0n;
  return convertUnits(fee, rateOf(fromRow.rateUsd), rateOf(toRow.rateUsd));
}

/**
 * A refund keeps the network cost it deducted (migration 0057 records the figures on the
 * payment): TRX, the estimated burn less what the receipt says was burned (the payment paid
 * the burn); USDT, the gas with its margin at the recorded rates. What was sent is the rest.
 */
async function proveRefund(where: string, p: Transaction, refunds: Transaction[], kept: bigint, receipt: Receipts): Promise<string[]> {
  const out: string[] = [];
  if (refunds.length !== 1) return [`${where} payment ${p.id}: REFUNDED with ${refunds.length} confirmed refunds`];
  if (p.costSun === null) return out; // refunded before migration 0057: only its ledger balance is proven
  const sent = refunds[0]!;
  const r = await receipt(sent.trnHash);
  if (r.status !== 'confirmed') return [`${where} payment ${p.id}: its refund ${sent.trnHash} is ${r.status} on chain`];
  let deducted = p.costSun;
  let expectedKept: bigint;
  if (p.currency === 'TRX') expectedKept = p.costSun - r.feeSun > 0n ? p.costSun - r.feeSun : 0n;
  else {
    if (!p.trxRateUsd || !p.usdtRateUsd) return [`${where} payment ${p.id}: USDT refund without its recorded rates`];
    deducted = convertUnits(p.costSun, rateOf(p.trxRateUsd), rateOf(p.usdtRateUsd));
    expectedKept = deducted;
  }
  if (sent.amountUnits !== p.amountUnits - deducted) out.push(`${where} payment ${p.id}: refund sent ${fmt(sent.amountUnits)} ${p.currency}, its recorded cost leaves ${fmt(p.amountUnits - deducted)}`);
  if (kept !== expectedKept) out.push(`${where} payment ${p.id}: FEE_KEPT ${fmt(kept)} ${p.currency} for the refund, its recorded cost and receipt give ${fmt(expectedKept)}`);
  return out;
}

/**
 * A payout paid each target its amount exactly once: at most one confirmed send per target,
 * and that send is, on chain, a successful transfer of the target's amount to its address
 * (read from the block the receipt names, not from the send's row); `output` is their sum;
 * COMPLETED only with every target paid; `input` never more than the top-ups recorded.
 */
async function provePayout(payout: Inv, rows: Transaction[], receipt: Receipts, chain: Chain): Promise<string[]> {
  const out: string[] = [];
  const where = `payout ${payout.id}`;
  const due = payout.amounts[0];
  if (!due) return [`${where}: no amounts`];
  const targets = parseStoredTargets(payout.targetWallets).map((t) => ({ address: t.address, units: tokenUnits(t.amount) }));
  const sends = rows.filter((r) => r.sendPurpose === 'PAYOUT_TARGET' && r.sendState === 'CONFIRMED');
  let paid = 0n;
  let targetsPaid = 0;
  for (const [i, t] of targets.entries()) {
    const mine = sends.filter((s) => s.sendIndex === i);
    if (mine.length > 1) out.push(`${where} target ${i} (${t.address}): paid ${mine.length} times (sends ${mine.map((s) => s.trnHash).join(', ')})`);
    for (const s of mine) {
      const r = await receipt(s.trnHash);
      if (r.status !== 'confirmed' || r.blockNumber === null) {
        out.push(`${where} target ${i}: send ${s.trnHash} is ${r.status} on chain`);
        continue;
      }
      const moved = await transferOnChain(chain, s.trnHash, r.blockNumber);
      if (!moved || !moved.success || moved.to !== t.address || moved.amount !== t.units || moved.token !== due.currency) {
        out.push(`${where} target ${i}: send ${s.trnHash} moved ${moved ? `${fmt(moved.amount)} ${moved.token} to ${moved.to}` : 'nothing'} on chain, the target is ${fmt(t.units)} ${due.currency} to ${t.address}`);
        continue;
      }
      paid += moved.amount;
    }
    if (mine.length > 0) targetsPaid++;
  }
  const stray = sends.filter((s) => s.sendIndex === null || s.sendIndex < 0 || s.sendIndex >= targets.length);
  if (stray.length) out.push(`${where}: ${stray.length} confirmed sends to no target`);
  // An open payout books its progress after each round: its output is judged once it has ended.
  if (payout.status !== 'ACTIVE' && due.forwardedUnits !== paid) out.push(`${where} transfer_amounts output: reported ${fmt(due.forwardedUnits)}, its targets received ${fmt(paid)} on chain`);
  if (payout.status === 'COMPLETED' && targetsPaid !== targets.length) out.push(`${where} status COMPLETED: ${targetsPaid} of ${targets.length} targets paid`);
  const topUps = sumOf(rows.filter((r) => r.type === 'TOPUP' && r.currency === due.currency));
  if (due.receivedUnits > topUps) out.push(`${where} transfer_amounts input: reported ${fmt(due.receivedUnits)}, its top-ups brought ${fmt(topUps)}`);
  if (sends.length > 0 && due.receivedUnits < due.dueUnits) out.push(`${where} transfer_amounts input: reported ${fmt(due.receivedUnits)} below the ${fmt(due.dueUnits)} it needed before paying`);
  // cost: the quoted fee once it ended COMPLETED or ERROR; after a return, what was kept of the
  // top-up (input less output less what came back on chain), never the quote that went back (ERROR,
  // TIMEOUT) nor less than it (COMPLETED: only the excess came back).
  const returnedSends = rows.filter((r) => r.sendPurpose === 'PAYOUT_RETURN' && r.sendState === 'CONFIRMED' && r.currency === due.currency);
  let returned = 0n;
  for (const s of returnedSends) {
    const r = await receipt(s.trnHash);
    const moved = r.status === 'confirmed' && r.blockNumber !== null ? await transferOnChain(chain, s.trnHash, r.blockNumber) : undefined;
    if (!moved?.success || moved.amount !== s.amountUnits) out.push(`${where} return ${s.trnHash}: ${moved ? `moved ${fmt(moved.amount)}` : 'not confirmed'} on chain, booked ${fmt(s.amountUnits)}`);
    else returned += moved.amount;
  }
  const cost = payout.costUnits ?? null;
  if (payout.payoutReturn?.returnedAt) {
    const kept = due.receivedUnits - due.forwardedUnits - returned;
    const expected = kept > 0n ? kept : 0n;
    if (cost !== expected) out.push(`${where} cost: reported ${cost === null ? 'null' : fmt(cost)}, after its return it kept ${fmt(expected)} ${due.currency}`);
    // A COMPLETED payout returns only its excess (docs/payouts.md, "Returning the excess"): what came back on chain
    // is at most what arrived beyond its quoted top-up, so its fee stayed and it still kept at least that.
    const excess = due.receivedUnits - due.dueUnits;
    if (payout.status === 'COMPLETED' && returned > excess) out.push(`${where} return: ${fmt(returned)} ${due.currency} came back on chain, more than the ${fmt(excess > 0n ? excess : 0n)} that arrived beyond its top-up: its fee went with it`);
  } else if ((payout.status === 'COMPLETED' || payout.status === 'ERROR') && cost !== due.feeUnits) {
    out.push(`${where} cost: reported ${cost === null ? 'null' : fmt(cost)}, its quoted fee is ${fmt(due.feeUnits)} ${due.currency}`);
  }
  return out;
}

async function transferOnChain(chain: Chain, txId: string, block: number): Promise<Transfer | undefined> {
  const { transfers } = await chain.getBlockRangeTransfers(block, block);
  return transfers.find((t) => t.txId === txId);
}
