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
-- these counters instead of counting a million rows. The trigger below changes them in the same
-- transaction as the invoice row, so a reader's snapshot sees counters and rows alike: the sum is
-- exactly the number of matching rows it could list. `shard` (id % 4) spreads one merchant's
-- concurrent creations over four rows, so they do not queue on one counter row's lock.
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

CREATE FUNCTION "invoice_counts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "invoice_counts" SET "n" = "n" - 1
     WHERE "merchant_id" = OLD."merchant_id" AND "type" = OLD."type" AND "status" = OLD."status"
       AND "accepts_trx" = ('TRX' = ANY (OLD."currencies")) AND "accepts_usdt" = ('USDT' = ANY (OLD."currencies"))
       AND "shard" = OLD."id" % 4;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO "invoice_counts" VALUES (NEW."merchant_id", NEW."type", NEW."status", 'TRX' = ANY (NEW."currencies"), 'USDT' = ANY (NEW."currencies"), NEW."id" % 4, 1)
    ON CONFLICT ("merchant_id", "type", "status", "accepts_trx", "accepts_usdt", "shard") DO UPDATE SET "n" = "invoice_counts"."n" + 1;
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
CREATE TRIGGER "invoices_count" AFTER INSERT OR DELETE OR UPDATE OF "merchant_id", "type", "status", "currencies", "id" ON "invoices"
  FOR EACH ROW EXECUTE FUNCTION "invoice_counts_apply"();
CREATE TRIGGER "invoices_count_truncate" AFTER TRUNCATE ON "invoices" FOR EACH STATEMENT EXECUTE FUNCTION "invoice_counts_clear"();
INSERT INTO "invoice_counts"
SELECT "merchant_id", "type", "status", 'TRX' = ANY ("currencies"), 'USDT' = ANY ("currencies"), "id" % 4, count(*)
  FROM "invoices" GROUP BY 1, 2, 3, 4, 5, 6;
