import type { TransactionStatus } from '@/lib/chain/types';
import type { MerchantBalanceEntry, PrismaClient } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { percentOf } from '@/lib/money/fees';
import { RATE_DECIMALS, TOKEN_DECIMALS } from '@/lib/money/tokens';
import { amlCheckSchema } from '@/lib/transactions/schemas';

type Receipts = (txId: string) => Promise<TransactionStatus>;
const fmt = (n: bigint) => n.toString();

/**
 * Per merchant (docs/worker.md, "The ledger"): `balance` and `activation_balance` equal the
 * sum of their rows in merchant_balance_entries (lib/merchants/balance.ts), and each row is
 * its cause, read independently: AML_CHECK, a completed check (the payment's `aml_check`
 * record) at the cost that record names; NETWORK_FEE, a confirmed send the merchant pays for
 * (`cost_payer = MERCHANT`) at the fee its chain receipt says; TOPUP_CREDIT, a settled top-up
 * of the merchant's wallets at its amount (TRX) or recomputed from its recorded rates less the
 * top-up fee (USDT). Every such cause has its row. OPENING rows (migration 0057) hold what was
 * booked before the ledger existed and are taken as they are.
 */
export async function proveMerchants(prisma: PrismaClient, receipt: Receipts, topupFeePercent: string): Promise<{ mismatches: string[]; merchantsChecked: number }> {
  const mismatches: string[] = [];
  const merchants = await prisma.merchant.findMany({ select: { id: true, balanceSun: true, activationBalanceSun: true, topupWalletAddress: true, activationWalletAddress: true }, orderBy: { id: 'asc' } });
  const entries = await prisma.merchantBalanceEntry.findMany({ orderBy: { id: 'asc' } });
  const causes = await prisma.transaction.findMany({
    where: { OR: [{ type: 'PAYMENT', amlCheck: { not: { equals: null } } }, { sendState: 'CONFIRMED', costPayer: 'MERCHANT' }, { type: 'TOPUP', invoiceId: null, paymentState: 'SETTLED' }, { id: { in: entries.flatMap((e) => (e.transactionId === null ? [] : [e.transactionId])) } }] },
  });
  const causeById = new Map(causes.map((c) => [c.id, c]));
  const entriesOf = (txId: number) => entries.filter((e) => e.transactionId === txId);
  const merchantOf = new Map(merchants.map((m) => [m.id, m]));

  for (const m of merchants) {
    for (const [balance, held] of [['BALANCE', m.balanceSun], ['ACTIVATION', m.activationBalanceSun]] as const) {
      const sum = entries.filter((e) => e.merchantId === m.id && e.balance === balance).reduce((s, e) => s + e.deltaSun, 0n);
      if (sum !== held) mismatches.push(`merchant ${m.id} ${balance === 'BALANCE' ? 'balance' : 'activation_balance'}: reported ${fmt(held)} sun, its ledger sums to ${fmt(sum)}`);
    }
  }

  // Energy rented for a send's attempt (energy_rentals by payment, purpose and attempt): charged with the send.
  const rentals = await prisma.energyRental.findMany({ where: { priceSun: { not: null } }, select: { paymentId: true, purpose: true, attempt: true, priceSun: true } });
  const rentedFor = (c: { sourceId: number | null; sendPurpose: string | null; sendAttempt: number | null }) =>
    rentals.filter((r) => r.paymentId === c.sourceId && r.purpose === c.sendPurpose && r.attempt === c.sendAttempt).reduce((s, r) => s + r.priceSun!, 0n);

  /** What a row should say, from its cause alone; a string names why it cannot be. */
  const expected = async (e: MerchantBalanceEntry): Promise<{ balance: string; deltaSun: bigint; merchantId: number } | string> => {
    const c = e.transactionId === null ? undefined : causeById.get(e.transactionId);
    if (!c) return 'no cause';
    if (e.kind === 'AML_CHECK') {
      const record = amlCheckSchema.safeParse(c.amlCheck);
      if (c.type !== 'PAYMENT' || !record.success || !record.data.completed) return `transaction ${c.id} has no completed AML check`;
      return { balance: 'BALANCE', deltaSun: -parseScaled(String(record.data.cost), TOKEN_DECIMALS), merchantId: c.merchantId! };
    }
    if (e.kind === 'NETWORK_FEE') {
      if (c.sendState !== 'CONFIRMED' || c.costPayer !== 'MERCHANT') return `transaction ${c.id} is no confirmed send the merchant pays for`;
      const r = await receipt(c.trnHash);
      if (r.status !== 'confirmed') return `send ${c.trnHash} is ${r.status} on chain`;
      return { balance: 'ACTIVATION', deltaSun: -r.feeSun, merchantId: c.merchantId! };
    }
    if (e.kind === 'ENERGY_RENTAL') {
      if (c.sendState !== 'CONFIRMED' || c.costPayer !== 'MERCHANT') return `transaction ${c.id} is no confirmed send the merchant pays for`;
      return { balance: 'ACTIVATION', deltaSun: -rentedFor(c), merchantId: c.merchantId! };
    }
    if (e.kind === 'TOPUP_CREDIT') {
      const owner = merchantOf.get(c.merchantId!);
      if (c.type !== 'TOPUP' || c.invoiceId !== null || c.paymentState !== 'SETTLED' || !owner) return `transaction ${c.id} is no settled top-up`;
      const balance = c.toAddress === owner.activationWalletAddress ? 'ACTIVATION' : 'BALANCE';
      if (c.currency === 'TRX') return { balance, deltaSun: c.amountUnits, merchantId: c.merchantId! };
      // A USDT top-up credited before migration 0057 kept no rates: its credit is in the OPENING row.
      if (!c.trxRateUsd || !c.usdtRateUsd) return `USDT top-up ${c.id} without its recorded rates`;
      const gross = (c.amountUnits * parseScaled(c.usdtRateUsd.toFixed(), RATE_DECIMALS)) / parseScaled(c.trxRateUsd.toFixed(), RATE_DECIMALS);
      return { balance, deltaSun: gross - percentOf(gross, topupFeePercent), merchantId: c.merchantId! };
    }
    return 'unknown kind';
  };

  for (const e of entries) {
    if (e.kind === 'OPENING') {
      if (e.transactionId !== null) mismatches.push(`merchant ${e.merchantId} balance entry ${e.id}: OPENING tied to transaction ${e.transactionId}`);
      continue;
    }
    const want = await expected(e);
    const label = `merchant ${e.merchantId} ${e.kind} entry ${e.id} (transaction ${e.transactionId})`;
    if (typeof want === 'string') mismatches.push(`${label}: ${want}`);
    else if (want.merchantId !== e.merchantId || want.balance !== e.balance || want.deltaSun !== e.deltaSun) {
      mismatches.push(`${label}: ${e.balance} ${fmt(e.deltaSun)} sun, its cause says merchant ${want.merchantId} ${want.balance} ${fmt(want.deltaSun)} sun`);
    }
  }

  // Every cause has its row.
  for (const c of causes) {
    const mine = entriesOf(c.id);
    const need = async (kind: string, applies: boolean) => {
      if (applies && !mine.some((e) => e.kind === kind)) mismatches.push(`merchant ${c.merchantId} transaction ${c.id}: ${kind} not booked on its balance`);
    };
    if (c.type === 'PAYMENT' && c.amlCheck !== null) {
      const record = amlCheckSchema.safeParse(c.amlCheck);
      await need('AML_CHECK', record.success && record.data.completed && record.data.cost > 0);
    }
    if (c.sendState === 'CONFIRMED' && c.costPayer === 'MERCHANT') {
      const r = await receipt(c.trnHash);
      await need('NETWORK_FEE', r.status === 'confirmed' && r.feeSun > 0n);
      await need('ENERGY_RENTAL', rentedFor(c) > 0n);
    }
    if (c.type === 'TOPUP' && c.invoiceId === null && c.paymentState === 'SETTLED') await need('TOPUP_CREDIT', c.amountUnits > 0n && (c.currency === 'TRX' || c.trxRateUsd !== null));
  }
  return { mismatches, merchantsChecked: merchants.length };
}
