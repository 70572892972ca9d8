-- Issue 16: the invoice list (spec 4.2) on a merchant with a million invoices.
-- Every list query runs inside one merchant, so each index starts with merchant_id and ends with
-- id, the list's tie-break (lib/invoices/service.ts): a page is then the first rows of one index,
-- and an id-only query over it is an index-only scan (deep offsets skip index entries, not rows).

-- ordering=created_at / -created_at (the default), and date_from/date_to.
DROP INDEX "invoices_merchant_id_created_at_idx";
CREATE INDEX "invoices_merchant_id_created_at_id_idx" ON "invoices" ("merchant_id", "created_at", "id");
-- ordering=amount sorts ascending NULLS FIRST (MULTIPLE invoices have no amount), -amount descending
-- NULLS LAST: the forward and backward scans of this one index.
CREATE INDEX "invoices_merchant_id_amount_usd_id_idx" ON "invoices" ("merchant_id", "amount_usd" NULLS FIRST, "id");
-- ordering=status / -status, and status=... with it.
DROP INDEX "invoices_merchant_id_status_idx";
CREATE INDEX "invoices_merchant_id_status_id_idx" ON "invoices" ("merchant_id", "status", "id");
-- status=... with the default ordering (the dashboard's status tabs).
CREATE INDEX "invoices_merchant_id_status_created_at_id_idx" ON "invoices" ("merchant_id", "status", "created_at", "id");

-- search= is a case-insensitive substring of address or description (ILIKE '%term%'): trigram GIN
-- indexes answer it without reading every invoice. pg_trgm is a trusted extension (PostgreSQL 13+),
-- so the database owner may create it; it ships with Debian's PostgreSQL and with the embedded one.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "invoices_address_trgm_idx" ON "invoices" USING GIN ("address" gin_trgm_ops);
CREATE INDEX "invoices_description_trgm_idx" ON "invoices" USING GIN ("description" gin_trgm_ops);

-- The list's `count` is exact (spec 4.2) and, for filters on type, status and currency, read from
-- these counters instead of counting a million rows. The triggers below change them in the same
-- transaction (the same statement) as the invoice rows, so a reader's snapshot sees counters and
-- rows alike: the sum is exactly the number of matching rows it could list. `shard` (id % 4)
-- spreads one merchant's concurrent creations over four rows, so they do not queue on one row.
CREATE TABLE "invoice_counts" (
    "merchant_id" INTEGER NOT NULL,
    "type" "InvoiceType" NOT NULL,
    "status" "InvoiceStatus" NOT NULL,
    "accepts_trx" BOOLEAN NOT NULL,
    "accepts_usdt" BOOLEAN NOT NULL,
    "shard" INTEGER NOT NULL,
    "n" BIGINT NOT NULL,
    CONSTRAINT "invoice_counts_pkey" PRIMARY KEY ("merchant_id", "type", "status", "accepts_trx", "accepts_usdt", "shard")
);

-- Statement-level, over the statement's transition tables: a bulk INSERT or UPDATE changes each
-- counter row once (row-level triggers would update one row a million times in one transaction).
-- The deltas are applied in key order, so two statements never take counter locks in opposite
-- orders. An UPDATE counts only rows whose merchant, type, status or tokens changed (ids never do),
-- so the worker's other updates (leases, amounts) do not touch the counters.
CREATE FUNCTION "invoice_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "invoice_counts"
    SELECT "merchant_id", "type", "status", 'TRX' = ANY ("currencies"), 'USDT' = ANY ("currencies"), "id" % 4, count(*)
      FROM "new_rows" GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("merchant_id", "type", "status", "accepts_trx", "accepts_usdt", "shard") DO UPDATE SET "n" = "invoice_counts"."n" + EXCLUDED."n";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "invoice_counts"
    SELECT "merchant_id", "type", "status", 'TRX' = ANY ("currencies"), 'USDT' = ANY ("currencies"), "id" % 4, -count(*)
      FROM "old_rows" GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("merchant_id", "type", "status", "accepts_trx", "accepts_usdt", "shard") DO UPDATE SET "n" = "invoice_counts"."n" + EXCLUDED."n";
  ELSE
    INSERT INTO "invoice_counts"
    SELECT m, t, s, trx, usdt, shard, sum(d) FROM (
      SELECT o."merchant_id" m, o."type" t, o."status" s, 'TRX' = ANY (o."currencies") trx, 'USDT' = ANY (o."currencies") usdt, o."id" % 4 shard, -1 d
        FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."type", o."status", o."currencies") IS DISTINCT FROM (n."merchant_id", n."type", n."status", n."currencies")
      UNION ALL
      SELECT n."merchant_id", n."type", n."status", 'TRX' = ANY (n."currencies"), 'USDT' = ANY (n."currencies"), n."id" % 4, 1
        FROM "old_rows" o JOIN "new_rows" n ON n."id" = o."id"
       WHERE (o."merchant_id", o."type", o."status", o."currencies") IS DISTINCT FROM (n."merchant_id", n."type", n."status", n."currencies")
    ) delta GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(d) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT ("merchant_id", "type", "status", "accepts_trx", "accepts_usdt", "shard") DO UPDATE SET "n" = "invoice_counts"."n" + EXCLUDED."n";
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION "invoice_counts_clear"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "invoice_counts";
  RETURN NULL;
END $$;

-- No invoice may change while the counters are filled (the migration's transaction holds this lock).
LOCK TABLE "invoices" IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER "invoices_count_insert" AFTER INSERT ON "invoices" REFERENCING NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "invoice_counts_apply"();
CREATE TRIGGER "invoices_count_update" AFTER UPDATE ON "invoices" REFERENCING OLD TABLE AS "old_rows" NEW TABLE AS "new_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "invoice_counts_apply"();
CREATE TRIGGER "invoices_count_delete" AFTER DELETE ON "invoices" REFERENCING OLD TABLE AS "old_rows"
  FOR EACH STATEMENT EXECUTE FUNCTION "invoice_counts_apply"();
CREATE TRIGGER "invoices_count_truncate" AFTER TRUNCATE ON "invoices" FOR EACH STATEMENT EXECUTE FUNCTION "invoice_counts_clear"();
INSERT INTO "invoice_counts"
SELECT "merchant_id", "type", "status", 'TRX' = ANY ("currencies"), 'USDT' = ANY ("currencies"), "id" % 4, count(*)
  FROM "invoices" GROUP BY 1, 2, 3, 4, 5, 6;
