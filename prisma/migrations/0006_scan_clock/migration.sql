-- The time of the last block the scanner has recorded. Invoices expire by this
-- clock, not the wall clock: a payment in a block before expired_at is only
-- recorded once that block is final, and must not find its invoice TIMEOUT.
ALTER TABLE "chain_cursors" ADD COLUMN "block_time" TIMESTAMPTZ(6);
