-- What the network actually cost for an invoice's sends (issue 23, docs/energy.md "What it costs,
-- and who pays"; the API's `network_cost_trx`): the TRX every send of the invoice burned (forwards,
-- refunds, gas, the pool's lending and taking back, gas returns, payout sends), from their receipts,
-- and the price of energy rented for them. Not the spec's `cost`, which stays the service fee.
ALTER TABLE "invoices" ADD COLUMN "network_cost_sun" BIGINT NOT NULL DEFAULT 0;

-- Kept by the ledger itself: each NETWORK_COST or ENERGY_RENTAL row booked on an invoice adds its
-- units here, in the booking's transaction (a retried booking inserts nothing, so adds nothing).
-- Not to the invoice row itself: that would make every send's confirmation wait for whoever holds
-- the invoice (a settlement, a merchant's cancel). The worker folds these into
-- invoices.network_cost_sun within seconds (lib/ledger/networkCost.ts); reconcile counts both.
-- No foreign key: its check would lock the invoice row too.
CREATE TABLE "invoice_network_cost_deltas" (
  "id" SERIAL PRIMARY KEY,
  "invoice_id" INTEGER NOT NULL,
  "sun" BIGINT NOT NULL
);

CREATE FUNCTION "invoice_network_cost_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "invoice_network_cost_deltas" ("invoice_id", "sun") VALUES (NEW."invoice_id", NEW."units");
  RETURN NULL;
END $$;

CREATE TRIGGER "ledger_entries_network_cost" AFTER INSERT ON "ledger_entries"
  FOR EACH ROW WHEN (NEW."invoice_id" IS NOT NULL AND NEW."kind" IN ('NETWORK_COST', 'ENERGY_RENTAL'))
  EXECUTE FUNCTION "invoice_network_cost_add"();

UPDATE "invoices" i SET "network_cost_sun" = c."sun"
  FROM (SELECT "invoice_id", SUM("units")::bigint AS "sun" FROM "ledger_entries"
         WHERE "invoice_id" IS NOT NULL AND "kind" IN ('NETWORK_COST', 'ENERGY_RENTAL') GROUP BY "invoice_id") c
 WHERE i."id" = c."invoice_id";
