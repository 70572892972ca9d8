-- Merchants' top-up and activation wallets are service addresses in the reconciliation (issue 13):
-- the scanner now books their incoming transfers in the ledger as PAYMENT_IN; those recorded
-- before this migration are booked here the same way.
INSERT INTO "ledger_entries" ("address", "currency", "kind", "delta_units", "units", "payment_id", "transaction_id")
  SELECT "to_address", "currency", 'PAYMENT_IN', "amount_units", "amount_units", "id", "id"
  FROM "transactions" WHERE "type" = 'TOPUP' AND "invoice_id" IS NULL
  ON CONFLICT ("transaction_id", "kind", "address") DO NOTHING;
