-- One pool operation in flight per receiver and resource (was per receiver, migration 0059): a send
-- that needs the pool's energy and its bandwidth has both lent in one go, the bandwidth's lending
-- bound to the energy's block (TaPoS), instead of waiting for the energy's lending to be final (a
-- chain's finality more for every such forward: the second part of an invoice paid in two, a static
-- address's second forward of a day). A lending and a taking back of the same resource still never
-- race; across resources the taking back waits while any send to the address is in flight (busyAt,
-- lib/energy/reclaim.ts) and a send waits while a taking back is (energyShort, lib/energy/engine.ts).
-- COALESCE: a row without a resource still conflicts with another such row.
DROP INDEX "transactions_one_energy_op_in_flight_to";
CREATE UNIQUE INDEX "transactions_one_energy_op_in_flight_to" ON "transactions"("to_address", COALESCE("resource", ''))
  WHERE "send_state" IN ('SIGNED', 'BROADCAST') AND "type" IN ('DELEGATE', 'UNDELEGATE');
