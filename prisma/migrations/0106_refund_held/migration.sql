-- A refund funded from money the service still holds for its invoice (issue 36, docs/refunds.md
-- "Funded from held money"): a HELD payment of the invoice, in the refund's token, is committed to
-- the refund (`refund_id`) when the refund is made, and released into the refund's payout (a
-- release REFUND to the payout's top-up address) once that payout exists. While the refund stands
-- the payment cannot be released another way (lib/payments/operator.ts); a canceled or failed
-- refund frees it again. `refund_cost_units`: the release's network cost in the token as estimated
-- when committed (what leaves the payment before it reaches the payout), until its send is built.
ALTER TABLE "transactions" ADD COLUMN "refund_id" INTEGER REFERENCES "refunds"("id");
ALTER TABLE "transactions" ADD COLUMN "refund_cost_units" BIGINT CHECK ("refund_cost_units" >= 0);
CREATE INDEX "transactions_refund_id" ON "transactions"("refund_id");
