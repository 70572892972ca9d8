-- Issue 26: the list's search finds order ids too, by their start, case-insensitively
-- (lib/invoices/search.ts): `UX-1` finds UX-1 and UX-12. A merchant types an order id or its
-- beginning; the order ids of one shop share a prefix (`ord-`, `UX-`), so a substring search
-- through trigrams would walk those common trigrams' entries for every invoice (measured on the
-- benchmark's million invoices: search=ord-99999 went from 16 to 65 ms at p50). A prefix is a
-- range of this btree index instead, a few entries, and a bitmap of it joins the trigram
-- indexes' bitmaps for a rare term.
CREATE INDEX "invoices_merchant_id_lower_order_id_idx" ON "invoices" ("merchant_id", lower("order_id") text_pattern_ops);

-- A common term's page walks the newest invoices testing every searched column in the index
-- (migration 0055): the walk's index now carries the order id too, or each tested invoice would
-- be a fetch of its table row again.
CREATE INDEX "invoices_merchant_id_created_at_id_search2_idx" ON "invoices" ("merchant_id", "created_at", "id") INCLUDE ("address", "description", "order_id");
DROP INDEX "invoices_merchant_id_created_at_id_search_idx";
ALTER INDEX "invoices_merchant_id_created_at_id_search2_idx" RENAME TO "invoices_merchant_id_created_at_id_search_idx";

-- The kept search counts (migration 0054) stay exact while the searched text does not change:
-- an order id is searched text now, so a change of it moves the merchant's text version...
CREATE OR REPLACE FUNCTION "invoice_text_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "invoice_text_versions"
    SELECT "merchant_id", 1 FROM "old_rows" GROUP BY 1 ORDER BY 1
    ON CONFLICT ("merchant_id") DO UPDATE SET "version" = "invoice_text_versions"."version" + 1;
  ELSE
    INSERT INTO "invoice_text_versions"
    SELECT m, 1 FROM (
      SELECT o."merchant_id" m FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."address", o."description", o."order_id") IS DISTINCT FROM (n."merchant_id", n."address", n."description", n."order_id")
      UNION
      SELECT n."merchant_id" FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."address", o."description", o."order_id") IS DISTINCT FROM (n."merchant_id", n."address", n."description", n."order_id")
    ) changed GROUP BY 1 ORDER BY 1
    ON CONFLICT ("merchant_id") DO UPDATE SET "version" = "invoice_text_versions"."version" + 1;
  END IF;
  RETURN NULL;
END $$;

-- ... and the counts kept so far did not count order ids: they are counted again on first use.
DELETE FROM "invoice_search_counts";
