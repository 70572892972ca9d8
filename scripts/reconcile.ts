/**
 * `npm run reconcile`: proves the ledger against itself and the chain, and what was reported
 * or owed against the ledger, the payments and the chain (lib/reconcile/reconcile.ts). Prints
 * every mismatch and exits 1 on any. Without DATABASE_URL it reconciles the local run
 * (`npm run dev`) as it was left (scripts/devEnv.ts).
 */
import { runOperatorCommand } from './devEnv';

await runOperatorCommand(async (prisma) => {
  const { chain } = await import('@/lib/chain');
  const { config, workerConfig } = await import('@/lib/config');
  const { reconcile } = await import('@/lib/reconcile/reconcile');
  const c = config();
  const w = workerConfig();
  const rules = { forwardingFeePercent: c.FORWARDING_FEE_PERCENT, topupFeePercent: c.TOPUP_FEE_PERCENT, tolerancePercent: w.PAYMENT_TOLERANCE_PERCENT, toleranceMaxUsd: w.PAYMENT_TOLERANCE_MAX_USD };
  const { rentalProvider } = await import('@/lib/energy/rentals');
  // With a rental provider configured, its own account summary is checked against the rentals recorded here.
  const r = await reconcile(prisma, chain(), rules, rentalProvider(w));
  for (const m of r.mismatches) console.error(`MISMATCH ${m}`);
  for (const [currency, t] of Object.entries(r.totals)) console.log(`${currency}: ${Object.entries(t).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`${r.invoicesChecked} invoices, ${r.payoutsChecked} payouts and ${r.merchantsChecked} merchants proven against their payments, ledgers and the chain`);
  if (r.rentalsChecked) console.log(`${r.rentalsChecked} energy rentals proven against the ledger${rentalProvider(w) ? ' and the provider account' : ''}`);
  if (r.sendsFinalUnbooked || r.transfersUnread) console.log(`final on chain, not booked yet by the worker: ${r.sendsFinalUnbooked} sends (counted from their receipts), ${r.transfersUnread} transfers to service addresses (counted from their blocks)`);
  console.log(`${r.paymentsChecked} payments checked, ${r.paymentsInProgress} in progress, ${r.payoutsInProgress} payout${r.payoutsInProgress === 1 ? '' : 's'} in progress, ${r.addressesChecked} addresses checked against the chain: ${r.mismatches.length ? `${r.mismatches.length} mismatches` : 'balanced'}`);
  return r.mismatches.length ? 1 : 0;
});
