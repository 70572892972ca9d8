-- Issue 16: keep the invoice list's fast paths fast while invoices are being created.

-- Every trigram search (search=...) read the GIN indexes' whole pending list: with fastupdate on,
-- new entries wait there, unsorted, until it fills (gin_pending_list_limit, 4 MB) or a vacuum
-- merges it, and every scan reads all of it. After 11,000 creations that was 445 pages of the
-- address index and 162 of the description index, 4 ms of every search query (and a search runs
-- two: page and count). Without it each insert puts its few dozen trigrams in place (no slower
-- measurably here, and no creation pays for merging 4 MB), and a search reads only its trigrams.
ALTER INDEX "invoices_address_trgm_idx" SET (fastupdate = off);
ALTER INDEX "invoices_description_trgm_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('invoices_address_trgm_idx'::regclass), gin_clean_pending_list('invoices_description_trgm_idx'::regclass);

-- A deep page (offset >= 1000) skips index entries by an index-only scan, which reads the row
-- only where the visibility map does not mark its page all-visible. A new or changed invoice
-- clears that mark on the page it lands on, and new rows land in free space anywhere in the
-- table: 11,000 creations on a million invoices made offset=900000&ordering=amount fetch 47,731
-- rows from random pages (27-36 ms instead of 8). Only a vacuum sets the marks again, and by
-- default autovacuum waits for inserts of 20 % of the table (200,000 invoices) or updates of 20 %.
-- Here it comes after 0.5 % inserted or 1 % changed (about 6,000 or 10,000 rows of a million): a
-- vacuum then visits only the pages those rows touched (the map skips the rest). Where autovacuum
-- is off (the CI server's conf.d/90-ci.conf), nothing sets the marks until a manual VACUUM.
ALTER TABLE "invoices" SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
