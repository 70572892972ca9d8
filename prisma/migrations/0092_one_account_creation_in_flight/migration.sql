-- Only the first transfer to a new account pays its creation (1.1 TRX). A TRX forward deducts what
-- it will burn from the payment, so two forwards to one new merchant wallet, each costed with the
-- creation, would leave 1.1 TRX stranded at the address of the one that landed second. A send
-- costed with the creation says so, and only one such send to an address is in flight at a time;
-- another waits until the account exists and is costed without it (lib/payments/sends.ts).
ALTER TABLE "transactions" ADD COLUMN "creates_account" BOOLEAN NOT NULL DEFAULT false;
CREATE UNIQUE INDEX "transactions_one_account_creation_in_flight_to" ON "transactions"("to_address")
  WHERE "creates_account" AND "send_state" IN ('SIGNED', 'BROADCAST');
