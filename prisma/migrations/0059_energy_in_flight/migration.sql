-- One pool operation in flight per receiver (issue 23): a delegation for a send and the reclaim of
-- what was lent there never race (a new enum value cannot be used in the migration that adds it).
CREATE UNIQUE INDEX "transactions_one_energy_op_in_flight_to" ON "transactions"("to_address")
  WHERE "send_state" IN ('SIGNED', 'BROADCAST') AND "type" IN ('DELEGATE', 'UNDELEGATE');
