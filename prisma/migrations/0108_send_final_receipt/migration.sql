-- A send's receipt as the scanner of solidified blocks read it with its final block (issue 37): the
-- receipts of a block with contract calls (every block of mainnet, a USDT forward's on the devnet)
-- are read for the payments in it, and those of our sends in flight are kept here, so a send's
-- follow books it without asking the node for its receipt again (lib/payments/scan.ts, lib/sends/steps.ts).
ALTER TABLE "transactions" ADD COLUMN "final_receipt" JSONB;
