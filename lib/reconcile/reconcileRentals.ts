import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { RentalClient } from '@/lib/energy/rental';
import { rentalLedgerAddress } from '@/lib/ledger/book';

const fmt = (n: bigint) => n.toString();

/**
 * Rented energy (docs/energy.md, "Rented energy"), proven three ways: every order the provider
 * accepted (energy_rentals with a price) has its ENERGY_RENTAL ledger row at that price and every
 * such row its order; and, when the provider is given, the account's own summary at the provider
 * (`total_sum_trx`, what it charged us in all) equals the sum of the rentals' prices. (The provider
 * account may be shared with other users of the key: then its total is only at least ours.) A
 * difference names the orders that were posted and never answered: the likeliest cause.
 */
export async function proveRentals(prisma: PrismaClient, provider?: RentalClient | null): Promise<{ mismatches: string[]; rentalsChecked: number; rentalSpentSun: bigint }> {
  const mismatches: string[] = [];
  const rentals = await prisma.energyRental.findMany({ where: { priceSun: { not: null } }, orderBy: { id: 'asc' } });
  const rows = await prisma.ledgerEntry.findMany({ where: { kind: 'ENERGY_RENTAL' } });
  const byAddress = new Map(rows.map((r) => [r.address, r]));
  let spent = 0n;
  for (const r of rentals) {
    spent += r.priceSun!;
    const row = byAddress.get(rentalLedgerAddress(r.outTradeNo));
    if (!row) mismatches.push(`energy rental ${r.outTradeNo} (order ${r.serial}): ${fmt(r.priceSun!)} sun paid, not in the ledger`);
    else if (row.units !== r.priceSun || row.deltaUnits !== -r.priceSun! || row.paymentId !== r.paymentId) mismatches.push(`energy rental ${r.outTradeNo}: ${fmt(r.priceSun!)} sun for payment ${r.paymentId}, the ledger says ${fmt(row.units)} for payment ${row.paymentId}`);
  }
  const known = new Set(rentals.map((r) => rentalLedgerAddress(r.outTradeNo)));
  for (const row of rows) if (!known.has(row.address)) mismatches.push(`ledger entry ${row.id}: ENERGY_RENTAL at ${row.address} without a rental that was paid`);
  if (provider) {
    const summary = await provider.summary();
    if (summary.totalSun !== spent) {
      // Orders posted whose answer never came (the row ended FAILED or ABANDONED, or is still being asked): the provider may have placed and charged them.
      const unanswered = await prisma.energyRental.findMany({ where: { orderPostedAt: { not: null }, priceSun: null }, orderBy: { id: 'asc' } });
      const suspects = unanswered.length
        ? `; orders posted and never answered, which the provider may have placed: ${unanswered.map((r) => `${r.outTradeNo} (payment ${r.paymentId}, ${r.energyAmount} energy, posted ${r.orderPostedAt!.toISOString()}, ${r.state})`).join(', ')}`
        : '';
      mismatches.push(`energy rental provider: the account spent ${fmt(summary.totalSun)} sun on ${summary.count} orders, the rentals recorded here cost ${fmt(spent)} sun${suspects}`);
    }
  }
  return { mismatches, rentalsChecked: rentals.length, rentalSpentSun: spent };
}
