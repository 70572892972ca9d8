-- What the network actually cost for an invoice's sends (issue 23, docs/energy.md "What it costs,
-- and who pays"; the API's `network_cost_trx`): the TRX every send of the invoice burned (forwards,
-- refunds, gas, the pool's lending and taking back, gas returns, payout sends), from their receipts,
-- and the price of energy rented for them. Kept by the ledger itself: each NETWORK_COST or
-- ENERGY_RENTAL row booked on an invoice adds its units, in the same transaction (a retried booking
-- inserts nothing, so adds nothing). reconcile recomputes it from chain receipts and the rentals.
-- Not the spec's `cost`, which stays the service fee.
ALTER TABLE "invoices" ADD COLUMN "network_cost_sun" BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION "invoice_network_cost_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "invoices" SET "network_cost_sun" = "network_cost_sun" + NEW."units" WHERE "id" = NEW."invoice_id";
  RETURN NULL;
END $$;

CREATE TRIGGER "ledger_entries_network_cost" AFTER INSERT ON "ledger_entries"
  FOR EACH ROW WHEN (NEW."invoice_id" IS NOT NULL AND NEW."kind" IN ('NETWORK_COST', 'ENERGY_RENTAL'))
  EXECUTE FUNCTION "invoice_network_cost_add"();

UPDATE "invoices" i SET "network_cost_sun" = c."sun"
  FROM (SELECT "invoice_id", SUM("units")::bigint AS "sun" FROM "ledger_entries"
         WHERE "invoice_id" IS NOT NULL AND "kind" IN ('NETWORK_COST', 'ENERGY_RENTAL') GROUP BY "invoice_id") c
 WHERE i."id" = c."invoice_id";
