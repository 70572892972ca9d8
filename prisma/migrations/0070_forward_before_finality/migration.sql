-- Issue 24: payments are recorded from the head block and forwarded before they are final.
-- A payment row seen in a block that is not solidified yet has solidified = false (with the block it
-- was seen in); the scanner of solidified blocks sets it true and books it in the ledger. A payment
-- whose block a reorganisation replaced returns to unseen (block_number and block_id null) until it
-- is seen again; one whose transaction can no longer land is DROPPED.
ALTER TYPE "PaymentState" ADD VALUE 'DROPPED';
ALTER TABLE "transactions" ADD COLUMN "solidified" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "transactions" ADD COLUMN "block_id" TEXT;
CREATE INDEX "transactions_unsolidified" ON "transactions" ("block_number") WHERE NOT "solidified";
-- The head scanner's cursor keeps the id of its last block, to see a reorganisation.
ALTER TABLE "chain_cursors" ADD COLUMN "block_id" TEXT;
