-- Rented energy, what was charged against what was quoted (issue 23, docs/energy.md "Rented energy"):
-- the quote an order was placed on (a retried order is quoted again), when the order was first
-- posted (from then on the provider may have placed and charged it, whatever answer comes back:
-- an order posted and never answered is pointed at by the alert and by reconcile), and how far the
-- charge went above ENERGY_RENTAL_MAX_TRX (booked as charged; renting pauses for an hour).
ALTER TABLE "energy_rentals" ADD COLUMN "quoted_price_sun" BIGINT;
ALTER TABLE "energy_rentals" ADD COLUMN "order_posted_at" TIMESTAMPTZ(6);
ALTER TABLE "energy_rentals" ADD COLUMN "overcharged_sun" BIGINT;
