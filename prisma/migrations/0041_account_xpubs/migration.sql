-- Issue 16: the web process creates invoice addresses without the HD mnemonic and without
-- locking the merchant row.
--
-- Each merchant's account-level extended public key, m/44'/195'/<merchant id>' (lib/chain/keys.ts):
-- invoice, top-up and activation addresses derive from it. Merchants that exist before this
-- migration get theirs from the first process that holds the mnemonic (scripts/run.ts, the seed,
-- the worker: lib/merchants/accounts.ts), which checks them against the stored addresses.
ALTER TABLE "merchants" ADD COLUMN "account_xpub" TEXT;

-- Accounts prepared ahead by a process that holds the mnemonic: account 0 (the service's own,
-- whose gas wallet the web shows) and the next free merchant ids. Sign-up claims one
-- (FOR UPDATE SKIP LOCKED) and creates the merchant with that id.
CREATE TABLE "hd_accounts" (
    "account" INTEGER NOT NULL,
    "xpub" TEXT NOT NULL,
    CONSTRAINT "hd_accounts_pkey" PRIMARY KEY ("account")
);

-- Invoice address indexes come from one sequence instead of an UPDATE of the merchant row
-- (which serialised a merchant's creations). It starts above every index handed out so far, so
-- (merchant_id, address_index) stays unique; a merchant's indexes are no longer dense.
CREATE SEQUENCE "invoice_address_index_seq" AS INTEGER;
SELECT setval('invoice_address_index_seq', GREATEST((SELECT max("next_address_index") FROM "merchants"), (SELECT max("address_index") + 1 FROM "invoices"), 1), false);

-- Private keys are derived by the worker when it signs (lib/payments/process.ts, lib/payouts/run.ts);
-- new invoices store none. Older rows keep theirs (unused, still resealed on key rotation).
ALTER TABLE "invoices" ALTER COLUMN "private_key_enc" DROP NOT NULL;
