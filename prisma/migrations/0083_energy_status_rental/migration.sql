-- What rented energy costs now, published by the worker for the web (issue 23, docs/energy.md): the
-- provider's quote for a cold USDT send's energy (null: no provider, unavailable, above
-- ENERGY_RENTAL_MAX_TRX or not cheaper than burning), so the smallest invoice and a payout's quote can
-- count on rented energy when the pool cannot pay; and which source `usdt_forward_cost_sun` is for.
ALTER TABLE "energy_status" ADD COLUMN "rental_cold_send_price_sun" BIGINT;
ALTER TABLE "energy_status" ADD COLUMN "usdt_forward_source" "EnergySource";
