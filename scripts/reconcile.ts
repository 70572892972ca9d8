/**
 * `npm run reconcile`: proves the ledger against itself and the chain
 * (lib/ledger/reconcile.ts). Prints every mismatch and exits 1 on any.
 */
import { chain } from '@/lib/chain';
import { db } from '@/lib/db/client';
import { reconcile } from '@/lib/ledger/reconcile';

const prisma = db();
try {
  const r = await reconcile(prisma, chain());
  for (const m of r.mismatches) console.error(`MISMATCH ${m}`);
  for (const [currency, t] of Object.entries(r.totals)) console.log(`${currency}: ${Object.entries(t).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  console.log(`${r.paymentsChecked} payments checked, ${r.paymentsInProgress} in progress, ${r.addressesChecked} addresses checked against the chain: ${r.mismatches.length ? `${r.mismatches.length} mismatches` : 'balanced'}`);
  process.exitCode = r.mismatches.length ? 1 : 0;
} finally {
  await prisma.$disconnect();
}
