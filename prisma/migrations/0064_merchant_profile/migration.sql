-- The merchant's profile, shown to customers on the payment page (issue 26): who they are paying
-- and how to reach the merchant where the page says "contact the merchant". All optional; without
-- them the page keeps its generic wording. The logo is an https URL the customer's browser loads:
-- the server never fetches it.
ALTER TABLE "merchants"
  ADD COLUMN "store_name" VARCHAR(80),
  ADD COLUMN "support_email" VARCHAR(254),
  ADD COLUMN "support_url" VARCHAR(2048),
  ADD COLUMN "logo_url" VARCHAR(2048);
