-- The energy source a USDT payout was quoted with (issue 23, docs/energy.md "Payouts"): the pool
-- (no network fee), rented energy (its price) or burning. The run follows the quote: a payout quoted
-- with the pool waits for the pool rather than rent or burn what its top-up did not pay for.
ALTER TABLE "invoices" ADD COLUMN "quoted_energy_source" "EnergySource";
