-- Issue 16: the exact count of a text search (search=coffee matches 200,000 of a million
-- invoices; counting them takes 160-270 ms), kept per merchant and term and brought up to date
-- incrementally (lib/invoices/searchCount.ts).
--
-- Why an entry stays exact: the text a search matches (address, description, id) never changes
-- once an invoice is written, except by the UPDATEs and DELETEs counted in
-- invoice_text_versions below. An entry holds, from one snapshot, the count n, the merchant's
-- total number of invoices (from invoice_counts) and the largest id it saw. A later reader sees
-- every invoice that snapshot saw, plus new ones; if its total minus the invoices with a larger
-- id equals the entry's total, the invoices up to that id are exactly the ones counted (none
-- committed late with a smaller id), and n plus the matches among the larger ids is the count.
-- Otherwise, or when the merchant's text version moved, the reader counts again.
CREATE TABLE "invoice_search_counts" (
    "merchant_id" INTEGER NOT NULL,
    "term" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    "total" BIGINT NOT NULL,
    "max_id" INTEGER NOT NULL,
    "text_version" BIGINT NOT NULL,
    "counted_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "invoice_search_counts_pkey" PRIMARY KEY ("merchant_id", "term")
);

-- Per merchant: how many times an invoice's searchable text (address, description, id, owner)
-- changed or an invoice was deleted. Creations do not touch it.
CREATE TABLE "invoice_text_versions" (
    "merchant_id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL,
    CONSTRAINT "invoice_text_versions_pkey" PRIMARY KEY ("merchant_id")
);

CREATE FUNCTION "invoice_text_versions_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO "invoice_text_versions"
    SELECT "merchant_id", 1 FROM "old_rows" GROUP BY 1 ORDER BY 1
    ON CONFLICT ("merchant_id") DO UPDATE SET "version" = "invoice_text_versions"."version" + 1;
  ELSE
    INSERT INTO "invoice_text_versions"
    SELECT m, 1 FROM (
      SELECT o."merchant_id" m FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."address", o."description") IS DISTINCT FROM (n."merchant_id", n."address", n."description")
      UNION
      SELECT n."merchant_id" FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."address", o."description") IS DISTINCT FROM (n."merchant_id", n."address", n."description")
    ) changed GROUP BY 1 ORDER BY 1
    ON CONFLICT ("merchant_id") DO UPDATE SET "version" = "invoice_text_versions"."version" + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "invoice_search_counts_clear"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- TRUNCATE (tests, a restore) may restart ids: no entry can be trusted.
  DELETE FROM "invoice_search_counts";
  RETURN NULL;
END $$;

CREATE TRIGGER "invoices_text_version_update" AFTER UPDATE ON "invoices" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "invoice_text_versions_bump"();
CREATE TRIGGER "invoices_text_version_delete" AFTER DELETE ON "invoices" REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "invoice_text_versions_bump"();
CREATE TRIGGER "invoices_search_counts_truncate" AFTER TRUNCATE ON "invoices" FOR EACH STATEMENT EXECUTE FUNCTION "invoice_search_counts_clear"();
