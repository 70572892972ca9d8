-- The pool's headroom against the next hour's need (issue 23, docs/energy.md "Alerts"): the energy
-- the worker expects USDT sends to borrow in the next hour, and since when the pool could not lend it.
ALTER TABLE "energy_status"
  ADD COLUMN "next_hour_need_energy" BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN "headroom_low_since" TIMESTAMPTZ(6);

-- The worker reads the last hour's lending and the payments waiting for energy every few seconds:
-- both stay small, so partial indexes keep the reads off the whole transactions table.
CREATE INDEX "transactions_delegate_created_at_idx" ON "transactions"("created_at") WHERE "type" = 'DELEGATE';
CREATE INDEX "transactions_waiting_idx" ON "transactions"("id") WHERE "waiting_reason" IS NOT NULL;
