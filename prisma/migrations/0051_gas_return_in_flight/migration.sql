-- One send in flight per address (migration 0010) also covers a gas return from the address: it
-- spends the balance a forward or refund would be planned on. (A separate migration: a new enum
-- value cannot be used in the transaction that adds it.)
DROP INDEX "transactions_one_send_in_flight_from";
CREATE UNIQUE INDEX "transactions_one_send_in_flight_from" ON "transactions"("from_address")
  WHERE "send_state" IN ('SIGNED', 'BROADCAST') AND "send_purpose" IN ('FORWARD', 'REFUND', 'GAS_RETURN');
-- The worker finds settled payments with gas to return without scanning every transaction.
CREATE INDEX "transactions_gas_return_due_idx" ON "transactions"("id") WHERE "gas_return_due";
